import { WatchError } from '../../WatchError.js';
import type { RequestMethod } from '../../transport/outgoingRequest.js';
import type { Cluster } from '../../types.js';
import { requestJson } from '../request/requestJson.js';
import { withoutValues } from './writtenSecrets.js';

/** One request of a `ResourceApi`, its path validated and encoded. */
export interface ApiRequest {
  method: RequestMethod;
  path: string;
  query?: URLSearchParams;
  body?: unknown;
  contentType?: string;
  signal?: AbortSignal;
  /** Values to keep out of the error (a Secret's data: see `writtenSecrets`). */
  secrets?: string[];
}

/**
 * Sends one request through the request core and resolves with the JSON the server answered,
 * or rejects with its WatchError (a Secret's values removed from it). An already aborted
 * signal sends nothing, not even the credentials' resolution.
 *
 * @example
 * const pod = await sendRequest<V1Pod>(kc, { method: 'GET', path: '/api/v1/namespaces/a/pods/b' });
 */
export async function sendRequest<R>(
  cluster: Cluster,
  { method, path, query, body, contentType, signal, secrets = [] }: ApiRequest,
): Promise<R> {
  // A signal of its own when none is given: the transport listens on it for the request's
  // life, and one signal shared by every request would gather listeners (16 writes in flight
  // make Node warn of a leak).
  signal ??= new AbortController().signal;
  if (signal.aborted) throw WatchError.aborted(path);
  const answer = await requestJson<R>(cluster, {
    method,
    path,
    query,
    body,
    contentType,
    signal,
  });
  if (!answer.ok) throw withoutValues(answer.error, secrets);
  return answer.value;
}
