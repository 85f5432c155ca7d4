// One replica of the leader chaos (leaderChaos.ts): a leader election gating an acting loop,
// reporting on stdout one JSON line per step ({ at, identity, type }, `at` = Date.now()).
//   node --import ./bench/register.mjs bench/chaos/leader/replica.ts --kubeconfig F \
//     --identity replica-1 [--lease 2000 --renew 1400 --retry 200] [--act module.ts]
// SIGTERM unsubscribes (releasing the lease when leading), then exits.
import { KubeConfig } from '@kubernetes/client-node';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { leaderElection, whileLeader } from '../../../src/index.js';
import { loopActing, type Acting } from './acting.js';

const { values } = parseArgs({
  options: {
    kubeconfig: { type: 'string' },
    identity: { type: 'string' },
    namespace: { type: 'string', default: 'chaos' },
    name: { type: 'string', default: 'leader' },
    lease: { type: 'string', default: '2000' },
    renew: { type: 'string', default: '1400' },
    retry: { type: 'string', default: '200' },
    act: { type: 'string' },
  },
  strict: true,
});
const identity = values.identity!;
const say = (type: string, extra: Record<string, unknown> = {}): void => {
  process.stdout.write(`${JSON.stringify({ at: Date.now(), identity, type, ...extra })}\n`);
};

const kc = new KubeConfig();
kc.loadFromFile(values.kubeconfig!);
const act: Acting = values.act
  ? ((await import(pathToFileURL(resolve(values.act)).href)) as { act: Acting }).act
  : loopActing();

const election$ = leaderElection(kc, {
  namespace: values.namespace!,
  name: values.name!,
  identity,
  leaseDurationMs: Number(values.lease),
  renewDeadlineMs: Number(values.renew),
  retryPeriodMs: Number(values.retry),
  logger: { warn: (message) => say('warn', { message }) },
});
const leading = election$.subscribe((value) => say(value ? 'leading' : 'standby'));
const acting = act(say, kc).pipe(whileLeader(election$)).subscribe();
say('started', { pid: process.pid });

process.on('SIGTERM', () => {
  acting.unsubscribe();
  leading.unsubscribe(); // the last subscriber: the election stops and releases the lease
  say('stopping');
  // The release is one request; the process ends when it is done (bounded by renewDeadline).
  setTimeout(() => process.exit(0), Number(values.renew)).unref();
});
