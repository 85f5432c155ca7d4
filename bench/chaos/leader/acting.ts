import type { KubeConfig } from '@kubernetes/client-node';
import { Observable } from 'rxjs';

/** What a replica reports about its acting: it started, it is still at it, it stopped. */
export type ActingReport = (type: 'act-start' | 'act' | 'act-stop') => void;

/**
 * The work a replica does while it leads, as a cold Observable that `whileLeader` subscribes
 * and unsubscribes. A module given to `replica.ts --act <module>` exports `act` with this shape,
 * so a real `controller()` can replace the loop below (controllerActing.ts is one).
 */
export type Acting = (report: ActingReport, cluster: KubeConfig) => Observable<unknown>;

/**
 * The default acting: a loop that reports `act-start` when it is subscribed, `act` every
 * `everyMs` (a heartbeat: the last time it certainly acted) and `act-stop` when unsubscribed.
 *
 * @example
 * loopActing()((type) => console.log(type)).pipe(whileLeader(election$)).subscribe();
 */
export function loopActing(everyMs = 50): Acting {
  return (report) =>
    new Observable<never>(() => {
      report('act-start');
      const timer = setInterval(() => report('act'), everyMs);
      return () => {
        clearInterval(timer);
        report('act-stop');
      };
    });
}
