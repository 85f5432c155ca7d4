import http from 'node:http';
import https from 'node:https';
import type { Readable } from 'node:stream';
import type { WatchError } from '../WatchError.js';
import type { Cluster } from '../types.js';
import { http1Stream } from './http1/Http1Exchange.js';
import { networkError } from './statusError.js';
import {
  fetchPrepared,
  prepareRequest,
  type OpenResult,
  type PreparedRequest,
} from './httpRequest.js';

/** Where a {@link StreamingBody} delivers its bytes. */
export interface BodySink {
  /** Bytes `buffer[start, end)`, valid only during the call; false stops the delivery. */
  bytes(buffer: Buffer, start: number, end: number): boolean;
  /** The body is complete. */
  end(): void;
  /** The body failed mid-way (not called after `release()`). */
  fail(cause: unknown): void;
}

/** The open body of a streaming answer (a watch, a followed log). */
export interface StreamingBody {
  /** Starts delivering to `sink`, synchronously from each read. Call once. */
  start(sink: BodySink): void;
  /** Stops reading from the socket (backpressure) until `resume()`. */
  pause(): void;
  resume(): void;
  /** Frees the socket at once; harmless after the end. */
  release(): void;
}

export type StreamOpenResult = { ok: true; body: StreamingBody } | { ok: false; error: WatchError };

/**
 * Opens one streaming GET (same credentials, validation and errors as every request). When the
 * connection uses a plain Node.js `http`/`https` Agent, as KubeConfigs do, the request is sent
 * on a connection of its own and its answer parsed by kube-rx ({@link http1Stream}), which is
 * what makes watches fast; anything else (a proxy agent, other node-fetch options, credentials
 * in the URL) goes through node-fetch as before.
 */
export async function openStream(
  cluster: Cluster,
  resourcePath: string,
  query: URLSearchParams,
  signal: AbortSignal,
  { accept = 'application/json' }: { accept?: string } = {},
): Promise<StreamOpenResult> {
  try {
    const prepared = await prepareRequest(cluster, resourcePath, query, signal, accept);
    if (!prepared.ok) return prepared;
    const { request } = prepared;
    if (speaksPlainHttp1(request)) return await http1Stream(request, signal);
    return readableBody(await fetchPrepared(request, signal));
  } catch (cause) {
    // Every failure is a result, so that the generator never throws; this one would be a bug.
    return { ok: false, error: networkError(resourcePath, cause) };
  }
}

/** True when kube-rx can connect exactly as the request's agent would. */
function speaksPlainHttp1({ agent, init, url }: PreparedRequest): boolean {
  const prototype = Object.getPrototypeOf(agent);
  if (prototype !== http.Agent.prototype && prototype !== https.Agent.prototype) return false;
  if (Object.keys(init).some((key) => key !== 'agent' && key !== 'headers')) return false;
  // A URL Node cannot parse is left to node-fetch, which reports it like any request failure.
  if (!URL.canParse(url)) return false;
  const { username, password } = new URL(url);
  return username === '' && password === '';
}

/** A node-fetch body as a {@link StreamingBody}. */
function readableBody(opened: OpenResult): StreamOpenResult {
  if (!opened.ok) return opened;
  const { response } = opened;
  const stream: Readable = response.body;
  let released = false;
  return {
    ok: true,
    body: {
      start(sink) {
        stream.on('data', (chunk: Buffer) => {
          if (!sink.bytes(chunk, 0, chunk.length)) stream.removeAllListeners('data');
        });
        stream.once('end', () => sink.end());
        stream.on('error', (cause) => released || sink.fail(cause));
        stream.resume();
      },
      pause: () => stream.pause(),
      resume: () => stream.resume(),
      release: () => {
        released = true;
        response.release();
      },
    },
  };
}
