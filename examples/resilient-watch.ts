/**
 * A watch that survives the real world, and says what it is doing.
 *
 *   npm run example examples/resilient-watch.ts [namespace]
 *
 * `resilientWatch(kc, pods, options, config)` is the recommended pipeline in one call:
 * `fromWatch` + `withBookmarks(config.bookmarks)` + `resumeFromResourceVersion(config)`.
 * - `withBookmarks` asks the server for a BOOKMARK about once a minute and treats a connection
 *   silent for longer than `idleTimeout` as dead (a half-open socket otherwise waits forever).
 * - `resumeFromResourceVersion` lists first (every pod as ADDED, then a BOOKMARK that marks
 *   the end of the initial state), watches from the list's version, reconnects from the last
 *   version it delivered when the connection ends or fails (with backoff), and relists after
 *   `410 Gone`, emitting only what changed meanwhile. ERROR events never reach you.
 * - `onLifecycle` reports each of those steps: connecting, connected, disconnected, backoff,
 *   relist-start, relist-end and expired.
 *
 * In your project, import from 'kube-rx' instead of '../src/index.js'.
 */
import { pathToFileURL } from 'node:url';
import { KubeConfig } from '@kubernetes/client-node';
import { count, fromEvent, lastValueFrom, of, takeUntil, tap, type Observable } from 'rxjs';
import { isInitialEventsEnd, pods, resilientWatch } from '../src/index.js';
import type { LifecycleEvent } from '../src/index.js';
import { describeEvent, type ExampleOptions } from './first-watch.js';

/** Options of this example. */
export interface ResilientWatchOptions extends ExampleOptions {
  /** The namespace to watch (default `'default'`). */
  namespace?: string;
  /** Milliseconds without any event or bookmark after which the connection counts as dead. */
  idleTimeout?: number;
}

/** One line per lifecycle step: `lifecycle backoff 640 ms (attempt 1): SYSTEM_ERROR ...`. */
export function describeLifecycle(event: LifecycleEvent): string {
  switch (event.type) {
    case 'connecting':
      return `lifecycle connecting from ${event.resourceVersion ?? 'the current state'}`;
    case 'disconnected':
      return `lifecycle disconnected (${event.reason}${event.error ? `: ${event.error.errorType}` : ''})`;
    case 'backoff':
      return `lifecycle backoff ${Math.round(event.delay)} ms (attempt ${event.attempt}): ${event.error.errorType}`;
    case 'relist-end':
      return `lifecycle relist-end (${event.count} objects)`;
    default:
      return `lifecycle ${event.type}`;
  }
}

/** Emits once `signal` aborts (at once if it already has). */
export function aborted(signal: AbortSignal | undefined): Observable<unknown> {
  if (!signal) return of();
  return signal.aborted ? of(true) : fromEvent(signal, 'abort');
}

/**
 * Watches the pods of a namespace for as long as `signal` lets it, through disconnects, server
 * restarts and expired versions, logging every event and every lifecycle step. Resolves with
 * the number of events delivered when `signal` aborts; rejects with the WatchError when
 * retrying cannot help (400, 403, 404, a second 401 in a row).
 */
export function main(kc: KubeConfig, options: ResilientWatchOptions = {}): Promise<number> {
  const { namespace = 'default', idleTimeout = 150_000, signal, log = console.log } = options;
  return lastValueFrom(
    resilientWatch(
      kc,
      pods,
      { namespace },
      { bookmarks: { idleTimeout }, onLifecycle: (event) => log(describeLifecycle(event)) },
    ).pipe(
      // The pipeline never ends on its own; stop it when asked.
      takeUntil(aborted(signal)),
      tap((event) =>
        log(
          isInitialEventsEnd(event)
            ? 'synced: the initial state is complete'
            : describeEvent(event),
        ),
      ),
      count(),
    ),
  );
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const kc = new KubeConfig();
  kc.loadFromDefault();
  const stop = new AbortController();
  process.once('SIGINT', () => stop.abort());
  const count = await main(kc, { namespace: process.argv[2], signal: stop.signal });
  console.log(`${count} events`);
}
