import {
  distinctUntilChanged,
  EMPTY,
  endWith,
  type MonoTypeOperatorFunction,
  type Observable,
  switchMap,
} from 'rxjs';

/**
 * Runs its source only while `election$` says this replica leads: it subscribes the source
 * when `election$` emits `true` and unsubscribes it the moment `election$` emits `false` (so a
 * controller's runs in flight get their signals aborted), subscribing afresh if leadership comes
 * back. When `election$` completes the source is unsubscribed (nothing says we still lead) and
 * the output completes; its error is the output's error. The source ending on its own does not
 * end the output.
 *
 * ```
 * election$: f--t-----f----t-----|
 * source:       -a-b-c-d       -a-b-c-d
 * output:    ----a-b-c------a-b-c|     (each `t` subscribes the source afresh)
 * ```
 *
 * @example
 * const leading$ = leaderElection(kc, { namespace: 'ops', name: 'my-operator', identity });
 * controller(config).pipe(whileLeader(leading$)).subscribe(report => log(report));
 */
export function whileLeader<T>(election$: Observable<boolean>): MonoTypeOperatorFunction<T> {
  return (source) =>
    election$.pipe(
      endWith(false),
      distinctUntilChanged(),
      switchMap((leading) => (leading ? source : EMPTY)),
    );
}
