// Records what a resumed pipeline does on real timers against a real server: every event it
// delivers and every lifecycle step, with wall-clock times, so a spec can wait for a state and
// then state the whole story.
import type { Observable, Subscription } from 'rxjs';
import { defaultKey, resourceVersionOf } from '../../src/operators/internal/events.js';
import { isInitialEventsEnd } from '../../src/operators/isInitialEventsEnd.js';
import {
  resumeFromResourceVersion,
  type LifecycleEvent,
  type ResumeConfig,
} from '../../src/operators/resumeFromResourceVersion.js';
import { withBookmarks } from '../../src/operators/withBookmarks.js';
import { fromWatch } from '../../src/sources/fromWatch.js';
import type {
  Cluster,
  KubernetesObject,
  ResourceRef,
  WatchEvent,
  WatchObjectEvent,
  WatchOptions,
} from '../../src/types.js';

/**
 * The recommended pipeline, as a real consumer builds it:
 * `fromWatch(cluster, resource, options).pipe(withBookmarks({ idleTimeout }), resumeFromResourceVersion(resume))`
 * (`scheduler`, when given, drives both operators).
 *
 * @example
 * const rec = new PipelineRecording();
 * rec.subscribe(resumedWatch(server.kubeConfig(), pods, {}, { idleTimeout: 5000, onLifecycle: rec.onLifecycle }));
 */
export function resumedWatch<T = KubernetesObject>(
  cluster: Cluster,
  resource: ResourceRef<T>,
  options: WatchOptions = {},
  { idleTimeout, ...resume }: ResumeConfig & { idleTimeout?: number } = {},
): Observable<WatchEvent<T>> {
  return fromWatch<T>(cluster, resource, options).pipe(
    withBookmarks<T>({ idleTimeout, scheduler: resume.scheduler }),
    resumeFromResourceVersion<T>(resume),
  );
}

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
