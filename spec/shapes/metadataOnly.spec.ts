import { afterEach, describe, expect, it } from '@jest/globals';
import { filter, firstValueFrom, lastValueFrom, take, toArray } from 'rxjs';
import {
  fromList,
  fromWatch,
  mergeWatches,
  pods,
  deployments,
  resilientWatch,
  skipBookmarks,
  toStore,
  watchResource,
  type V1PartialObjectMetadata,
  type WatchEvent,
} from '../../src/index.js';
import { metadataOnly } from '../../src/shapes/metadataOnly.js';
import type { RawServer } from '../support/rawServer.js';
import { partialPod, startMetadataServer } from './metadataServer.js';

const LIST_ACCEPT =
  'application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json';
const WATCH_ACCEPT =
  'application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1,application/json';

describe('metadataOnly', () => {
  let server: RawServer | undefined;
  afterEach(() => server?.stop());

  it('is the same resource with shape metadata, and leaves the original alone', () => {
    const ref = metadataOnly(pods);
    expect(ref).toEqual({
      group: '',
      version: 'v1',
      plural: 'pods',
      kind: 'Pod',
      shape: 'metadata',
    });
    expect(pods.shape).toBeUndefined();
    expect(Object.isFrozen(ref)).toBe(true);
  });

  describe.each([
    ['a server that honours the Accept header', true],
    ['a server that ignores it (full objects)', false],
  ])('against %s', (_name, honour) => {
    it('lists with the PartialObjectMetadataList Accept header, paged, metadata only', async () => {
      server = await startMetadataServer(5, honour);
      const result = await firstValueFrom(
        fromList(server.kubeConfig(), metadataOnly(pods), { limit: 2 }),
      );
      expect(result.resourceVersion).toBe('100');
      expect(result.items).toEqual([0, 1, 2, 3, 4].map((i) => partialPod(i, String(i + 1))));
      expect(server.requests.map((r) => r.headers.accept)).toEqual([
        LIST_ACCEPT,
        LIST_ACCEPT,
        LIST_ACCEPT,
      ]);
      expect(server.requests.map((r) => r.query.get('limit'))).toEqual(['2', '2', '2']);
      // Equal managedFields field sets, across pages, are one frozen object.
      const fieldSets = new Set(result.items.map((p) => p.metadata.managedFields![0].fieldsV1));
      expect(fieldSets.size).toBe(1);
      expect(Object.isFrozen([...fieldSets][0])).toBe(true);
    });

    it('watches with the PartialObjectMetadata Accept header and yields metadata only', async () => {
      server = await startMetadataServer(2, honour);
      const events = await firstValueFrom(
        fromWatch(server.kubeConfig(), metadataOnly(pods), {
          sendInitialEvents: true,
          resourceVersionMatch: 'NotOlderThan',
          allowWatchBookmarks: true,
        }).pipe(take(3), toArray()),
      );
      expect(events.slice(0, 2)).toEqual([
        { type: 'ADDED', object: partialPod(0, '1'), resourceVersion: '1' },
        { type: 'ADDED', object: partialPod(1, '2'), resourceVersion: '2' },
      ]);
      // A bookmark is passed as the server sent it: only its resourceVersion means anything.
      expect(events[2]).toMatchObject({ type: 'BOOKMARK', resourceVersion: '100' });
      expect(server.requests[0].headers.accept).toBe(WATCH_ACCEPT);
      const fieldSet = (i: number) =>
        (events[i] as { object: V1PartialObjectMetadata }).object.metadata.managedFields![0]
          .fieldsV1;
      expect(fieldSet(1)).toBe(fieldSet(0));
    });

    it('watchResource sends the same header and yields the same objects', async () => {
      server = await startMetadataServer(1, honour);
      const controller = new AbortController();
      const seen: WatchEvent<V1PartialObjectMetadata>[] = [];
      for await (const event of watchResource(server.kubeConfig(), metadataOnly(pods), {
        resourceVersion: '100',
        signal: controller.signal,
      })) {
        seen.push(event);
        controller.abort();
      }
      expect(seen).toEqual([
        { type: 'MODIFIED', object: partialPod(0, '101'), resourceVersion: '101' },
      ]);
      expect(server.requests[0].headers.accept).toBe(WATCH_ACCEPT);
    });

    it.each(['list', 'watch-list'] as const)(
      'resilientWatch + toStore (%s) keeps metadata only, then applies a change',
      async (initialState) => {
        server = await startMetadataServer(3, honour);
        const store = await firstValueFrom(
          resilientWatch(server.kubeConfig(), metadataOnly(pods), {}, { initialState }).pipe(
            toStore(),
            filter(
              (s) => s.synced && s.get('default', 'pod-0')?.metadata.resourceVersion === '101',
            ),
          ),
        );
        expect([...store.values()]).toEqual([
          partialPod(0, '101'),
          partialPod(1, '2'),
          partialPod(2, '3'),
        ]);
        const accepts = server.requests.map((r) => r.headers.accept);
        expect(accepts).toContain(WATCH_ACCEPT);
        expect(accepts.includes(LIST_ACCEPT)).toBe(initialState === 'list');
        expect(accepts.every((a) => a === WATCH_ACCEPT || a === LIST_ACCEPT)).toBe(true);
      },
    );
  });

  it('mergeWatches and the store are typed by shape', async () => {
    server = await startMetadataServer(1, true);
    const kc = server.kubeConfig();
    const merged = mergeWatches({
      pods: fromWatch(kc, metadataOnly(pods), { resourceVersion: '100' }),
      deployments: fromWatch(kc, deployments, { resourceVersion: '100' }),
    });
    const first = await firstValueFrom(merged.pipe(skipBookmarks(), take(2), toArray()));
    const podEvent = first.find((e) => e.source === 'pods');
    if (podEvent?.source === 'pods' && podEvent.type !== 'ERROR') {
      // Compile-time: the pods source carries V1PartialObjectMetadata, whose metadata is required.
      const meta: V1PartialObjectMetadata = podEvent.object;
      expect(meta).toEqual(partialPod(0, '101'));
    } else throw new Error('no pod event');
    const store = await lastValueFrom(
      fromWatch(kc, metadataOnly(pods), { resourceVersion: '100' }).pipe(take(1), toStore()),
    );
    const cached: V1PartialObjectMetadata | undefined = store.get('default', 'pod-0');
    expect(cached?.kind).toBe('PartialObjectMetadata');
  });
});
