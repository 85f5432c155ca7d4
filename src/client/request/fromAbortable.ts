import { Observable } from 'rxjs';
import { linkedAbort } from './linkedAbort.js';

/**
 * One value from an abortable request, as a cold Observable: `run` gets a signal linked to
 * `signal` and aborted on unsubscribe; its result is emitted then completes, its failure errors
 * the Observable. Once aborted (from either side) nothing more is told: an abort of `signal`
 * completes it silently.
 *
 * ```
 * run:         ----r|
 * result:      ----(r|)
 * ```
 *
 * @example
 * fromAbortable(options.signal, (signal) => listAll(cluster, resource, options, signal));
 */
export function fromAbortable<T>(
  signal: AbortSignal | undefined,
  run: (signal: AbortSignal) => Promise<T>,
): Observable<T> {
  return new Observable<T>((subscriber) => {
    const { controller, unlink } = linkedAbort(signal, () => subscriber.complete());
    run(controller.signal).then(
      (result) => {
        if (controller.signal.aborted) return;
        subscriber.next(result);
        subscriber.complete();
      },
      (error) => {
        if (!controller.signal.aborted) subscriber.error(error);
      },
    );
    return () => {
      unlink();
      controller.abort();
    };
  });
}
