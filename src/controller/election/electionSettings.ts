import { quoteValue } from '../../objects/argumentChecks.js';
import { asyncScheduler, type SchedulerLike } from 'rxjs';
import type { Logger } from '../../types.js';
import type { LeaderElectionConfig } from '../LeaderElectionConfig.js';

/** A {@link LeaderElectionConfig} checked, with its defaults filled in. */
export interface ElectionSettings {
  identity: string;
  leaseDurationMs: number;
  renewDeadlineMs: number;
  retryPeriodMs: number;
  scheduler: SchedulerLike;
  now: () => number;
  logger: Logger | undefined;
}

/** The longest identity kube-apiserver keeps in `spec.holderIdentity` is not bounded; we are. */
const MAX_IDENTITY_LENGTH = 253;

function positive(name: string, value: number): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) {
    throw new RangeError(
      `leaderElection: ${name} must be a positive number of ms: ${quoteValue(value)}`,
    );
  }
  return value;
}

/**
 * Checks a {@link LeaderElectionConfig} as client-go's `NewLeaderElector` does, with messages
 * that say what to change: `renewDeadlineMs < leaseDurationMs` and
 * `retryPeriodMs < renewDeadlineMs`, positive durations, a non-empty identity.
 *
 * @example
 * electionSettings({ namespace: 'ops', name: 'lock', identity: 'pod-1', renewDeadlineMs: 20_000 });
 * // RangeError: renewDeadlineMs (20000) must be less than leaseDurationMs (15000)
 */
export function electionSettings(config: LeaderElectionConfig): ElectionSettings {
  const {
    identity,
    leaseDurationMs = 15_000,
    renewDeadlineMs = 10_000,
    retryPeriodMs = 2_000,
    scheduler,
    now,
    logger,
  } = config;
  if (typeof identity !== 'string' || identity === '' || identity.length > MAX_IDENTITY_LENGTH) {
    throw new TypeError(
      `leaderElection: identity must be a non-empty string of at most ${MAX_IDENTITY_LENGTH} characters`,
    );
  }
  positive('leaseDurationMs', leaseDurationMs);
  positive('renewDeadlineMs', renewDeadlineMs);
  positive('retryPeriodMs', retryPeriodMs);
  if (renewDeadlineMs >= leaseDurationMs) {
    throw new RangeError(
      `leaderElection: renewDeadlineMs (${renewDeadlineMs}) must be less than leaseDurationMs ` +
        `(${leaseDurationMs}): a leader that cannot renew must stop before a standby may take over`,
    );
  }
  if (retryPeriodMs >= renewDeadlineMs) {
    throw new RangeError(
      `leaderElection: retryPeriodMs (${retryPeriodMs}) must be less than renewDeadlineMs ` +
        `(${renewDeadlineMs}): a leader needs more than one try to renew before its deadline`,
    );
  }
  const clock = now ?? (scheduler ? () => scheduler.now() : () => globalThis.performance.now());
  return {
    identity,
    leaseDurationMs,
    renewDeadlineMs,
    retryPeriodMs,
    scheduler: scheduler ?? asyncScheduler,
    now: clock,
    logger,
  };
}
