/**
 * The tenant-operator end to end: its main program against a FakeKubeApiServer (TLS, a bearer
 * token), while the real kubectl applies the CRD and Tenants and reads what the operator did, as
 * an operator author would in a demo.
 *
 *   npm run spec -- examples/tenant-operator
 */
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it, jest } from '@jest/globals';
import { configmaps, namespaces, resource } from '../../src/index.js';
import { FakeKubeApiServer } from '../../src/testing/index.js';
import { Kubectl } from '../../spec/testing/fakeKubeApiServer/kubectl.js';
import { until } from '../../spec/support/wait.js';
import { operatorProgram } from '../../spec/examples/operatorProgram.js';
import { REGISTRY, resourcequotas, rolebindings } from './desired.js';
import { main, type RunningOperator } from './main.js';
import { tenants } from './tenant.types.js';

// kubectl starts a process and reads discovery for each command: seconds on a busy machine.
jest.setTimeout(120_000);

const repoRoot = fileURLToPath(new URL('../..', import.meta.url));
const CRD = 'examples/tenant-operator/crd.yaml';
const leases = resource('coordination.k8s.io/v1', 'leases');
/** The Lease's holder, as a standby reads it. */
const holder = (server: FakeKubeApiServer) =>
  (
    server.get(leases, 'tenant-system', 'tenant-operator') as
      { spec?: { holderIdentity?: string } } | undefined
  )?.spec?.holderIdentity;

const tenantYaml = (name: string, quota: string) => `apiVersion: example.com/v1alpha1
kind: Tenant
metadata:
  name: ${name}
spec:
  owner: alice@example.com
  admins: [bob@example.com]
  quota: { cpu: "4", memory: 8Gi, pods: ${quota} }
`;

describe('tenant-operator against a FakeKubeApiServer, driven with kubectl', () => {
  let server: FakeKubeApiServer;
  let kubectl: Kubectl;
  let stop: AbortController;
  let operator: RunningOperator | undefined;
  const lines: string[] = [];
  const log = () => lines.join(' | ');

  beforeEach(async () => {
    server = await FakeKubeApiServer.start({ tls: true, bookmarkIntervalMs: 500 });
    // The fake serves no ResourceQuotas of its own: registered as the core type they are.
    server.defineResource({
      group: '',
      version: 'v1',
      plural: 'resourcequotas',
      kind: 'ResourceQuota',
      shortNames: ['quota'],
    });
    kubectl = await Kubectl.for(server);
    stop = new AbortController();
    lines.length = 0;
    await kubectl.ok('apply', '-f', `${repoRoot}/${CRD}`);
  });

  afterEach(async () => {
    stop.abort();
    await operator?.done;
    operator = undefined;
    await server.stop();
    await kubectl.cleanup();
  });

  const registry = () => server.get(configmaps, REGISTRY.namespace, REGISTRY.name)?.data ?? {};

  it('provisions a Tenant applied with kubectl, reports its status and Events, and cleans up after kubectl delete', async () => {
    operator = await main(server.kubeConfig(), {
      signal: stop.signal,
      log: (line) => void lines.push(line),
      health: false,
    });
    const file = await kubectl.manifest('tenant.yaml', tenantYaml('team-a', '20'));
    await kubectl.ok('apply', '-f', file);
    await until(
      () => server.get(tenants, undefined, 'team-a')?.status?.observedGeneration === 1,
      () => `team-a to be provisioned: ${log()}`,
      60_000,
    );
    // What a user checks: the namespace, its quota and RoleBinding, the registry entry.
    expect(await kubectl.ok('get', 'namespace', 'tenant-team-a', '-o', 'name')).toBe(
      'namespace/tenant-team-a\n',
    );
    const quota = JSON.parse(
      await kubectl.ok('get', 'resourcequota', 'tenant-quota', '-n', 'tenant-team-a', '-o', 'json'),
    );
    expect(quota.spec.hard).toEqual({ 'requests.cpu': '4', 'requests.memory': '8Gi', pods: '20' });
    const binding = JSON.parse(
      await kubectl.ok(
        'get',
        'rolebinding',
        'tenant-admins',
        '-n',
        'tenant-team-a',
        '-o',
        'json',
        '--show-managed-fields',
      ),
    );
    expect(binding.roleRef.name).toBe('admin');
    expect(binding.subjects.map((s: { name: string }) => s.name)).toEqual([
      'alice@example.com',
      'bob@example.com',
    ]);
    // Owned by the Tenant (the garbage collector's part) and written by server-side apply.
    expect(binding.metadata.ownerReferences).toMatchObject([
      { kind: 'Tenant', name: 'team-a', controller: true },
    ]);
    expect(
      binding.metadata.managedFields.find(
        (f: { manager: string }) => f.manager === 'tenant-operator',
      )?.operation,
    ).toBe('Apply');
    expect(registry()).toEqual({ 'team-a': 'tenant-team-a' });

    // The status, through the status subresource, as kubectl shows it.
    const yaml = await kubectl.ok('get', 'tenant', 'team-a', '-o', 'yaml');
    expect(yaml).toContain('tenants.example.com/cleanup');
    expect(yaml).toMatch(/observedGeneration: 1/);
    expect(yaml).toMatch(/reason: Provisioned\n\s+status: "True"\n\s+type: Ready/);
    expect(await kubectl.ok('get', 'tenants')).toMatch(
      /team-a\s+alice@example\.com\s+tenant-team-a\s+True/,
    );

    // A change of spec: a new generation, the quota follows, observedGeneration too.
    await kubectl.ok(
      'apply',
      '-f',
      await kubectl.manifest('tenant.yaml', tenantYaml('team-a', '5')),
    );
    await until(
      () => server.get(tenants, undefined, 'team-a')?.status?.observedGeneration === 2,
      () => `generation 2 to be observed: ${log()}`,
      60_000,
    );
    expect(server.get(resourcequotas, 'tenant-team-a', 'tenant-quota')?.spec?.hard?.pods).toBe('5');

    // Deleted: the finalizer's cleanup empties the registry entry, then GC takes the rest.
    await kubectl.ok('delete', 'tenant', 'team-a', '--wait=true', '--timeout=60s');
    expect(registry()).toEqual({});
    await until(
      () =>
        server.get(namespaces, undefined, 'tenant-team-a') === undefined &&
        server.get(rolebindings, 'tenant-team-a', 'tenant-admins') === undefined,
      'the garbage collector to delete the namespace and the RoleBinding',
      30_000,
    );
    const events = await kubectl.ok(
      'get',
      'events',
      '-A',
      '--field-selector',
      'involvedObject.name=team-a',
      '-o',
      'custom-columns=TYPE:.type,REASON:.reason,KIND:.involvedObject.kind,FROM:.reportingComponent',
    );
    // Events of a cluster-scoped object live in `default`, as kube-apiserver keeps them.
    expect(events).toMatch(/Normal\s+Provisioned\s+Tenant\s+example\.com\/tenant-operator/);
    expect(events).toMatch(/Normal\s+Deprovisioned\s+Tenant/);
  });

  it('shows its Events in kubectl describe, a Warning while the tenant cannot be provisioned', async () => {
    // The RoleBinding writes fail for a while: Ready False with the reason, a Warning Event.
    server.faults.fail(403, {
      times: 2,
      path: '/apis/rbac.authorization.k8s.io/v1/namespaces/tenant-team-b/rolebindings/tenant-admins',
    });
    operator = await main(server.kubeConfig(), {
      signal: stop.signal,
      log: (line) => void lines.push(line),
      health: false,
    });
    await kubectl.ok('apply', '-f', await kubectl.manifest('t.yaml', tenantYaml('team-b', '3')));
    await until(
      () => server.get(tenants, undefined, 'team-b')?.status?.conditions?.[0]?.status === 'True',
      () => `team-b to become Ready: ${log()}`,
      60_000,
    );
    const described = await kubectl.ok('describe', 'tenant', 'team-b');
    expect(described).toMatch(/Warning\s+ProvisioningFailed/);
    expect(described).toMatch(/Normal\s+Provisioned/);
    expect(described).toMatch(/Observed Generation:\s+1/);
  });

  it('puts back a child deleted behind its back (it owns them: their deletion triggers the Tenant)', async () => {
    operator = await main(server.kubeConfig(), {
      signal: stop.signal,
      log: (line) => void lines.push(line),
      health: false,
    });
    await kubectl.ok('apply', '-f', await kubectl.manifest('t.yaml', tenantYaml('team-d', '2')));
    const binding = () => server.get(rolebindings, 'tenant-team-d', 'tenant-admins');
    await until(
      () => binding() !== undefined,
      () => `team-d's RoleBinding: ${log()}`,
      60_000,
    );
    const uid = binding()!.metadata?.uid;
    await kubectl.ok('delete', 'rolebinding', 'tenant-admins', '-n', 'tenant-team-d');
    await until(
      () => binding() !== undefined && binding()!.metadata?.uid !== uid,
      () => `the RoleBinding to be back: ${log()}`,
      60_000,
    );
  });

  it('runs as a program: leads through its Lease, serves /healthz and /metrics, and exits 0 on SIGTERM', async () => {
    const program = operatorProgram('examples/tenant-operator/main.ts', [], kubectl.kubeconfig, {
      POD_NAME: 'tenant-operator-0',
    });
    let exited: Promise<number | null> | undefined;
    try {
      await program.waitFor(/synced:/, 'the program');
      await kubectl.ok('apply', '-f', await kubectl.manifest('t.yaml', tenantYaml('team-c', '1')));
      await program.waitFor(/reconciled team-c/, 'the program to provision team-c');
      const url = program.probeUrl();
      expect(url).toBeDefined();
      expect((await fetch(`${url}/healthz`)).status).toBe(200);
      const scrape = await (await fetch(`${url}/metrics`)).text();
      expect(scrape).toMatch(
        /^controller_runtime_reconcile_total\{controller="tenant-operator",result="success"\} [1-9]/m,
      );
      expect(scrape).not.toContain('team-c');
      expect(program.output()).toContain('leading (tenant-operator-0)');
      expect(holder(server)).toBe('tenant-operator-0');
    } finally {
      exited = program.stop();
    }
    await expect(exited).resolves.toBe(0);
    expect(program.output()).toMatch(/stopped after \d+ runs/);
    // Released on the way out, so that a standby takes over at once.
    expect(holder(server) ?? '').toBe('');
  });
});
