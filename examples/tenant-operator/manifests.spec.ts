/**
 * What ships beside the tenant-operator stays true to it: tenant.types.ts is what
 * `kube-rx crd-types` makes of crd.yaml today (so the two never drift), and rbac.yaml grants
 * what the operator does, and is a manifest kubectl accepts.
 *
 *   npm run spec -- examples/tenant-operator/manifests.spec.ts
 */
import { spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { loadAll } from 'js-yaml';
import { FakeKubeApiServer } from '../../src/testing/index.js';
import { Kubectl } from '../../spec/testing/fakeKubeApiServer/kubectl.js';

// The command and kubectl start processes: seconds on a busy machine.
jest.setTimeout(90_000);

const repoRoot = fileURLToPath(new URL('../..', import.meta.url));
const here = (file: string) => `${repoRoot}/examples/tenant-operator/${file}`;

/** Runs `kube-rx crd-types` from the sources; resolves with its stdout (rejects on exit != 0). */
function crdTypes(...args: string[]): Promise<string> {
  const child = spawn(
    process.execPath,
    ['--import', './bench/register.mjs', 'src/cli/main.ts', 'crd-types', ...args],
    { cwd: repoRoot, env: { PATH: process.env.PATH } },
  );
  let out = '';
  let err = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
  return new Promise((resolve, reject) =>
    child.on('exit', (code) => (code === 0 ? resolve(out) : reject(new Error(`${code}: ${err}`)))),
  );
}

describe('examples/tenant-operator/tenant.types.ts', () => {
  it('is what kube-rx crd-types generates from crd.yaml (the import pointed at the sources)', async () => {
    const generated = await crdTypes('examples/tenant-operator/crd.yaml');
    // The one edit: inside this repository the library is ../../src, not the package.
    const expected = generated.replace("from 'kube-rx';", "from '../../src/index.js';");
    expect(expected).not.toBe(generated);
    expect(await readFile(here('tenant.types.ts'), 'utf8')).toBe(expected);
  });
});

interface Rule {
  apiGroups: string[];
  resources: string[];
  verbs: string[];
  resourceNames?: string[];
}

describe('examples/tenant-operator/rbac.yaml', () => {
  let documents: Array<Record<string, any>>;
  beforeAll(async () => {
    documents = loadAll(await readFile(here('rbac.yaml'), 'utf8')) as typeof documents;
  });
  /** Whether a rule of a role of this kind grants the verb on the resource (and name). */
  const grants = (kind: string, group: string, resource: string, verb: string, name?: string) =>
    documents
      .filter((d) => d.kind === kind)
      .flatMap((d) => d.rules as Rule[])
      .some(
        (r) =>
          r.apiGroups.includes(group) &&
          r.resources.includes(resource) &&
          r.verbs.includes(verb) &&
          (r.resourceNames === undefined || (name !== undefined && r.resourceNames.includes(name))),
      );

  it('grants cluster-wide what the operator watches and writes, but never deletes a namespace or reads a Secret', () => {
    const cluster: Array<[string, string, string[]]> = [
      ['example.com', 'tenants', ['list', 'watch', 'patch']],
      ['example.com', 'tenants/status', ['patch']],
      ['example.com', 'tenants/finalizers', ['update']],
      ['', 'namespaces', ['list', 'watch', 'create', 'patch']],
      ['', 'resourcequotas', ['list', 'watch', 'create', 'patch', 'delete']],
      ['rbac.authorization.k8s.io', 'rolebindings', ['list', 'watch', 'create', 'patch']],
      ['events.k8s.io', 'events', ['create', 'patch']],
    ];
    for (const [group, resource, verbs] of cluster)
      for (const verb of verbs)
        expect([group, resource, verb, grants('ClusterRole', group, resource, verb)]).toEqual([
          group,
          resource,
          verb,
          true,
        ]);
    expect(
      grants('ClusterRole', 'rbac.authorization.k8s.io', 'clusterroles', 'bind', 'admin'),
    ).toBe(true);
    expect(grants('ClusterRole', 'rbac.authorization.k8s.io', 'clusterroles', 'bind', 'x')).toBe(
      false,
    );
    // Never deletes a namespace (the garbage collector does) nor reads any Secret.
    expect(grants('ClusterRole', '', 'namespaces', 'delete')).toBe(false);
    expect(grants('ClusterRole', '', 'secrets', 'get')).toBe(false);
  });

  it('keeps the registry and the Lease to tenant-system, by name', () => {
    expect(grants('Role', '', 'configmaps', 'patch', 'tenant-registry')).toBe(true);
    expect(grants('Role', '', 'configmaps', 'patch', 'other')).toBe(false);
    expect(grants('Role', 'coordination.k8s.io', 'leases', 'update', 'tenant-operator')).toBe(true);
    // Sharded: every Lease of the namespace (member Leases are named after pods).
    for (const verb of ['list', 'watch', 'update', 'delete']) {
      expect(grants('Role', 'coordination.k8s.io', 'leases', verb, 'tenants.op-1')).toBe(true);
    }
    expect(documents.find((d) => d.kind === 'Role')?.metadata.namespace).toBe('tenant-system');
  });

  describe('with kubectl', () => {
    let server: FakeKubeApiServer;
    let kubectl: Kubectl;
    beforeAll(async () => {
      server = await FakeKubeApiServer.start({ tls: true, bookmarkIntervalMs: 0 });
      kubectl = await Kubectl.for(server);
    });
    afterAll(async () => {
      await kubectl?.cleanup();
      await server?.stop();
    });

    it('accepts the manifest and the CRD (a dry run writes nothing)', async () => {
      const result = await kubectl.run(
        'apply',
        '--dry-run=client',
        '--validate=false',
        '-f',
        here('rbac.yaml'),
        '-f',
        here('crd.yaml'),
      );
      expect(result).toMatchObject({ code: 0, stderr: '' });
      expect(result.stdout).toContain(
        'clusterrole.rbac.authorization.k8s.io/tenant-operator created (dry run)',
      );
      expect(result.stdout).toContain(
        'customresourcedefinition.apiextensions.k8s.io/tenants.example.com created (dry run)',
      );
      expect(server.requests.filter((r) => r.method !== 'GET')).toEqual([]);
    });
  });
});
