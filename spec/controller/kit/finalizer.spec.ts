import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import type { V1ConfigMap } from '@kubernetes/client-node';
import { resourceApi } from '../../../src/client/write/resourceApi.js';
import { finalizer, type FinalizerContext } from '../../../src/controller/kit/finalizer.js';
import { configmaps } from '../../../src/objects/resources.js';
import { FakeKubeApiServer } from '../../../src/testing/index.js';
import { isConflict, WatchError } from '../../../src/WatchError.js';

const NAME = 'example.com/cleanup';

describe('finalizer', () => {
  let server: FakeKubeApiServer;
  let ctx: FinalizerContext;
  let calls: string[];
  const handlers = {
    apply: async (cm: V1ConfigMap) => {
      calls.push(`apply ${cm.metadata?.finalizers?.join(',')}`);
    },
    cleanup: async (cm: V1ConfigMap) => {
      calls.push(`cleanup ${cm.metadata?.name}`);
    },
  };
  const read = () => server.get(configmaps, 'shop', 'site');
  beforeEach(async () => {
    server = await FakeKubeApiServer.start();
    ctx = {
      resource: configmaps,
      signal: new AbortController().signal,
      api: (resource) => resourceApi(server.kubeConfig(), resource),
    };
    calls = [];
  });
  afterEach(() => server.stop());

  it('adds itself before apply ever runs, keeping the finalizers others put there', async () => {
    server.create(configmaps, { metadata: { name: 'site', namespace: 'shop' } });
    await finalizer(ctx, read(), NAME, handlers);
    expect(read()?.metadata?.finalizers).toEqual([NAME]);
    expect(calls).toEqual([`apply ${NAME}`]); // apply saw the object with the finalizer
    await finalizer(ctx, read(), NAME, handlers); // present: apply only, no write
    expect(calls).toEqual([`apply ${NAME}`, `apply ${NAME}`]);
    const other = { metadata: { name: 'other', namespace: 'shop', finalizers: ['a.io/x'] } };
    server.create(configmaps, other);
    await finalizer(ctx, server.get(configmaps, 'shop', 'other'), NAME, handlers);
    expect(server.get(configmaps, 'shop', 'other')?.metadata?.finalizers).toEqual(['a.io/x', NAME]);
  });

  it('on deletion runs cleanup, then removes itself, and the object goes', async () => {
    server.create(configmaps, { metadata: { name: 'site', namespace: 'shop' } });
    await finalizer(ctx, read(), NAME, handlers);
    await resourceApi(server.kubeConfig(), configmaps).delete('site', { namespace: 'shop' });
    expect(read()?.metadata?.deletionTimestamp).toBeDefined(); // held by the finalizer
    await finalizer(ctx, read(), NAME, handlers);
    expect(calls.at(-1)).toBe('cleanup site');
    expect(read()).toBeUndefined();
    // gone: nothing to do
    await finalizer(ctx, undefined, NAME, handlers);
    expect(calls).toHaveLength(2);
  });

  it('keeps the finalizer and the object when cleanup fails, so the run backs off and retries', async () => {
    server.create(configmaps, { metadata: { name: 'site', namespace: 'shop' } });
    await finalizer(ctx, read(), NAME, handlers);
    await resourceApi(server.kubeConfig(), configmaps).delete('site', { namespace: 'shop' });
    const failing = { ...handlers, cleanup: () => Promise.reject(new Error('cloud API down')) };
    await expect(finalizer(ctx, read(), NAME, failing)).rejects.toThrow('cloud API down');
    expect(read()?.metadata?.finalizers).toEqual([NAME]);
    await finalizer(ctx, read(), NAME, handlers);
    expect(read()).toBeUndefined();
  });

  it('needs no cleanup for an object deleted before it ever got the finalizer', async () => {
    server.create(configmaps, {
      metadata: { name: 'site', namespace: 'shop', finalizers: ['a.io/other'] },
    });
    await resourceApi(server.kubeConfig(), configmaps).delete('site', { namespace: 'shop' });
    await finalizer(ctx, read(), NAME, handlers);
    expect(calls).toEqual([]);
    expect(read()?.metadata?.finalizers).toEqual(['a.io/other']); // not ours to touch
  });

  it('makes a concurrent change of the list a conflict, never an overwrite', async () => {
    server.create(configmaps, { metadata: { name: 'site', namespace: 'shop' } });
    const stale = read();
    // someone else adds theirs after our read
    server.update(configmaps, {
      ...stale!,
      metadata: { ...stale!.metadata, finalizers: ['b.io/y'] },
    });
    const error = await finalizer(ctx, stale, NAME, handlers).catch((e) => e);
    expect(error).toBeInstanceOf(WatchError);
    expect(isConflict(error)).toBe(true);
    expect(read()?.metadata?.finalizers).toEqual(['b.io/y']);
    expect(calls).toEqual([]); // apply never ran without the finalizer
    // the retry on fresh state adds it beside the other
    await finalizer(ctx, read(), NAME, handlers);
    expect(read()?.metadata?.finalizers).toEqual(['b.io/y', NAME]);
  });

  it('refuses an invalid name or missing handlers at call time', async () => {
    await expect(finalizer(ctx, read(), 'Not A Name', handlers)).rejects.toThrow(TypeError);
    await expect(finalizer(ctx, read(), NAME, {} as never)).rejects.toThrow(/apply and cleanup/);
  });
});
