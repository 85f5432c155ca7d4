import { defer, merge, Subject, type Observable } from 'rxjs';
import { resilientWatch, type ResilientWatchConfig } from '../../index.js';
import type {
  Cluster,
  KubernetesObject,
  ResourceRef,
  WatchEvent,
  WatchOptions,
} from '../../types.js';

/**
 * `resilientWatch` for a command run by hand: a network failure (status 0) before the first list
 * has succeeded errors the stream at once with that failure, so a wrong address says
 * "unreachable" instead of retrying for ever. Later failures are retried as usual.
 *
 * @example
 * failFastWatch(kc, pods, { namespace: 'default' }, { onLifecycle: report }).subscribe(print);
 */
export function failFastWatch<T = KubernetesObject>(
  cluster: Cluster,
  resource: ResourceRef<T>,
  options: WatchOptions = {},
  config: ResilientWatchConfig<NoInfer<T>> = {},
): Observable<WatchEvent<T>> {
  return defer(() => {
    const unreachable = new Subject<never>();
    let listedOnce = false;
    const events = resilientWatch<T>(cluster, resource, options, {
      ...config,
      onLifecycle: (event) => {
        if (event.type === 'relist-end') listedOnce = true;
        if (!listedOnce && event.type === 'backoff' && event.error.statusCode === 0) {
          // Unsubscribes the resumer from inside its backoff: it starts no timer after that.
          unreachable.error(event.error);
          return;
        }
        config.onLifecycle?.(event);
      },
    });
    return merge(events, unreachable);
  });
}
