import type { MonoTypeOperatorFunction } from 'rxjs';
import { changedBy, type ChangedByConfig } from './changedBy.js';
import { metadataOf } from '../objects/metadataOf.js';
import { type AnyWatchEvent } from '../objects/AnyWatchEvent.js';
import type { ObjectOfEvent } from './objects.js';

/**
 * Drops MODIFIED events whose `metadata.generation` did not change for that object since the
 * last event of it that passed: the API server bumps the generation on changes to the spec (the
 * desired state), not on status updates, so this skips status-only churn, as controller-runtime's
 * `GenerationChangedPredicate` does. ADDED, DELETED, BOOKMARK and ERROR events pass, and so does a
 * MODIFIED for an object not seen before; DELETED forgets the object. It is
 * `changedBy((o) => o.metadata?.generation)`: see {@link changedBy}.
 *
 * Objects without a generation (pods, config maps: resources without a spec/status split) never
 * pass a MODIFIED after their first event: use it on resources that have one.
 *
 * ```
 * source:              -a-s-g-s-d-|   (a: ADDED x gen 1; s: MODIFIED x status only;
 *                                       g: MODIFIED x gen 2; d: DELETED x)
 * generationChanged(): -a---g---d-|
 * ```
 *
 * @example
 * resilientWatch(kc, deployments)
 *   .pipe(generationChanged())
 *   .subscribe((e) => e.type !== 'BOOKMARK' && reconcile(e.object)); // spec changes only
 */
export function generationChanged<E extends AnyWatchEvent>(
  config: ChangedByConfig<ObjectOfEvent<E>> = {},
): MonoTypeOperatorFunction<E> {
  return changedBy<E>((object) => metadataOf(object)?.generation, config);
}
