// Records what a resumed pipeline (resilientWatch) does on real timers against a real server:
// every event it delivers and every lifecycle step, with wall-clock times, so a spec can wait for
// a state and then state the whole story.
import type { Observable, Subscription } from 'rxjs';
import { defaultKey } from '../../src/objects/defaultKey.js';
import { resourceVersionOf } from '../../src/objects/resourceVersionOf.js';
import { isInitialEventsEnd } from '../../src/objects/isInitialEventsEnd.js';
import type { LifecycleEvent } from '../../src/operators/resume/LifecycleEvent.js';
import type { KubernetesObject, WatchEvent, WatchObjectEvent } from '../../src/types.js';

export interface LifecycleEntry {
  /** `Date.now()` when it was reported. */
  at: number;
  event: LifecycleEvent;
}

/** `namespace/name` (or `name`) of an event's object. */
export function keyOfEvent(event: WatchObjectEvent<KubernetesObject>): string {
  return defaultKey(event.object);
}

/** `ADDED default/a@3`, `BOOKMARK @7 end`, `ERROR 500`. */
export function describeEvent(event: WatchEvent<KubernetesObject>): string {
  if (event.type === 'ERROR') return `ERROR ${event.error.statusCode}`;
  const version = resourceVersionOf(event);
  if (event.type === 'BOOKMARK') {
    return `BOOKMARK @${version}${isInitialEventsEnd(event) ? ' end' : ''}`;
  }
  return `${event.type} ${keyOfEvent(event)}@${version}`;
}

/** `connecting 5`, `disconnected error 503`, `backoff 2000 #1 503`, `relist-end 3`. */
export function describeLifecycle(event: LifecycleEvent): string {
  switch (event.type) {
    case 'connecting':
      return `connecting ${event.resourceVersion ?? '-'}`;
    case 'disconnected':
      return `disconnected ${event.reason}${event.error ? ` ${event.error.statusCode}` : ''}`;
    case 'backoff':
      return `backoff ${event.delay} #${event.attempt} ${event.error.statusCode}`;
    case 'relist-end':
      return `relist-end ${event.count}`;
    default:
      return event.type;
  }
}

/** A subscription to a pipeline and everything it delivered. */
export class PipelineRecording {
  readonly events: WatchEvent<KubernetesObject>[] = [];
  readonly lifecycle: LifecycleEntry[] = [];
  error: unknown = undefined;
  errored = false;
  completed = false;
  private subscription?: Subscription;

  /** Pass as `onLifecycle` in the ResumeConfig. */
  readonly onLifecycle = (event: LifecycleEvent): void => {
    this.lifecycle.push({ at: Date.now(), event });
  };

  subscribe(pipeline: Observable<WatchEvent<KubernetesObject>>): this {
    this.subscription = pipeline.subscribe({
      next: (event) => this.events.push(event),
      error: (error: unknown) => {
        this.errored = true;
        this.error = error;
      },
      complete: () => (this.completed = true),
    });
    return this;
  }

  unsubscribe(): void {
    this.subscription?.unsubscribe();
  }

  /** The delivered events as `describeEvent` lines. */
  get story(): string[] {
    return this.events.map(describeEvent);
  }

  /** The lifecycle as `describeLifecycle` lines. */
  get steps(): string[] {
    return this.lifecycle.map(({ event }) => describeLifecycle(event));
  }

  /** True once the initial-events-end BOOKMARK of the first sync was delivered. */
  get synced(): boolean {
    return this.events.some(isInitialEventsEnd);
  }
}
