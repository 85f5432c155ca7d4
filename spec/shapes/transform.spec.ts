import { afterEach, describe, expect, it } from '@jest/globals';
import type { V1Pod } from '@kubernetes/client-node';
import { firstValueFrom, lastValueFrom, toArray } from 'rxjs';
import {
  fromList,
  fromWatch,
  metadataOnly,
  pods,
  resilientWatch,
  toStore,
  WatchError,
  type KubernetesObject,
  type V1PartialObjectMetadata,
} from '../../src/index.js';
import { stripManagedFields } from '../../src/shapes/stripManagedFields.js';
import { FakeKubeApiServer } from '../../src/testing/index.js';
import { pod } from '../../src/testing/marbles/builders.js';
import { line, RawServer, streamChunks } from '../support/rawServer.js';
import { until } from '../support/wait.js';
import { fullPod, startMetadataServer } from './metadataServer.js';

const managed = [{ manager: 'kubectl', operation: 'Apply', fieldsV1: { 'f:spec': {} } }];

/** A transform that records the name of every object it is given and marks what it returns. */
function recordingTransform() {
  const seen: string[] = [];
  const transform = (object: KubernetesObject) => {
    seen.push(`${object.kind}/${object.metadata?.name}`);
    return { ...object, transformed: true };
  };
  return { seen, transform };
}

describe('WatchOptions.transform', () => {
  let raw: RawServer | undefined;
  let fake: FakeKubeApiServer | undefined;
  afterEach(async () => {
    await raw?.stop();
    await fake?.stop();
    raw = fake = undefined;
  });

  it('runs once per ADDED, MODIFIED and DELETED object, in order, never on BOOKMARK or ERROR', async () => {
    raw = await RawServer.start(
      streamChunks([
        line('ADDED', fullPod(1, '11')),
        line('BOOKMARK', { kind: 'Pod', apiVersion: 'v1', metadata: { resourceVersion: '12' } }),
        line('MODIFIED', fullPod(1, '13')),
        line('ERROR', { kind: 'Status', code: 500, message: 'hiccup' }),
        line('DELETED', fullPod(2, '14')),
      ]),
    );
    const { seen, transform } = recordingTransform();
    const events = await lastValueFrom(
      fromWatch(raw.kubeConfig(), pods, { transform }).pipe(toArray()),
    );
    expect(seen).toEqual(['Pod/pod-1', 'Pod/pod-1', 'Pod/pod-2']);
    expect(events.map((e) => e.type)).toEqual([
      'ADDED',
      'BOOKMARK',
      'MODIFIED',
      'ERROR',
      'DELETED',
    ]);
    const objects = events.map((e) => (e.type === 'ERROR' ? undefined : e.object));
    expect(objects.map((o) => (o as { transformed?: boolean })?.transformed)).toEqual([
      true,
      undefined,
      true,
      undefined,
      true,
    ]);
    // The cursor is the server's, whatever the transform did to the metadata.
    expect(events.map((e) => (e.type === 'ERROR' ? '-' : e.resourceVersion))).toEqual([
      '11',
      '12',
      '13',
      '-',
      '14',
    ]);
  });

  it('stripManagedFields removes managedFields as the objects are decoded, and nothing else', async () => {
    raw = await RawServer.start(streamChunks([line('ADDED', fullPod(1, '11'))]));
    const [event] = await lastValueFrom(
      fromWatch(raw.kubeConfig(), pods, { transform: stripManagedFields }).pipe(toArray()),
    );
    const expected = fullPod(1, '11') as unknown as V1Pod;
    delete expected.metadata?.managedFields;
    expect(event).toEqual({ type: 'ADDED', object: expected, resourceVersion: '11' });
    expect(stripManagedFields({ kind: 'Status' })).toEqual({ kind: 'Status' });
  });

  it('a throwing transform makes its line unreadable: logged and skipped, the rest goes on', async () => {
    raw = await RawServer.start(
      streamChunks([line('ADDED', fullPod(1, '11')), line('ADDED', fullPod(2, '12'))]),
    );
    const warnings: string[] = [];
    const events = await lastValueFrom(
      fromWatch(raw.kubeConfig(), pods, {
        logger: { warn: (m) => warnings.push(m) },
        transform: (object: KubernetesObject) => {
          if (object.metadata?.name === 'pod-1') throw new Error('no pod-1 please');
          return object;
        },
      }).pipe(toArray()),
    );
    expect(events.map((e) => e.type !== 'ERROR' && e.object.metadata?.name)).toEqual(['pod-2']);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain('the transform threw: no pod-1 please');
  });

  it('with strict, a throwing transform is a PARSE_ERROR that ends the watch', async () => {
    raw = await RawServer.start(
      streamChunks([line('ADDED', fullPod(1, '11')), line('ADDED', fullPod(2, '12'))]),
    );
    const events = await lastValueFrom(
      fromWatch(raw.kubeConfig(), pods, {
        strict: true,
        transform: () => {
          throw new Error('broken');
        },
      }).pipe(toArray()),
    );
    expect(events).toHaveLength(1);
    expect(events[0].type === 'ERROR' && events[0].error.errorType).toBe('PARSE_ERROR');
    expect(events[0].type === 'ERROR' && events[0].error.message).toContain(
      'the transform threw: broken',
    );
  });

  it('a transform that is not a function is a BAD_REQUEST, with no request sent', async () => {
    raw = await RawServer.start();
    const transform = 'strip' as unknown as () => unknown;
    const [event] = await lastValueFrom(
      fromWatch(raw.kubeConfig(), pods, { transform }).pipe(toArray()),
    );
    expect(event.type === 'ERROR' && event.error.errorType).toBe('BAD_REQUEST');
    await expect(firstValueFrom(fromList(raw.kubeConfig(), pods, { transform }))).rejects.toThrow(
      'transform must be a function',
    );
    expect(raw.requests).toHaveLength(0);
  });

  it('runs once per list item across pages, in order; one that throws fails the list (PARSE_ERROR)', async () => {
    raw = await startMetadataServer(5, false);
    const { seen, transform } = recordingTransform();
    const result = await firstValueFrom(fromList(raw.kubeConfig(), pods, { limit: 2, transform }));
    expect(seen).toEqual([0, 1, 2, 3, 4].map((i) => `Pod/pod-${i}`));
    expect(result.items.every((item) => (item as { transformed?: boolean }).transformed)).toBe(
      true,
    );
    const failed = await firstValueFrom(
      fromList(raw.kubeConfig(), pods, {
        transform: () => {
          throw new Error('nope');
        },
      }),
    ).catch((error: unknown) => error);
    expect(failed).toBeInstanceOf(WatchError);
    expect((failed as WatchError).errorType).toBe('PARSE_ERROR');
  });

  it('metadataOnly then transform: the transform sees the PartialObjectMetadata', async () => {
    raw = await startMetadataServer(1, false);
    const { seen, transform } = recordingTransform();
    await firstValueFrom(fromList(raw.kubeConfig(), metadataOnly(pods), { transform }));
    expect(seen).toEqual(['PartialObjectMetadata/pod-0']);
  });

  it('metadataOnly shares field sets after the transform: the transform may still change them', async () => {
    raw = await startMetadataServer(2, true);
    const result = await firstValueFrom(
      fromList(raw.kubeConfig(), metadataOnly(pods), {
        transform: (object: V1PartialObjectMetadata) => {
          const [entry] = object.metadata.managedFields!;
          (entry.fieldsV1 as Record<string, object>)['f:seen'] = {};
          return object;
        },
      }),
    );
    const [a, b] = result.items.map((p) => p.metadata.managedFields![0].fieldsV1);
    expect(a).toEqual({ 'f:status': {}, 'f:seen': {} });
    expect(b).toBe(a);
  });

  it('in the resumed pipeline: list items, watch events and the relist after a 410 are transformed; lists page with limit and read consistently', async () => {
    fake = await FakeKubeApiServer.start({ bookmarkIntervalMs: 0 });
    for (const name of ['a', 'b', 'c'])
      fake.create(pods, pod(name, '', { metadata: { managedFields: managed } }));
    let calls = 0;
    const transform = (object: V1Pod) => (calls++, stripManagedFields(object));
    const stores: Array<{ synced: boolean; size: number; objects: V1Pod[] }> = [];
    const subscription = resilientWatch(fake.kubeConfig(), pods, { transform, limit: 2 })
      .pipe(toStore())
      .subscribe((store) =>
        stores.push({ synced: store.synced, size: store.size, objects: [...store.values()] }),
      );
    try {
      await until(() => stores.some((s) => s.synced && s.size === 3), 'the first sync');
      expect(calls).toBe(3);
      fake.create(pods, pod('d', '', { metadata: { managedFields: managed } }));
      await until(() => stores.at(-1)?.size === 4, 'd');
      expect(calls).toBe(4);

      fake.expireHistory();
      const lists = () => fake!.requests.filter((r) => !r.watch);
      await until(() => lists().length >= 4, 'the relist (2 pages)');
      await until(() => calls === 8, 'the relisted items transformed');
      for (const request of lists()) {
        expect(request.query.limit).toBe('2');
        // A consistent read: no resourceVersion (and never '0') unless asked.
        expect(request.query.resourceVersion).toBeUndefined();
      }
      for (const object of stores.at(-1)!.objects)
        expect(object.metadata?.managedFields).toBeUndefined();
    } finally {
      subscription.unsubscribe();
    }
  });

  it("lists send resourceVersion '0' only when asked", async () => {
    raw = await startMetadataServer(1, false);
    await firstValueFrom(fromList(raw.kubeConfig(), pods));
    await firstValueFrom(fromList(raw.kubeConfig(), pods, { resourceVersion: '0' }));
    await firstValueFrom(fromWatch(raw.kubeConfig(), pods, { limit: 7 }).list());
    expect(raw.requests.map((r) => r.rawQuery)).toEqual([
      'limit=500',
      'limit=500&resourceVersion=0',
      'limit=7',
    ]);
  });
});
