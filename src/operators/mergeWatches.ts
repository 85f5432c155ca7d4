import { catchError, map, merge, of, type Observable } from 'rxjs';
import type { WatchErrorEvent, WatchEvent, WatchObjectEvent } from '../types.js';
import { WatchError } from '../WatchError.js';

/**
 * Configuration of {@link mergeWatches}.
 *
 * @example
 * // Without RBAC on nodes, the pods still flow (and one ERROR event says why nodes do not).
 * mergeWatches({ pods: pods$, nodes: nodes$ }, { isolateErrors: true });
 */
export interface MergeWatchesConfig {
  /**
   * When a source errors, report it as an ERROR event tagged with its key and go on with the
   * others, instead of erroring the merge (default `false`).
   */
  isolateErrors?: boolean;
}

/** An ADDED, MODIFIED, DELETED or BOOKMARK event of the source named `K`. */
export interface TaggedObjectEvent<T, K extends string = string> extends WatchObjectEvent<T> {
  /** The key of the source it came from. */
  source: K;
}

/** An ERROR event of the source named `K`: one it carried, or its failure when isolated. */
export interface TaggedErrorEvent<K extends string = string> extends WatchErrorEvent {
  /** The key of the source it came from. */
  source: K;
}

/**
 * An event of a merged stream, typed per source: `M` maps each source key to its object type,
 * so with `M = { pods: V1Pod; deployments: V1Deployment }` an event whose `source` is `'pods'`
 * (and whose `type` is not `'ERROR'`) has a `V1Pod` object.
 *
 * @example
 * function log(e: MergedWatchEvent<{ pods: V1Pod; deployments: V1Deployment }>) {
 *   if (e.type === 'ERROR') console.error(e.source, e.error.errorType);
 *   else if (e.source === 'deployments') console.log(e.object.spec?.replicas); // V1Deployment
 * }
 */
export type MergedWatchEvent<M> = {
  [K in keyof M & string]: TaggedObjectEvent<M[K], K> | TaggedErrorEvent<K>;
}[keyof M & string];

/** Maps each key of a record of watch observables to the object type it carries. */
export type ObjectsOfSources<S> = {
  [K in keyof S]: S[K] extends Observable<WatchEvent<infer T>> ? T : never;
};

/**
 * Merges named watches into one stream, each event tagged with its source key
 * (`{ ...event, source: 'pods' }`). Adds no resumption of its own: give it resumed pipelines,
 * each of which resumes on its own. Completes when every source has completed (at once for no
 * source). A source that errors errors the merge, unless `isolateErrors` is set: then its error
 * becomes one ERROR event tagged with its key (a `WatchError` as is; anything else wrapped in
 * one, SYSTEM_ERROR for a Node.js system error such as ECONNRESET, UNKNOWN_ERROR otherwise,
 * with the original as `cause`), the source is over, and the others go on.
 *
 * ```
 * pods:          --a-----b--|
 * deployments:   -----d-----#
 * mergeWatches({ pods, deployments }):
 *                --A--D--B--#     (A: { ...a, source: 'pods' }; D: { ...d, source: 'deployments' })
 * mergeWatches({ pods, deployments }, { isolateErrors: true }):
 *                --A--D--B--(X|)  (X: { type: 'ERROR', error, source: 'deployments' })
 * ```
 *
 * @example
 * const events$ = mergeWatches({
 *   pods: fromWatch(kc, pods).pipe(resumeFromResourceVersion()),
 *   deployments: fromWatch(kc, deployments).pipe(resumeFromResourceVersion()),
 * });
 * events$.subscribe((e) => {
 *   if (e.source === 'pods' && e.type !== 'ERROR') console.log(e.object.status?.phase); // V1Pod
 * });
 */
export function mergeWatches<S extends Record<string, Observable<WatchEvent<any>>>>(
  sources: S,
  config: MergeWatchesConfig = {},
): Observable<MergedWatchEvent<ObjectsOfSources<S>>> {
  const { isolateErrors = false } = config;
  const tagged = Object.entries(sources).map(([source, events]) => {
    const withKey = events.pipe(map((event) => ({ ...event, source })));
    if (!isolateErrors) return withKey;
    return withKey.pipe(
      catchError((error: unknown) =>
        of({ type: 'ERROR' as const, error: asWatchError(error, source), source }),
      ),
    );
  });
  return merge(...tagged) as Observable<MergedWatchEvent<ObjectsOfSources<S>>>;
}

function asWatchError(error: unknown, source: string): WatchError {
  // Node.js system errors (ECONNRESET, ETIMEDOUT...) are network trouble: SYSTEM_ERROR, status 0.
  return WatchError.from(error, `source '${source}' failed`);
}
