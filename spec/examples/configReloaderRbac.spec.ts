import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { loadAll } from 'js-yaml';
import { FakeKubeApiServer } from '../../src/testing/fakeKubeApiServer/FakeKubeApiServer.js';
import { Kubectl } from '../testing/fakeKubeApiServer/kubectl.js';

// The least RBAC a controller needs, as the example operator config-reloader ships it: get,
// list, watch on what it watches (and patch on what it changes), get, create, update on Leases in
// its own namespace; nothing else.

const MANIFEST = resolve('examples/config-reloader/rbac.yaml');

// kubectl on a busy machine: discovery, then a GET per object.
jest.setTimeout(60_000);

interface Rule {
  apiGroups: string[];
  resources: string[];
  verbs: string[];
  resourceNames?: string[];
}

describe('examples/config-reloader/rbac.yaml', () => {
  const documents = loadAll(readFileSync(MANIFEST, 'utf8')) as Array<Record<string, any>>;
  const named = (kind: string) => documents.filter((d) => d.kind === kind);

  it('is a ServiceAccount, a Role and a RoleBinding in one namespace, nothing cluster-wide', () => {
    expect(documents.map((d) => d.kind)).toEqual(['ServiceAccount', 'Role', 'RoleBinding']);
    const namespaces = new Set(documents.map((d) => d.metadata.namespace));
    expect(namespaces).toEqual(new Set(['config-reloader']));
    const [binding] = named('RoleBinding');
    expect(binding.roleRef).toEqual({
      apiGroup: 'rbac.authorization.k8s.io',
      kind: 'Role',
      name: named('Role')[0].metadata.name,
    });
    expect(binding.subjects).toEqual([
      { kind: 'ServiceAccount', name: 'config-reloader', namespace: 'config-reloader' },
    ]);
  });

  it('grants exactly: get, list, watch on ConfigMaps, patch on Deployments, get, create, update on its Lease', () => {
    // Every (group, resource, verb, name) the Role allows; '*' is never one of them.
    const grants = (named('Role')[0].rules as Rule[])
      .flatMap((rule) =>
        rule.apiGroups.flatMap((group) =>
          rule.resources.flatMap((resource) =>
            rule.verbs.flatMap((verb) =>
              (rule.resourceNames ?? ['(any)']).map((name) =>
                [group || 'core', resource, verb, name].join(' '),
              ),
            ),
          ),
        ),
      )
      .sort();
    expect(grants).toEqual(
      [
        'core configmaps get (any)',
        'core configmaps list (any)',
        'core configmaps watch (any)',
        'apps deployments get (any)',
        'apps deployments list (any)',
        'apps deployments watch (any)',
        'apps deployments patch (any)',
        'coordination.k8s.io leases create (any)',
        'coordination.k8s.io leases get config-reloader',
        'coordination.k8s.io leases update config-reloader',
      ].sort(),
    );
  });

  describe('kubectl apply --dry-run=client', () => {
    // kubectl reads discovery (to map the kinds) and GETs each object (create or patch?) even in
    // client dry-run: a FakeKubeApiServer answers, over TLS (kubectl sends a token only there).
    let server: FakeKubeApiServer;
    let kubectl: Kubectl;
    beforeAll(async () => {
      server = await FakeKubeApiServer.start({ tls: true });
      kubectl = await Kubectl.for(server);
    });
    afterAll(async () => {
      await kubectl?.cleanup();
      await server?.stop();
    });

    it('accepts the manifest and writes nothing', async () => {
      // --validate=false: the test server serves no OpenAPI schema to validate against.
      const result = await kubectl.run(
        'apply',
        '--dry-run=client',
        '--validate=false',
        '-f',
        MANIFEST,
      );
      expect(result).toMatchObject({ code: 0, stderr: '' });
      expect(result.stdout.trim().split('\n')).toEqual([
        'serviceaccount/config-reloader created (dry run)',
        'role.rbac.authorization.k8s.io/config-reloader created (dry run)',
        'rolebinding.rbac.authorization.k8s.io/config-reloader created (dry run)',
      ]);
      // It asked the server (discovery, a GET per object) and wrote nothing.
      expect(server.requests.length).toBeGreaterThan(0);
      expect(server.requests.filter((r) => r.method !== 'GET')).toEqual([]);
    });

    it('refuses a manifest whose kind the cluster does not serve (the check can fail)', async () => {
      const broken = await kubectl.manifest(
        'broken.yaml',
        readFileSync(MANIFEST, 'utf8').replace('kind: Role\n', 'kind: Rolle\n'),
      );
      const result = await kubectl.run(
        'apply',
        '--dry-run=client',
        '--validate=false',
        '-f',
        broken,
      );
      expect(result.code).not.toBe(0);
      expect(result.stderr).toMatch(/Rolle/);
    });
  });
});
