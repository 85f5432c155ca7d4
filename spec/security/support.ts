import { inspect } from 'node:util';
import {
  catchError,
  firstValueFrom,
  ignoreElements,
  lastValueFrom,
  of,
  timeout,
  toArray,
  type Observable,
} from 'rxjs';
import { mergeWatches } from '../../src/operators/mergeWatches.js';
import { throwOnWatchError } from '../../src/operators/throwOnWatchError.js';
import { fromList } from '../../src/sources/fromList.js';
import { fromPodLogs } from '../../src/sources/fromPodLogs.js';
import { fromWatch } from '../../src/sources/fromWatch.js';
import type { Cluster, Logger, WatchOptions } from '../../src/types.js';
import { watchResource } from '../../src/watch.js';
import { pods } from '../../src/objects/resources.js';
import { resilientWatch } from '../../src/operators/resilientWatch.js';

export { pods };

/**
 * Everything a consumer could print of a value: `String()`, JSON (errors with their message,
 * stack and cause) and `util.inspect` (which shows own properties such as `status` and `cause`).
 */
export function visible(value: unknown): string {
  const json = JSON.stringify(value, (_key, v: unknown) =>
    v instanceof Error ? { ...v, message: v.message, stack: v.stack, cause: visible(v.cause) } : v,
  );
  return [String(value), json, inspect(value, { depth: 12, showHidden: false })].join('\n');
}

/** Captures what a logger is told. */
export function capturingLogger(into: string[]): Logger {
  return { warn: (m) => into.push(`warn ${m}`), debug: (m) => into.push(`debug ${m}`) };
}

/** What `observable` gave: its values, its error, or 'still running' after `ms` (then unsubscribed). */
const settle = <T>(observable: Observable<T>, ms: number): Promise<unknown> =>
  lastValueFrom(
    observable.pipe(
      toArray(),
      timeout({ first: ms, with: () => of('still running') }),
      catchError((error: unknown) => of(error)),
    ),
  );

/**
 * Runs every way kube-rx talks to a cluster against it and returns everything that came out:
 * events and errors of watchResource, fromWatch and fromList, how fromPodLogs ends, the error of
 * throwOnWatchError, the ERROR a mergeWatches with isolateErrors reports, the lifecycle events
 * of a resumed watch (which gives up after one retry) and every logger line.
 */
export async function everythingFrom(
  cluster: Cluster,
  options: WatchOptions = {},
  { pipelineMs = 1500 }: { pipelineMs?: number } = {},
): Promise<string[]> {
  const out: string[] = [];
  const logs: string[] = [];
  const logger = capturingLogger(logs);
  const watchOptions = { ...options, logger };
  for await (const event of watchResource(cluster, pods, watchOptions)) out.push(visible(event));
  out.push(visible(await settle(fromWatch(cluster, pods, watchOptions), pipelineMs)));
  out.push(
    visible(
      await settle(fromWatch(cluster, pods, watchOptions).pipe(throwOnWatchError()), pipelineMs),
    ),
  );
  out.push(
    visible(await firstValueFrom(fromList(cluster, pods, { logger })).catch((e: unknown) => e)),
  );
  // Log lines are the server's data, asked for: only how the log stream ends is scanned.
  const logLines = fromPodLogs(cluster, { namespace: 'default', name: 'web-1' });
  out.push(visible(await settle(logLines.pipe(ignoreElements()), pipelineMs)));
  const lifecycle: unknown[] = [];
  const resumed = resilientWatch(cluster, pods, watchOptions, {
    bookmarks: { idleTimeout: 1000 },
    maxRetries: 1,
    random: () => 0,
    onLifecycle: (event) => lifecycle.push(event),
  });
  out.push(visible(await settle(resumed, pipelineMs)));
  out.push(
    visible(await settle(mergeWatches({ pods: resumed }, { isolateErrors: true }), pipelineMs)),
  );
  out.push(...lifecycle.map(visible), ...logs);
  return out;
}

/** The captured texts that contain `secret`, shortened around it, for a readable failure. */
export function leaks(texts: string[], secret: string): string[] {
  return texts
    .filter((t) => t.includes(secret))
    .map((t) => {
      const at = t.indexOf(secret);
      return `...${t.slice(Math.max(0, at - 80), at + secret.length + 20)}...`;
    });
}
