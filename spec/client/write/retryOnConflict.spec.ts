import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { V1ConfigMap } from '@kubernetes/client-node';
import { resourceApi } from '../../../src/client/write/resourceApi.js';
import { retryOnConflict } from '../../../src/client/write/retryOnConflict.js';
import { WatchError } from '../../../src/WatchError.js';
import { configmaps } from '../../../src/objects/resources.js';
import { FakeKubeApiServer } from '../../../src/testing/fakeKubeApiServer/FakeKubeApiServer.js';

const status = (code: number, reason: string) =>
  WatchError.fromStatus({ code, reason, message: reason }, '/api/v1/namespaces/a/configmaps/b');

/** A function that rejects with each of `failures` in turn, then resolves with 'ok'. */
function failing(...failures: unknown[]) {
  const attempts: number[] = [];
  const fn = async (attempt: number) => {
    attempts.push(attempt);
    if (failures.length > 0) throw failures.shift();
    return 'ok';
  };
  return { fn, attempts };
}

describe('retryOnConflict', () => {
  it('re-runs fn while it conflicts, with client-go DefaultRetry waits (about 10 ms)', async () => {
    const { fn, attempts } = failing(status(409, 'Conflict'), status(409, 'Conflict'));
    const started = Date.now();
    await expect(retryOnConflict(fn)).resolves.toBe('ok');
    expect(attempts).toEqual([1, 2, 3]);
    const took = Date.now() - started;
    expect(took).toBeGreaterThanOrEqual(18); // two waits of 10 to 11 ms
    expect(took).toBeLessThan(1000);
  });

  it('gives up after `attempts` with the last conflict', async () => {
    const conflicts = [1, 2, 3, 4, 5, 6].map(() => status(409, 'Conflict'));
    const { fn, attempts } = failing(...conflicts);
    await expect(retryOnConflict(fn)).rejects.toBe(conflicts[4]);
    expect(attempts).toEqual([1, 2, 3, 4, 5]);
    const two = failing(status(409, 'Conflict'), status(409, 'Conflict'));
    await expect(
      retryOnConflict(two.fn, { attempts: 2, backoff: { initialMs: 0 } }),
    ).rejects.toMatchObject({ reason: 'Conflict' });
    expect(two.attempts).toEqual([1, 2]);
  });

  it('passes AlreadyExists and every other failure through at once', async () => {
    for (const error of [
      status(409, 'AlreadyExists'),
      status(422, 'Invalid'),
      status(500, 'InternalError'),
      new Error('boom'),
    ]) {
      const { fn, attempts } = failing(error);
      await expect(retryOnConflict(fn)).rejects.toBe(error);
      expect(attempts).toEqual([1]);
    }
  });

  it('waits as the backoff says; an abort ends the waiting with the last conflict', async () => {
    const { fn, attempts } = failing(status(409, 'Conflict'), status(409, 'Conflict'));
    const started = Date.now();
    await retryOnConflict(fn, { backoff: { initialMs: 40, factor: 2, jitter: 0 } });
    expect(Date.now() - started).toBeGreaterThanOrEqual(115); // 40 + 80
    expect(attempts).toEqual([1, 2, 3]);
    const controller = new AbortController();
    const slow = failing(status(409, 'Conflict'), status(409, 'Conflict'));
    const pending = retryOnConflict(slow.fn, {
      backoff: { initialMs: 10_000 },
      signal: controller.signal,
    });
    setTimeout(() => controller.abort(), 20);
    await expect(pending).rejects.toMatchObject({ reason: 'Conflict' });
    expect(slow.attempts).toEqual([1]);
    await expect(retryOnConflict(async () => 1, { attempts: 0 })).rejects.toThrow(RangeError);
  });

  describe('against the test server', () => {
    let server: FakeKubeApiServer;
    beforeAll(async () => {
      server = await FakeKubeApiServer.start({ bookmarkIntervalMs: 0 });
    });
    afterAll(() => server.stop());

    it('two writers incrementing one counter with read-modify-replace both land', async () => {
      const api = resourceApi(server.kubeConfig(), configmaps);
      await api.create({ metadata: { name: 'counter', namespace: 'ns' }, data: { n: '0' } });
      const increment = () =>
        retryOnConflict(async () => {
          const cm: V1ConfigMap = await api.get('counter', { namespace: 'ns' });
          // Both read before either writes: one of them is stale.
          await new Promise((resolve) => setTimeout(resolve, 5));
          return api.replace({ ...cm, data: { n: String(Number(cm.data!.n) + 1) } });
        });
      await Promise.all([increment(), increment(), increment()]);
      expect(server.get(configmaps, 'ns', 'counter')?.data).toEqual({ n: '3' });
      expect(
        server.requests.filter((r) => r.method === 'PUT' && r.status === 409).length,
      ).toBeGreaterThan(0);
    });
  });
});
