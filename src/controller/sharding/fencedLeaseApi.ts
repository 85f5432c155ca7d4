import type { LeaseApi, LeaseObject } from '../election/leaseApi.js';
import type { MemberFence } from './MemberFence.js';

/**
 * `api`, telling `fence` of each write that leaves the Lease held (a release clears the
 * holder): the fence then says, on the clock, whether the last such write is recent enough to
 * act on, whatever the Elector's timers did during an event-loop stall.
 *
 * @example
 * const fence = new MemberFence(now, renewDeadlineMs);
 * new Elector(fencedLeaseApi(api, now, fence), settings, onHolding);
 * fence.holds(); // false once renewDeadlineMs passed since the last write sent that held
 */
export function fencedLeaseApi(api: LeaseApi, now: () => number, fence: MemberFence): LeaseApi {
  const told =
    (write: (lease: LeaseObject, signal: AbortSignal) => ReturnType<LeaseApi['update']>) =>
    async (lease: LeaseObject, signal: AbortSignal) => {
      const sentAt = now();
      const result = await write(lease, signal);
      if (result.ok && (result.value.spec?.holderIdentity ?? '') !== '') fence.renewed(sentAt);
      return result;
    };
  return { get: (signal) => api.get(signal), create: told(api.create), update: told(api.update) };
}
