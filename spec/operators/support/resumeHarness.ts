// Runs a resumed pipeline in virtual time and writes what happened, events and lifecycle alike,
// as one timeline of "<ms> <what>" lines, so a spec states the whole story in order.
import { describeLifecycle } from '../../support/pipelineRecording.js';
import type { Context } from 'rxjs-marbles/jest';
import type { Observable } from 'rxjs';
import { isInitialEventsEnd } from '../../../src/objects/isInitialEventsEnd.js';
import {
  resumeFromResourceVersion,
  type ResumeConfig,
} from '../../../src/operators/resumeFromResourceVersion.js';
import { errorEvent } from '../../../src/testing/marbles/builders.js';
import type { KubernetesObject, WatchEvent } from '../../../src/types.js';

export function describeEvent(event: WatchEvent<KubernetesObject>): string {
  if (event.type === 'ERROR') return `ERROR ${event.error.statusCode}`;
  if (event.type === 'BOOKMARK')
    return `BOOKMARK ${event.resourceVersion}${isInitialEventsEnd(event) ? ' end' : ''}`;
  const { metadata } = event.object;
  return `${event.type} ${metadata?.name}@${metadata?.resourceVersion}`;
}

export { describeLifecycle };

export interface Run {
  timeline: string[];
  events: WatchEvent<KubernetesObject>[];
  error?: unknown;
  completed: boolean;
}

/** Subscribes, runs virtual time (until `until` ms when given, then unsubscribes) and reports. */
export function run(
  m: Context,
  source: Observable<WatchEvent<KubernetesObject>>,
  config: ResumeConfig = {},
  until?: number,
): Run {
  const now = () => m.scheduler.now();
  const result: Run = { timeline: [], events: [], completed: false };
  const subscription = source
    .pipe(
      resumeFromResourceVersion({
        scheduler: m.scheduler,
        random: () => 0.5,
        ...config,
        onLifecycle: (event) => result.timeline.push(`${now()} ${describeLifecycle(event)}`),
      }),
    )
    .subscribe({
      next: (event) => {
        result.events.push(event);
        result.timeline.push(`${now()} ${describeEvent(event)}`);
      },
      error: (error) => (result.error = error),
      complete: () => (result.completed = true),
    });
  if (until !== undefined) m.scheduler.schedule(() => subscription.unsubscribe(), until);
  m.flush();
  return result;
}

/** What an HTTP error looks like from the source: one ERROR value, then the end. */
export function httpError(
  m: Context,
  statusCode: number,
  extra: { reason?: string; retryAfterSeconds?: number } = {},
): Observable<WatchEvent<KubernetesObject>> {
  return m.cold('(x|)', {
    x: errorEvent(statusCode, extra.reason, undefined, {
      retryAfterSeconds: extra.retryAfterSeconds,
    }),
  });
}

/** The backoff lines of a timeline, without their time: "backoff <delay> #<attempt>". */
export function backoffs(timeline: string[]): string[] {
  return timeline
    .filter((line) => line.includes(' backoff '))
    .map((line) => line.split(' ').slice(1, 4).join(' '));
}
