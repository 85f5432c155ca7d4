// The member's half of the drain handshake when its release (the PATCH clearing both labels)
// reaches the server but its answer does not reach the member: a 5xx after the write was
// committed (kube-apiserver's 504 after etcd applied it), a reset connection. The key may already
// be the next member's: its leaving the old member's store is a move, never a deletion to run.
import http from 'node:http';
import { afterEach, expect, it } from '@jest/globals';
import { HashRing } from '../../../src/controller/sharding/hashRing.js';
import { configmaps } from '../../../src/objects/resources.js';
import { FakeKubeApiServer } from '../../../src/testing/fakeKubeApiServer/FakeKubeApiServer.js';
import { bodyOf, forward, pipeAnswer } from '../../support/forward.js';
import { RawServer } from '../../support/rawServer.js';
import { sleep, until } from '../../support/wait.js';
import { DRAIN, LABEL, Ring, seed } from './ringHarness.js';

/**
 * A proxy in front of the server that forwards everything, but answers a member's release (a
 * merge patch removing both labels) with a 500 once the server has applied it; or, `hold`,
 * never answers the first release it is sent (nor forwards it), keeping its connection open:
 * an API server that accepted the request and then stalls (its queues, an etcd that hangs).
 */
async function lossyReleases(
  target: string,
  mode: 'lose' | 'hold' | 'race' = 'lose',
  race?: (path: string) => void,
): Promise<{ url: string; lost: number; held: number; close(): Promise<void> }> {
  const upstream = new URL(target);
  const agent = new http.Agent({ keepAlive: true });
  const state = { url: '', lost: 0, held: 0, close: async () => undefined as void };
  const raw = await RawServer.start(
    (req, res) =>
      void bodyOf(req).then((body) => {
        const text = body.toString();
        const release =
          req.method === 'PATCH' &&
          text.includes(`"${LABEL}":null`) &&
          text.includes(`"${DRAIN}":null`);
        if (release && mode === 'hold' && state.held === 0) {
          state.held++;
          return; // no answer, ever: only the client's own bound ends it
        }
        // 'race': something else writes the object first (the release then meets a conflict).
        if (release && mode === 'race') race?.(req.url ?? '');
        const pipe = pipeAnswer(res);
        const lose = (answer: http.IncomingMessage) => {
          if (answer.statusCode !== 200) return pipe(answer);
          answer.resume();
          answer.on('end', () => {
            state.lost++;
            res.writeHead(500, { 'content-type': 'application/json' });
            res.end(
              JSON.stringify({
                kind: 'Status',
                apiVersion: 'v1',
                status: 'Failure',
                message: 'the answer was lost after the write',
                code: 500,
              }),
            );
          });
        };
        forward(upstream, req, res, {
          body,
          agent,
          onAnswer: release && mode === 'lose' ? lose : pipe,
        });
      }),
  );
  state.url = raw.url;
  state.close = async () => {
    agent.destroy();
    await raw.stop();
  };
  return state;
}

let ring: Ring | undefined;
let fake: FakeKubeApiServer | undefined;
let proxy: Awaited<ReturnType<typeof lossyReleases>> | undefined;
afterEach(async () => {
  ring?.close();
  ring = undefined;
  await sleep(100);
  await proxy?.close();
  proxy = undefined;
  await fake?.stop();
  fake = undefined;
});

/**
 * A ring with m1 alone, every request of it through `via`, and every object on it. Leases long
 * enough for a loaded machine: the handshake does not depend on them.
 */
async function ringOnM1(via: string): Promise<Ring> {
  const r = (ring = new Ring(fake!, 60, 50, { lease: 4000, renew: 3000, retry: 300 }));
  r.join('m1', 'm1', via);
  await until(() => [...r.labels().values()].every((m) => m === 'm1'), 'everything on m1', 15_000);
  return r;
}

/** m2 joins `r`; resolves once every object is on the member the ring of two gives it. */
async function joinM2(r: Ring, why: string | (() => string), timeoutMs = 15_000): Promise<void> {
  r.join('m2');
  const hash = new HashRing(['m1', 'm2']);
  await until(
    () => [...r.labels()].every(([name, m]) => m === hash.owner(`app/${name}`)),
    why,
    timeoutMs,
  );
}

it('a release applied but answered with an error runs nothing more there: the key may be the next member’s', async () => {
  fake = await FakeKubeApiServer.start({ http2: false });
  seed(fake, 20);
  proxy = await lossyReleases(fake.url);
  const r = await ringOnM1(proxy.url);
  await until(() => new Set(r.runs.map((x) => x.key)).size === 20, 'every key run', 10_000);
  const joined = performance.now();
  await joinM2(r, 'assigned to two');
  const moved = [...r.labels()].filter(([, m]) => m === 'm2').map(([n]) => `app/${n}`);
  expect(moved.length).toBeGreaterThan(0);
  // Every move went through a release whose answer m1 never got.
  expect(proxy.lost).toBeGreaterThanOrEqual(moved.length);
  await until(
    () => moved.every((k) => r.runs.some((x) => x.member === 'm2' && x.key === k)),
    'm2 ran its keys',
  );
  await sleep(300); // m1's retries, and its store seeing the objects leave
  // Nothing was deleted: m1 never ran a moved key again (not as a deletion either).
  const after = r.runs.filter(
    (x) => x.member === 'm1' && x.start > joined && moved.includes(x.key),
  );
  expect(after.filter((x) => x.label === undefined)).toEqual([]);
  expect(r.overlaps()).toEqual([]);
}, 30_000);

it('a release the server never answers is sent again beside it well before the transport’s 30 s bound', async () => {
  fake = await FakeKubeApiServer.start({ http2: false });
  seed(fake, 20);
  proxy = await lossyReleases(fake.url, 'hold');
  const r = await ringOnM1(proxy.url);
  // One of m1's releases hangs (its key stays draining while the request waits): before, its
  // run waited for the transport's headersTimeout, 30 s; a run waits for a release at most the
  // renew deadline (3 s here), and the retry sends it again (the first left to land or not).
  await joinM2(r, () => `assigned to two: ${JSON.stringify([...r.labels()])}`);
  expect(proxy.held).toBe(1);
  expect(r.overlaps()).toEqual([]);
}, 40_000);

it('a release that meets a conflict (the object changed, its labels did not) is sent again once the store has the change, not after a backoff', async () => {
  fake = await FakeKubeApiServer.start({ http2: false });
  seed(fake, 20);
  // Each of the first 8 releases of one object races a write of its data (a workload's): 409.
  // Its labels are unchanged, so before the change triggered nothing, and each retry waited out
  // the key's backoff: 100 ms doubling, 25 s for 8 (up to backoff.maxMs, 5 min, for more).
  let raced: string | undefined;
  let conflicts = 0;
  proxy = await lossyReleases(fake.url, 'race', (path) => {
    const name = path.split('?')[0]!.split('/').pop()!;
    raced ??= name;
    if (name !== raced || conflicts >= 8) return;
    conflicts++;
    const current = fake!.get(configmaps, 'app', name)!;
    fake!.update(configmaps, { ...current, data: { ...current.data, raced: `${conflicts}` } });
  });
  const r = await ringOnM1(proxy.url);
  await joinM2(
    r,
    () => `assigned to two (${raced} raced ${conflicts} times): ${JSON.stringify([...r.labels()])}`,
    10_000,
  );
  expect(conflicts).toBe(8);
  expect(r.overlaps()).toEqual([]);
}, 40_000);
