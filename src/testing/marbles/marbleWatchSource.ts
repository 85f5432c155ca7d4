import type { Observable } from 'rxjs';
import { NEVER, defer } from 'rxjs';
import { pods } from '../../objects/resources.js';
import { createWatchSource, type WatchSource } from '../../index.js';
import type {
  ClusterConnection,
  KubernetesObject,
  ListOptions,
  ListResult,
  ResourceRef,
  WatchEvent,
  WatchOptions,
} from '../../types.js';

/** What one connection of a {@link marbleWatchSource} sees: a cold observable, or a function of its options. */
export type MarbleConnection<T> =
  Observable<WatchEvent<T>> | ((options: WatchOptions, index: number) => Observable<WatchEvent<T>>);
/** What one list of a {@link marbleWatchSource} answers: a cold observable, or a function of its options. */
export type MarbleListAnswer<T> =
  Observable<ListResult<T>> | ((options: ListOptions, index: number) => Observable<ListResult<T>>);

/** Configuration of {@link marbleWatchSource}. */
export interface MarbleWatchSourceConfig<T> {
  /** What successive connections see, in order; the n-th subscription gets the n-th. */
  connections?: MarbleConnection<T>[];
  /** What successive lists answer, in order. */
  lists?: MarbleListAnswer<T>[];
  /** Options of the source (as `fromWatch(..., options)` would have them). */
  options?: WatchOptions;
  /** The resource the source names (default pods). */
  resource?: ResourceRef<T>;
  /** What a connection past the last given one sees (default `NEVER`: an idle watch). */
  afterLast?: MarbleConnection<T>;
}

/** A {@link WatchSource} driven by marbles, with a record of what was asked of it. */
export interface MarbleWatchSource<T> extends WatchSource<T> {
  /** The options each connection was opened with, in order. */
  readonly connections: WatchOptions[];
  /** The options each list was made with, in order. */
  readonly lists: ListOptions[];
}

const marbleCluster: ClusterConnection = {
  name: 'marbles',
  resolve: () => Promise.reject(new Error('a marble WatchSource makes no requests')),
};

/**
 * A `WatchSource` whose successive connections are successive cold observables given by the
 * test, and whose lists are given the same way, so a pipeline built on `fromWatch` (resume
 * included) runs in virtual time. It records the options of every connection and list.
 *
 * @example
 * it('resumes from the last version', marbles((m) => {
 *   const source = marbleWatchSource({
 *     connections: [m.cold('a|', { a: modified(pod('a', '7')) }), m.cold('-')],
 *     options: { resourceVersion: '5' },
 *   });
 *   m.expect(source.pipe(resumeFromResourceVersion({ initialState: 'none', scheduler: m.scheduler }))).toBeObservable('a-', {
 *     a: modified(pod('a', '7')),
 *   });
 *   m.flush();
 *   expect(source.connections[1].resourceVersion).toBe('7');
 * }));
 */
export function marbleWatchSource<T = KubernetesObject>(
  config: MarbleWatchSourceConfig<T> = {},
): MarbleWatchSource<T> {
  const {
    connections = [],
    lists = [],
    options = {},
    resource = pods as ResourceRef<T>,
    afterLast = NEVER,
  } = config;
  const connectionLog: WatchOptions[] = [];
  const listLog: ListOptions[] = [];
  const source = createWatchSource<T>({
    cluster: marbleCluster,
    resource,
    options,
    connect: (opts) =>
      defer(() => {
        const index = connectionLog.push({ ...opts }) - 1;
        return answer(connections[index] ?? afterLast, opts, index);
      }),
    list: (opts) =>
      defer(() => {
        const index = listLog.push({ ...opts }) - 1;
        const given = lists[index];
        if (!given)
          throw new Error(
            `marbleWatchSource: list #${index + 1} was asked for but only ${lists.length} given`,
          );
        return answer(given, opts, index);
      }),
  });
  return Object.assign(source, { connections: connectionLog, lists: listLog });
}

function answer<R, O>(
  given: Observable<R> | ((options: O, index: number) => Observable<R>),
  options: O,
  index: number,
): Observable<R> {
  return typeof given === 'function' ? given(options, index) : given;
}
