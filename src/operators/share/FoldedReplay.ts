import type { Subscriber } from 'rxjs';
import { metadataOf } from '../../objects/metadataOf.js';
import { initialEventsEndObject } from '../../objects/endBookmark.js';
import type { AnyWatchEvent } from '../../objects/AnyWatchEvent.js';
import { emptyWatchState, foldEvent, type WatchState } from '../store/foldEvent.js';
import { SortedMap } from '../store/SortedMap.js';
import type { ReplayState } from './SharedUpstream.js';

/** An empty state of one source, before its first event. */
const EMPTY_STATE: WatchState<SortedMap<unknown>> = emptyWatchState(SortedMap.empty());

/**
 * The replay state of `shareWatch`, which has no store to replay from: per source of the stream
 * (or for the whole stream, when untagged), what its events folded into, through the one fold
 * (`foldEvent`) and the key `shareWatch` was given.
 *
 * @example
 * const replay = new FoldedReplay(defaultKey);
 * replay.record(added(pod('a', '3')));
 * replay.replayTo(late); // ADDED a
 */
export class FoldedReplay<E extends AnyWatchEvent> implements ReplayState<E> {
  private readonly states = new Map<string | undefined, WatchState<SortedMap<unknown>>>();

  constructor(private readonly keyOf: (object: unknown) => string) {}

  record(event: E): void {
    const before = this.states.get(event.source) ?? EMPTY_STATE;
    const after = foldEvent(before, event, this.keyOf);
    if (after !== before || !this.states.has(event.source)) this.states.set(event.source, after);
  }

  replayTo(subscriber: Subscriber<E>): void {
    for (const [source, state] of this.states) {
      const tag = source === undefined ? {} : { source };
      for (const [, object] of state.objects.entries()) {
        if (subscriber.closed) return;
        const resourceVersion = metadataOf(object)?.resourceVersion;
        subscriber.next({ type: 'ADDED', object, resourceVersion, ...tag } as E);
      }
      if (state.initialEventsEnd !== undefined) {
        const object = initialEventsEndObject(state.initialEventsEnd, state.resourceVersion);
        const { resourceVersion } = state;
        subscriber.next({ type: 'BOOKMARK', object, resourceVersion, ...tag } as E);
      }
    }
  }
}
