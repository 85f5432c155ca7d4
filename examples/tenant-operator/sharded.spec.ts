/**
 * The tenant-operator run sharded: two members of the ring `tenants` (its main program, as
 * `--shards tenants --identity op-N` starts it) against one FakeKubeApiServer. Each Tenant is
 * assigned to one member, the objects it owns follow it, each change is reconciled by exactly
 * the member it is assigned to, and each member's metrics carry its name.
 *
 *   npm run spec -- examples/tenant-operator/sharded.spec.ts
 */
import { readFile } from 'node:fs/promises';
import { afterEach, describe, expect, it, jest } from '@jest/globals';
import { load } from 'js-yaml';
import { Registry } from 'prom-client';
import { namespaces, resourceApi } from '../../src/index.js';
import { FakeKubeApiServer } from '../../src/testing/index.js';
import { until } from '../../spec/support/wait.js';
import { resourcequotas, rolebindings } from './desired.js';
import { main, type RunningOperator } from './main.js';
import { tenants, type Tenant } from './tenant.types.js';

jest.setTimeout(60_000);

const LABEL = 'shard.kube-rx.io/tenants';
const NAMES = ['team-a', 'team-b', 'team-c', 'team-d', 'team-e', 'team-f', 'team-g', 'team-h'];
const crds = { group: 'apiextensions.k8s.io', version: 'v1', plural: 'customresourcedefinitions' };

const tenant = (name: string, pods: number): Tenant => ({
  apiVersion: 'example.com/v1alpha1',
  kind: 'Tenant',
  metadata: { name },
  spec: { owner: 'alice@example.com', admins: [], quota: { pods } },
});

interface Member {
  identity: string;
  lines: string[];
  metrics: Registry;
  stop: AbortController;
  operator: RunningOperator;
}

let server: FakeKubeApiServer | undefined;
const members: Member[] = [];

afterEach(async () => {
  for (const m of members) m.stop.abort();
  await Promise.all(members.map((m) => m.operator.done));
  members.length = 0;
  await server?.stop();
  server = undefined;
});

async function member(fake: FakeKubeApiServer, identity: string): Promise<Member> {
  const lines: string[] = [];
  const metrics = new Registry();
  const stop = new AbortController();
  const operator = await main(fake.kubeConfig(), {
    signal: stop.signal,
    log: (line) => void lines.push(line),
    health: false,
    metrics,
    // What `--shards tenants --identity <identity>` gives, with short leases for the spec.
    sharding: {
      ring: 'tenants',
      namespace: 'tenant-system',
      identity,
      leaseDurationMs: 2000,
      renewDeadlineMs: 1500,
      retryPeriodMs: 200,
    },
  });
  const m = { identity, lines, metrics, stop, operator };
  members.push(m);
  return m;
}

describe('tenant-operator, sharded', () => {
  it('two members share the Tenants; owned objects follow; each change runs on its member only', async () => {
    const fake = (server = await FakeKubeApiServer.start({ http2: false }));
    fake.defineResource({
      group: '',
      version: 'v1',
      plural: 'resourcequotas',
      kind: 'ResourceQuota',
    });
    const crd = load(await readFile(new URL('crd.yaml', import.meta.url), 'utf8'));
    fake.create(crds, crd as never);
    for (const name of NAMES) fake.create(tenants, tenant(name, 10));

    const [one, two] = [await member(fake, 'op-1'), await member(fake, 'op-2')];
    const assignment = () =>
      new Map(NAMES.map((n) => [n, fake.get(tenants, undefined, n)?.metadata?.labels?.[LABEL]]));
    const provisioned = (generation: number) =>
      NAMES.every(
        (n) => fake.get(tenants, undefined, n)?.status?.observedGeneration === generation,
      );
    await until(
      () =>
        provisioned(1) &&
        new Set(assignment().values()).size === 2 &&
        [...assignment().values()].every((m) => m === 'op-1' || m === 'op-2'),
      () => `every Tenant provisioned, on both members: ${JSON.stringify([...assignment()])}`,
      30_000,
    );

    // The objects a Tenant owns carry its member: each member watches only its share of them.
    const owned = (name: string) => [
      fake.get(namespaces, undefined, `tenant-${name}`),
      fake.get(resourcequotas, `tenant-${name}`, 'tenant-quota'),
      fake.get(rolebindings, `tenant-${name}`, 'tenant-admins'),
    ];
    await until(
      () =>
        NAMES.every((n) =>
          owned(n).every((o) => o?.metadata?.labels?.[LABEL] === assignment().get(n)),
        ),
      () =>
        `owned objects follow: ${JSON.stringify(NAMES.map((n) => owned(n).map((o) => o?.metadata?.labels?.[LABEL])))}`,
      15_000,
    );

    // At rest, a change of every Tenant is reconciled by its member, and by no other.
    const from = [one.lines.length, two.lines.length];
    const at = assignment();
    const api = resourceApi(fake.kubeConfig(), tenants);
    for (const name of NAMES) {
      await api.patch(name, { spec: { quota: { pods: 20 } } }, { type: 'merge' });
    }
    await until(() => provisioned(2), 'every change provisioned', 20_000);
    for (const name of NAMES) {
      const ran = [one, two]
        .filter((m, i) => m.lines.slice(from[i]).includes(`reconciled ${name}`))
        .map((m) => m.identity);
      expect([name, ran]).toEqual([name, [at.get(name)]]);
    }

    // Each member's metrics carry its name.
    for (const m of [one, two]) {
      const text = await m.metrics.metrics();
      expect(text).toMatch(
        new RegExp(
          `controller_runtime_reconcile_total\\{controller="tenant-operator",member="${m.identity}",result="success"\\} [1-9]`,
        ),
      );
      expect(text).not.toMatch(/member="(?!op-)/);
    }
  });

  it('refuses sharding together with leader election, and a bad identity, with a clear error', async () => {
    const fake = (server = await FakeKubeApiServer.start({ http2: false }));
    const sharding = { ring: 'tenants', namespace: 'tenant-system', identity: 'op-1' };
    await expect(
      main(fake.kubeConfig(), {
        health: false,
        sharding,
        leaderElection: { namespace: 'tenant-system', name: 'tenant-operator', identity: 'x' },
      }),
    ).rejects.toThrow(/sharding or leaderElection/);
    await expect(
      main(fake.kubeConfig(), { health: false, sharding: { ...sharding, identity: 'Op_1' } }),
    ).rejects.toThrow(/sharding\.identity/);
  });
});
