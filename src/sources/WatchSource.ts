import { Observable } from 'rxjs';
import { definedOptions } from '../objects/definedOptions.js';
import type {
  Cluster,
  KubernetesObject,
  ListOptions,
  ListResult,
  ResourceRef,
  WatchEvent,
  WatchOptions,
} from '../types.js';

/**
 * A cold watch: an `Observable<WatchEvent<T>>` that also knows its request, so operators such
 * as `resumeFromResourceVersion` can reconnect with other options and list the same resource.
 * Each subscription is one connection.
 *
 * @example
 * const source = fromWatch(kc, pods, { namespace: 'default' });
 * source.withOptions({ resourceVersion: '1234' }).subscribe((e) => console.log(e.type));
 * source.list().subscribe(({ items }) => console.log(items.length));
 */
export interface WatchSource<T = KubernetesObject> extends Observable<WatchEvent<T>> {
  /** The cluster every connection goes to. */
  readonly cluster: Cluster;
  /** The resource it watches. */
  readonly resource: ResourceRef<T>;
  /** The options of each connection (only the keys that are set). */
  readonly options: Readonly<WatchOptions>;
  /** A new cold source whose options are these options with `patch` applied (`undefined` unsets). */
  withOptions(patch: Partial<WatchOptions>): WatchSource<T>;
  /**
   * Lists the same resource (namespace, selectors, `logger`, `limit` and `transform` from this
   * source's options unless overridden).
   */
  list(options?: Partial<ListOptions>): Observable<ListResult<T>>;
}

/** What {@link createWatchSource} builds a {@link WatchSource} from. */
export interface WatchSourceInit<T> {
  /** The cluster the source reports as {@link WatchSource.cluster}. */
  cluster: Cluster;
  /** The resource the source reports as {@link WatchSource.resource}. */
  resource: ResourceRef<T>;
  /** The options a subscription connects with (the source's {@link WatchSource.options}). */
  options: WatchOptions;
  /** Opens one connection with these options. */
  connect(options: WatchOptions): Observable<WatchEvent<T>>;
  /** Lists the resource. */
  list(options: ListOptions): Observable<ListResult<T>>;
}

/**
 * Builds a {@link WatchSource} from a connect function and a list function. Operators that map a
 * source to a source (such as `withBookmarks`) and test doubles are built with it.
 *
 * @example
 * const withLogging = <T>(source: WatchSource<T>) =>
 *   createWatchSource({
 *     ...sourceInit(source),
 *     connect: (options) => source.withOptions(options).pipe(tap((e) => console.log(e.type))),
 *   });
 */
export function createWatchSource<T>(init: WatchSourceInit<T>): WatchSource<T> {
  return new ConfiguredWatchSource(init);
}

/**
 * The parts of an existing source, to derive another from it with {@link createWatchSource}:
 * its connect opens the source with the given options, its list lists through the source.
 *
 * @example
 * createWatchSource({ ...sourceInit(source), options: { ...source.options, allowWatchBookmarks: true } });
 */
export function sourceInit<T>(source: WatchSource<T>): WatchSourceInit<T> {
  return {
    cluster: source.cluster,
    resource: source.resource,
    options: { ...source.options },
    connect: (options) => source.withOptions(replaceAll(source.options, options)),
    list: (options) => source.list(options),
  };
}

/** The patch that turns `current` into exactly `next`. */
function replaceAll(current: WatchOptions, next: WatchOptions): Partial<WatchOptions> {
  const patch: Record<string, unknown> = { ...next };
  for (const key of Object.keys(current)) if (!(key in patch)) patch[key] = undefined;
  return patch as Partial<WatchOptions>;
}

class ConfiguredWatchSource<T> extends Observable<WatchEvent<T>> implements WatchSource<T> {
  readonly cluster: Cluster;
  readonly resource: ResourceRef<T>;
  readonly options: Readonly<WatchOptions>;

  private readonly init: WatchSourceInit<T>;

  constructor(init: WatchSourceInit<T>) {
    const options = Object.freeze(definedOptions(init.options));
    super((subscriber) => init.connect(options).subscribe(subscriber));
    this.init = init;
    this.cluster = init.cluster;
    this.resource = init.resource;
    this.options = options;
  }

  withOptions(patch: Partial<WatchOptions>): WatchSource<T> {
    return new ConfiguredWatchSource({ ...this.init, options: { ...this.options, ...patch } });
  }

  list(options: Partial<ListOptions> = {}): Observable<ListResult<T>> {
    const { namespace, labelSelector, fieldSelector, logger, limit, transform } = this.options;
    return this.init.list(
      definedOptions({
        namespace,
        labelSelector,
        fieldSelector,
        logger,
        limit,
        transform,
        ...options,
      }),
    );
  }
}
