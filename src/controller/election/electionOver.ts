import { Observable, ReplaySubject, share } from 'rxjs';
import type { ElectionSettings } from './electionSettings.js';
import { Elector } from './Elector.js';
import type { LeaseApi, LeaseObject } from './leaseApi.js';

/**
 * Where a candidate learns of the lease's records besides its own reads: `see` is called with
 * each new record as first seen, and when; the function returned stops it.
 */
export type LeaseSightings = (see: (lease: LeaseObject, at: number) => void) => () => void;

/**
 * One candidate's election over `api` as an Observable (`leaderElection`'s semantics): `false`
 * at once, then each change; shared by its subscribers, started by the first and stopped
 * (releasing a lease held) by the last. With `sightings` (a watch of the lease), a release
 * seen there is taken at once rather than at the next try.
 *
 * @example
 * const leading$ = electionOver(leaseApi(kc, 'ops', 'web'), electionSettings(config));
 */
export function electionOver(
  api: LeaseApi,
  settings: ElectionSettings,
  sightings?: LeaseSightings,
): Observable<boolean> {
  return new Observable<boolean>((subscriber) => {
    const elector = new Elector(api, settings, (leading) => subscriber.next(leading));
    const stopSeeing = sightings?.((lease, at) => elector.notice(lease, at));
    elector.start();
    return () => {
      stopSeeing?.();
      elector.stop();
    };
  }).pipe(
    share({
      connector: () => new ReplaySubject<boolean>(1),
      resetOnError: true,
      resetOnComplete: true,
      resetOnRefCountZero: true,
    }),
  );
}
