import { describe, expect, it } from '@jest/globals';
import type { V1Pod } from '@kubernetes/client-node';
import { of, type Observable } from 'rxjs';
import { marbles } from 'rxjs-marbles/jest';
import { createWatchSource, sourceInit } from '../../src/sources/WatchSource.js';
import { added, modified, pod } from '../../src/testing/marbles/builders.js';
import type { ListOptions, ListResult, WatchEvent, WatchOptions } from '../../src/types.js';

const pods = { group: '', version: 'v1', plural: 'pods' };
const cluster = { resolve: async () => ({ server: 'https://127.0.0.1:1' }) };

/** A source whose connections and lists record the options they were asked with. */
function recordingSource(connection: () => Observable<WatchEvent<V1Pod>>, options: WatchOptions) {
  const connects: WatchOptions[] = [];
  const lists: ListOptions[] = [];
  const source = createWatchSource<V1Pod>({
    cluster,
    resource: pods,
    options,
    connect: (asked) => {
      connects.push(asked);
      return connection();
    },
    list: (asked): Observable<ListResult<V1Pod>> => {
      lists.push(asked);
      return of({ items: [], resourceVersion: '1' });
    },
  });
  return { source, connects, lists };
}

describe('createWatchSource', () => {
  it(
    'is cold: each subscription connects once with the options that are set, and gets its events',
    marbles((m) => {
      const events = { a: added(pod('a', '1')), b: modified(pod('a', '2')) };
      const { source, connects } = recordingSource(() => m.cold('-a-b-|', events), {
        namespace: 'default',
        labelSelector: undefined,
      });
      m.expect(source).toBeObservable('-a-b-|', events);
      m.expect(source).toBeObservable('-a-b-|', events);
      m.flush();
      expect(connects).toEqual([{ namespace: 'default' }, { namespace: 'default' }]);
    }),
  );

  it('knows its request, with frozen options that hold only the keys set', () => {
    const { source } = recordingSource(() => of(), {
      namespace: 'default',
      fieldSelector: undefined,
    });
    expect(source.cluster).toBe(cluster);
    expect(source.resource).toBe(pods);
    expect(source.options).toEqual({ namespace: 'default' });
    expect(Object.isFrozen(source.options)).toBe(true);
  });

  it('withOptions patches into a new source and leaves this one alone; undefined unsets', async () => {
    const { source, connects } = recordingSource(() => of(), {
      namespace: 'default',
      labelSelector: 'app=web',
    });
    const patched = source.withOptions({ resourceVersion: '7', labelSelector: undefined });
    expect(patched.options).toEqual({ namespace: 'default', resourceVersion: '7' });
    expect(source.options).toEqual({ namespace: 'default', labelSelector: 'app=web' });
    patched.subscribe();
    expect(connects).toEqual([{ namespace: 'default', resourceVersion: '7' }]);
  });

  it('lists with its namespace, selectors, logger, limit and transform, overridable', () => {
    const logger = { warn: () => {} };
    const transform = (o: V1Pod) => o;
    const { source, lists } = recordingSource(() => of(), {
      namespace: 'default',
      labelSelector: 'app=web',
      resourceVersion: '9',
      timeoutSeconds: 60,
      logger,
      limit: 50,
      transform,
    });
    source.list().subscribe();
    source.list({ limit: 10, fieldSelector: 'spec.nodeName=n1' }).subscribe();
    // A watch's resourceVersion and timeout are no list's business.
    expect(lists).toEqual([
      { namespace: 'default', labelSelector: 'app=web', logger, limit: 50, transform },
      {
        namespace: 'default',
        labelSelector: 'app=web',
        fieldSelector: 'spec.nodeName=n1',
        logger,
        limit: 10,
        transform,
      },
    ]);
  });
});

describe('sourceInit', () => {
  it('derives a source that connects through the original with exactly the options asked', () => {
    const { source, connects, lists } = recordingSource(() => of(), {
      namespace: 'default',
      labelSelector: 'app=web',
    });
    const derived = createWatchSource({
      ...sourceInit(source),
      options: { labelSelector: 'app=web', allowWatchBookmarks: true },
    });
    derived.subscribe();
    // The namespace was the original's; the derived source's options replace them all.
    expect(connects).toEqual([{ labelSelector: 'app=web', allowWatchBookmarks: true }]);
    derived.list({ limit: 5 }).subscribe();
    expect(lists).toEqual([{ namespace: 'default', labelSelector: 'app=web', limit: 5 }]);
    expect(derived.cluster).toBe(source.cluster);
    expect(derived.resource).toBe(source.resource);
  });
});
