import { objectArgumentProblem, quoteValue } from '../objects/argumentChecks.js';
import { WatchError } from '../WatchError.js';
import { Observable } from 'rxjs';
import type { Cluster, Logger } from '../types.js';
import { linkedAbort } from '../client/request/linkedAbort.js';
import { streamRequest } from '../client/request/streamRequest.js';
import { LineFramer, isLineBound } from '../client/watch/lineFramer.js';
import { assertSegment, resourcePath } from '../objects/resourcePath.js';
import { DEFAULT_MAX_LINE_BYTES } from '../client/watch/watchLineDecoder.js';

/** Which log lines {@link fromPodLogs} reads. */
export interface PodLogsOptions {
  /** Namespace of the pod. */
  namespace: string;
  /** Name of the pod. */
  name: string;
  /** Container to read (required by the server when the pod has more than one). */
  container?: string;
  /** Keep streaming new lines until the server ends the stream. */
  follow?: boolean;
  /** Start with only the last this many lines. */
  tailLines?: number;
  /** Only lines newer than this many seconds. */
  sinceSeconds?: number;
  /** Prefix every line with its RFC 3339 timestamp. */
  timestamps?: boolean;
  /** The log of the previous (terminated) instance of the container. */
  previous?: boolean;
  /** Aborting it ends the stream and releases its connection. */
  signal?: AbortSignal;
  /** The longest line accepted, in bytes (default 16 MiB). */
  maxLineBytes?: number;
  /**
   * Hears what is worth a warning, as a watch's logger does: that a KubeConfig's credentials
   * are not sent to a cluster on plain HTTP elsewhere than loopback (default: silent).
   */
  logger?: Logger;
}

const NUMERIC = ['tailLines', 'sinceSeconds'] as const;

/**
 * The log of one pod's container, one value per line (without its line ending). With `follow`
 * it streams until the server ends the stream. Cold and abortable like `fromWatch`: each
 * subscription is one request, unsubscribing aborts it. Failures error the Observable with a
 * {@link WatchError} (a line over `maxLineBytes` is PARSE_ERROR).
 *
 * ```
 * server:      --"a\nb"--"c\n"--|
 * fromPodLogs: --a-------(bc)---|
 * ```
 *
 * @example
 * fromPodLogs(kc, { namespace: 'default', name: 'web-1', follow: true, tailLines: 10 })
 *   .subscribe((line) => console.log(line));
 */
export function fromPodLogs(cluster: Cluster, options: PodLogsOptions): Observable<string> {
  return new Observable<string>((subscriber) => {
    // Options that are not an object are the request's one BAD_REQUEST, before any is read.
    const problem = objectArgumentProblem('options', options);
    if (problem !== undefined) return subscriber.error(WatchError.badRequest('/', problem));
    const {
      namespace,
      name,
      container,
      follow,
      timestamps,
      previous,
      maxLineBytes = DEFAULT_MAX_LINE_BYTES,
    } = options;
    let path: string;
    try {
      path = resourcePath(
        { group: '', version: 'v1', plural: 'pods', kind: 'Pod' },
        { namespace, name, subresource: 'log' },
      );
      if (container !== undefined) assertSegment('container', container, path);
    } catch (error) {
      subscriber.error(error);
      return;
    }
    if (!isLineBound(maxLineBytes)) {
      subscriber.error(
        WatchError.badRequest(
          path,
          `maxLineBytes must be a positive whole number, not ${quoteValue(maxLineBytes)}`,
        ),
      );
      return;
    }
    const query = new URLSearchParams();
    if (container !== undefined) query.set('container', container);
    if (follow) query.set('follow', 'true');
    for (const key of NUMERIC) {
      const value = options[key];
      if (value === undefined) continue;
      if (!(Number.isInteger(value) && value >= 0)) {
        subscriber.error(
          WatchError.badRequest(path, `${key} must be a whole number, not ${quoteValue(value)}`),
        );
        return;
      }
      query.set(key, String(value));
    }
    if (timestamps) query.set('timestamps', 'true');
    if (previous) query.set('previous', 'true');

    const tooLong = () => WatchError.parse(path, 'a log line is longer than maxLineBytes');
    const framer = new LineFramer((line) => (subscriber.next(line), !subscriber.closed), {
      maxLineBytes,
      skipBlank: false,
    });
    if (options.signal?.aborted) return subscriber.complete();
    const { controller, unlink } = linkedAbort(options.signal, () => subscriber.complete());
    const accept = 'text/plain, */*';
    const { logger } = options;
    const request = { path, query, accept, logger, broken: 'the log stream failed' };
    const stream = streamRequest(cluster, request, controller.signal, {
      fail: (error) => subscriber.error(error),
      bytes: (buffer, start, end) => {
        if (framer.write(buffer, start, end) || !framer.tooLong) return !subscriber.closed;
        subscriber.error(tooLong());
        return false;
      },
      end: () => {
        if (framer.end() || !framer.tooLong) subscriber.complete();
        else subscriber.error(tooLong());
      },
    });
    return () => {
      unlink();
      controller.abort();
      stream.close();
    };
  });
}
