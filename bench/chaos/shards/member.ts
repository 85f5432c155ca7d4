// One member of the sharding chaos (shardChaos.ts): a sharded controller over the ConfigMaps of
// namespace `app`, reporting on stdout one JSON line per run start and end
// ({ at, identity, type, key, rv }, `at` = Date.now(): one machine, one clock).
//   node --import ./bench/register.mjs bench/chaos/shards/member.ts --kubeconfig F \
//     --identity m1 [--lease 1000 --renew 700 --retry 100 --seed 1 --fail 0.1] [--wait]
// SIGTERM unsubscribes (its Lease is released once its runs ended), then exits.
import { KubeConfig } from '@kubernetes/client-node';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { configmaps, controller } from '../../../src/index.js';
import { Prng } from '../prng.js';

const { values } = parseArgs({
  options: {
    kubeconfig: { type: 'string' },
    identity: { type: 'string' },
    lease: { type: 'string', default: '1000' },
    renew: { type: 'string', default: '700' },
    retry: { type: 'string', default: '100' },
    seed: { type: 'string', default: '1' },
    fail: { type: 'string', default: '0.1' },
    // Load, say `ready`, and join the ring only on SIGUSR2 (loading the sources takes seconds).
    wait: { type: 'boolean', default: false },
  },
  strict: true,
});
const identity = values.identity!;
const say = (type: string, extra: Record<string, unknown> = {}): void => {
  process.stdout.write(`${JSON.stringify({ at: Date.now(), identity, type, ...extra })}\n`);
};
const prng = new Prng(Number(values.seed));
const failRate = Number(values.fail);

const kc = new KubeConfig();
kc.loadFromFile(values.kubeconfig!);
const member = () =>
  controller({
    cluster: kc,
    for: { resource: configmaps, options: { namespace: 'app' } },
    rateLimit: false,
    concurrency: 8,
    backoff: { initialMs: 20, maxMs: 400 },
    reconcile: async (object, { key }) => {
      say('start', { key, rv: object?.metadata?.resourceVersion ?? null });
      // An I/O-bound run that ignores its signal (the worst case for a move).
      await sleep(prng.between(5, 40));
      const failed = prng.next() < failRate;
      say('end', { key });
      if (failed) throw new Error('chaos: this run fails');
    },
    sharding: {
      ring: 'chaos',
      namespace: 'chaos',
      identity,
      leaseDurationMs: Number(values.lease),
      renewDeadlineMs: Number(values.renew),
      retryPeriodMs: Number(values.retry),
    },
  });
let running: { unsubscribe(): void } | undefined;
const join = () => {
  running ??= member().subscribe();
  say('started', { pid: process.pid });
};
if (values.wait) {
  // A signal listener alone does not keep the process alive.
  const idle = setInterval(() => undefined, 60_000);
  process.once('SIGUSR2', () => {
    clearInterval(idle);
    join();
  });
  say('ready');
} else join();

process.on('SIGTERM', () => {
  running?.unsubscribe();
  say('stopping');
  // The Lease is released once the runs in flight ended (at most renewDeadline).
  setTimeout(() => process.exit(0), Number(values.renew) + 500).unref();
});
