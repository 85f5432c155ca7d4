import type { V1Deployment, V1Pod } from '@kubernetes/client-node';
import { initialEventsEndObject } from '../../objects/endBookmark.js';
import { definedOptions } from '../../objects/definedOptions.js';
import { WatchError, errorTypeForStatus as errorTypeFor } from '../../WatchError.js';
import type {
  KubernetesObject,
  ListResult,
  WatchErrorEvent,
  WatchObjectEvent,
} from '../../types.js';

export { INITIAL_EVENTS_END_ANNOTATION } from '../../objects/endBookmark.js';

/** A shallow patch of an object, its nested objects (such as `metadata`) merged one level deep. */
export type ObjectPatch<T> = { [K in keyof T]?: T[K] extends object ? Partial<T[K]> : T[K] };

function merge<T extends KubernetesObject>(base: T, patch: ObjectPatch<T> = {}): T {
  return { ...base, ...patch, metadata: { ...base.metadata, ...patch.metadata } } as T;
}

/**
 * A pod in namespace `default` (unless the patch says otherwise) with one running container.
 *
 * @example
 * pod('web-1', '5'); // metadata: { name: 'web-1', namespace: 'default', resourceVersion: '5', uid: ... }
 * pod('web-1', '6', { metadata: { namespace: 'prod', labels: { app: 'web' } } });
 */
export function pod(name: string, resourceVersion: string, patch?: ObjectPatch<V1Pod>): V1Pod {
  return merge<V1Pod>(
    {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name, namespace: 'default', resourceVersion, uid: `uid-${name}` },
      spec: { containers: [{ name: 'main', image: 'nginx:1.27' }] },
      status: { phase: 'Running' },
    },
    patch,
  );
}

/**
 * A deployment in namespace `default` (unless the patch says otherwise) with `replicas` 1.
 *
 * @example
 * deployment('web', '7', { spec: { replicas: 3 } });
 */
export function deployment(
  name: string,
  resourceVersion: string,
  patch?: ObjectPatch<V1Deployment>,
): V1Deployment {
  return merge<V1Deployment>(
    {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name, namespace: 'default', resourceVersion, uid: `uid-${name}` },
      spec: {
        replicas: 1,
        selector: { matchLabels: { app: name } },
        template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'main' }] } },
      },
      status: { replicas: 1, readyReplicas: 1 },
    },
    patch,
  );
}

function objectEvent<T extends KubernetesObject>(
  type: 'ADDED' | 'MODIFIED' | 'DELETED',
  object: T,
): WatchObjectEvent<T> {
  return { type, object, resourceVersion: object.metadata?.resourceVersion };
}

/**
 * An ADDED event for `object`, with its resourceVersion.
 *
 * @example
 * m.cold('a|', { a: added(pod('a', '5')) });
 */
export function added<T extends KubernetesObject>(object: T): WatchObjectEvent<T> {
  return objectEvent('ADDED', object);
}

/**
 * A MODIFIED event for `object`, with its resourceVersion.
 *
 * @example
 * m.cold('m|', { m: modified(pod('a', '6')) });
 */
export function modified<T extends KubernetesObject>(object: T): WatchObjectEvent<T> {
  return objectEvent('MODIFIED', object);
}

/**
 * A DELETED event for `object`, with its resourceVersion.
 *
 * @example
 * m.cold('d|', { d: deleted(pod('a', '7')) });
 */
export function deleted<T extends KubernetesObject>(object: T): WatchObjectEvent<T> {
  return objectEvent('DELETED', object);
}

/**
 * A BOOKMARK at `resourceVersion`; with `initialEventsEnd` it carries the
 * `k8s.io/initial-events-end` annotation that ends the initial events of a watch-list.
 *
 * @example
 * m.cold('b|', { b: bookmark('9') });
 * m.cold('e|', { e: bookmark('9', { initialEventsEnd: true }) });
 */
export function bookmark<T = KubernetesObject>(
  resourceVersion: string,
  { initialEventsEnd = false, kind = 'Pod', apiVersion = 'v1' } = {},
): WatchObjectEvent<T> {
  const plain = { kind, apiVersion, metadata: { resourceVersion } } as T;
  const object = initialEventsEnd ? initialEventsEndObject(plain, resourceVersion) : plain;
  return { type: 'BOOKMARK', object, resourceVersion };
}

/**
 * An in-stream ERROR event as the API server sends it for an HTTP/Status `code`.
 *
 * @example
 * m.cold('x|', { x: errorEvent(500, 'InternalError', 'etcd is unhappy') });
 */
// The type parameter only lets a test say which object type the stream carries.
export function errorEvent<_T = KubernetesObject>(
  statusCode: number,
  reason?: string,
  message = reason ?? `status ${statusCode}`,
  {
    resourcePath = '/api/v1/pods',
    retryAfterSeconds,
  }: { resourcePath?: string; retryAfterSeconds?: number } = {},
): WatchErrorEvent {
  const status = {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message,
    reason,
    code: statusCode,
  };
  return {
    type: 'ERROR',
    error: watchError(statusCode, message, { reason, retryAfterSeconds, resourcePath, status }),
  };
}

/**
 * The `410 Gone` ERROR event the API server sends when the requested resourceVersion is too old.
 *
 * @example
 * m.cold('a-x', { a: added(pod('a', '5')), x: expired() });
 */
// The type parameter only lets a test say which object type the stream carries.
export function expired<_T = KubernetesObject>(
  message = 'too old resource version: 1 (8146471)',
): WatchErrorEvent {
  return errorEvent(410, 'Expired', message);
}

/**
 * A {@link WatchError} for an HTTP/Status code (0 for a network failure).
 *
 * @example
 * m.cold('#', undefined, watchError(503, 'unavailable', { retryAfterSeconds: 2 }));
 */
export function watchError(
  statusCode: number,
  message = `status ${statusCode}`,
  extra: {
    reason?: string;
    retryAfterSeconds?: number;
    resourcePath?: string;
    status?: object;
    errorType?: WatchError['errorType'];
  } = {},
): WatchError {
  const { resourcePath = '/api/v1/pods', errorType = errorTypeFor(statusCode), ...rest } = extra;
  return new WatchError(message, {
    errorType,
    statusCode,
    resourcePath,
    ...definedOptions(rest),
  });
}

/**
 * A list result, as `fromList` emits it.
 *
 * @example
 * m.cold('(l|)', { l: listOf([pod('a', '3'), pod('b', '4')], '4') });
 */
export function listOf<T>(items: T[], resourceVersion: string): ListResult<T> {
  return { items, resourceVersion };
}
