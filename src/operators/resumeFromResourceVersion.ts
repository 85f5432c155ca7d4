import { Observable, asyncScheduler } from 'rxjs';
import { definedOptions } from '../objects/definedOptions.js';
import type { KubernetesObject, WatchEvent } from '../types.js';
import { defaultKey } from '../objects/defaultKey.js';
import { requireWatchSource } from '../sources/requireWatchSource.js';
import { Resumer, type ResumerSettings } from './resume/Resumer.js';
import type { ResumeConfig } from './resume/ResumeConfig.js';

export type {
  BackoffEvent,
  ConnectedEvent,
  ConnectingEvent,
  DisconnectedEvent,
  ExpiredEvent,
  LifecycleEvent,
  RelistEndEvent,
  RelistStartEvent,
} from './resume/LifecycleEvent.js';
export type { ResumeConfig } from './resume/ResumeConfig.js';

/**
 * Turns a watch into an endless, gap-free stream with client-go Reflector semantics: it follows
 * the resourceVersion of every event (bookmarks included), reconnects from it when the server
 * closes the watch, backs off with full jitter on failures (800 ms doubling to 30 s, reset after
 * 2 minutes up, never below Retry-After), relists after `410 Gone` emitting only the difference
 * (deletions first, keys from `config.key`), drops exact repeats, and never lets an ERROR event through. 400, 403, 404 and a second 401 in
 * a row error the stream with the WatchError, as do `maxRetries` consecutive failures.
 *
 * ```
 * list:       (l|)            l = [a@3, b@4] at 4
 * watch #1:      -m--|        m = a@6           (server closes: reconnect from 6 at once)
 * watch #2:          --x      x = ERROR 410     (relist: b vanished, a unchanged)
 * list:                (l|)   l = [a@6, c@8] at 9
 * output:     (abe)-m-----(dce)
 *             a b = ADDED, e = end BOOKMARK, m = MODIFIED a@6, d = DELETED b@4, c = ADDED c@8
 * ```
 *
 * @example
 * fromWatch(kc, pods)
 *   .pipe(
 *     withBookmarks(),
 *     resumeFromResourceVersion({ onLifecycle: (e) => console.error('watch', e.type) }),
 *     toStore(),
 *   )
 *   .subscribe((store) => render(store.values()));
 */
export function resumeFromResourceVersion<T = KubernetesObject>(
  config: ResumeConfig<NoInfer<T>> = {},
): (source: Observable<WatchEvent<T>>) => Observable<WatchEvent<T>> {
  const settings: ResumerSettings<T> = {
    key: defaultKey,
    initialState: 'list',
    onExpired: 'relist',
    maxRetries: Infinity,
    onRefused: 'error',
    onLifecycle: () => {},
    scheduler: asyncScheduler,
    random: Math.random,
    ...definedOptions(config),
  };
  return (input) => {
    const source = requireWatchSource(input, 'resumeFromResourceVersion');
    return new Observable<WatchEvent<T>>((subscriber) =>
      new Resumer(source, settings, subscriber).start(),
    );
  };
}
