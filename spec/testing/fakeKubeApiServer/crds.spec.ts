// CustomResourceDefinitions through the API, with the real kubectl (1.32) over TLS: applying a
// CRD registers its resource (discovery, short names, printer columns, status and scale
// subresources); deleting it removes the resource and its objects.
import { beforeEach, describe, expect, it, jest } from '@jest/globals';
import type { FakeKubeApiServer } from '../../../src/testing/fakeKubeApiServer/FakeKubeApiServer.js';
import { get, request, watch } from './client.js';
import type { Kubectl } from './kubectl.js';
import { kubectlHarness } from './kubectl.js';

export const CRD = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: crontabs.stable.example.com}
spec:
  group: stable.example.com
  scope: Namespaced
  names: {plural: crontabs, singular: crontab, kind: CronTab, shortNames: [ct]}
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              cronSpec: {type: string}
              replicas: {type: integer}
              ports:
                type: array
                x-kubernetes-list-type: map
                x-kubernetes-list-map-keys: [port]
                items:
                  type: object
                  required: [port]
                  properties: {port: {type: integer}, name: {type: string}}
          status:
            type: object
            x-kubernetes-preserve-unknown-fields: true
    subresources:
      status: {}
      scale: {specReplicasPath: .spec.replicas, statusReplicasPath: .status.replicas}
    additionalPrinterColumns:
    - {name: Spec, type: string, jsonPath: .spec.cronSpec}
    - {name: Replicas, type: integer, jsonPath: .spec.replicas}
`;

const CRONTAB = `apiVersion: stable.example.com/v1
kind: CronTab
metadata: {name: nightly}
spec: {cronSpec: "0 0 * * *", replicas: 1}
status: {replicas: 99}
`;

const CRDS = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';
const crontabs = { group: 'stable.example.com', version: 'v1', plural: 'crontabs' };

jest.setTimeout(90_000);

describe('CustomResourceDefinitions through the API, with kubectl', () => {
  const harness = kubectlHarness();
  let server: FakeKubeApiServer;
  let kubectl: Kubectl;
  beforeEach(() => {
    ({ server, kubectl } = harness);
  });

  it('apply -f crd.yaml registers the resource: established, short name, printer columns, status and scale', async () => {
    const crd = await kubectl.manifest('crd.yaml', CRD);
    expect(await kubectl.ok('apply', '-f', crd, '--validate=false')).toBe(
      'customresourcedefinition.apiextensions.k8s.io/crontabs.stable.example.com created\n',
    );
    expect(
      await kubectl.ok('wait', '--for=condition=Established', 'crd/crontabs.stable.example.com'),
    ).toMatch(/condition met/);
    const stored = JSON.parse(
      await kubectl.ok('get', 'crd', 'crontabs.stable.example.com', '-o', 'json'),
    );
    expect(stored.status.acceptedNames).toEqual({
      plural: 'crontabs',
      singular: 'crontab',
      kind: 'CronTab',
      listKind: 'CronTabList',
      shortNames: ['ct'],
    });
    expect(stored.status.conditions.map((c: any) => [c.type, c.status, c.reason])).toEqual([
      ['NamesAccepted', 'True', 'NoConflicts'],
      ['Established', 'True', 'InitialNamesAccepted'],
    ]);
    expect(stored.status.storedVersions).toEqual(['v1']);

    expect(await kubectl.ok('api-resources', '--api-group=stable.example.com')).toMatch(
      /^NAME\s+SHORTNAMES\s+APIVERSION\s+NAMESPACED\s+KIND\ncrontabs\s+ct\s+stable\.example\.com\/v1\s+true\s+CronTab\n$/,
    );
    // The CRD's schema is what kubectl explains (the server's OpenAPI reads the record).
    expect(await kubectl.ok('explain', 'crontabs.spec')).toMatch(/cronSpec\s+<string>/);
    // kubectl validates the custom resource against the CRD's schema (validation on).
    const cr = await kubectl.manifest('ct.yaml', CRONTAB);
    expect(await kubectl.ok('apply', '-f', cr)).toBe(
      'crontab.stable.example.com/nightly created\n',
    );
    // The status subresource: a write to the object drops the status it carries.
    expect(server.get(crontabs, 'default', 'nightly')).not.toHaveProperty('status');
    expect(await kubectl.ok('get', 'ct')).toMatch(
      /^NAME\s+SPEC\s+REPLICAS\s+AGE\nnightly\s+0 0 \* \* \*\s+1\s/,
    );

    await kubectl.ok(
      'patch',
      'ct',
      'nightly',
      '--subresource=status',
      '--type=merge',
      '-p',
      '{"status":{"replicas":2},"spec":{"cronSpec":"ignored"}}',
    );
    const status = JSON.parse(
      await kubectl.ok('get', 'ct', 'nightly', '--subresource=status', '-o', 'json'),
    );
    expect(status).toMatchObject({
      spec: { cronSpec: '0 0 * * *' },
      status: { replicas: 2 },
      metadata: { generation: 1 },
    });

    expect(await kubectl.ok('scale', 'ct', 'nightly', '--replicas=3')).toBe(
      'crontab.stable.example.com/nightly scaled\n',
    );
    expect(server.get(crontabs, 'default', 'nightly')).toMatchObject({
      spec: { replicas: 3 },
      status: { replicas: 2 },
      metadata: { generation: 2 },
    });
  });

  it('delete crd: the resource leaves discovery and its objects go (watchers get DELETED)', async () => {
    await kubectl.ok('apply', '-f', await kubectl.manifest('crd.yaml', CRD), '--validate=false');
    await kubectl.ok('apply', '-f', await kubectl.manifest('ct.yaml', CRONTAB), '--validate=false');
    const w = watch(server, '/apis/stable.example.com/v1/namespaces/default/crontabs');
    await w.waitForEvents(1);
    expect(await kubectl.ok('delete', 'crd', 'crontabs.stable.example.com')).toBe(
      'customresourcedefinition.apiextensions.k8s.io "crontabs.stable.example.com" deleted\n',
    );
    const events = await w.waitForEvents(2);
    expect(events.map((e) => [e.type, e.object.metadata.name])).toEqual([
      ['ADDED', 'nightly'],
      ['DELETED', 'nightly'],
    ]);
    // The resource is gone: its watches end, as kube-apiserver ends them.
    expect(await w.ended).toEqual({ complete: true });
    expect((await get(server, '/apis/stable.example.com/v1')).status).toBe(404);
    const r = await kubectl.run('get', 'crontabs');
    expect(r.code).not.toBe(0);
    // kubectl's cached discovery still names it: the server answers 404 for the resource.
    expect(r.stderr).toMatch(/could not find the requested resource|doesn't have a resource type/);
    const list = await get(server, '/apis/stable.example.com/v1/namespaces/default/crontabs');
    expect([list.status, list.json.reason]).toEqual([404, 'NotFound']);
  });

  it('a CRD kube-apiserver would refuse answers 422 Invalid and stores nothing', async () => {
    const valid = CRD_JSON;
    const cases: Array<[string, (crd: any) => void, RegExp]> = [
      [
        'plural not lowercase',
        (c) => (c.spec.names.plural = 'CronTabs'),
        /spec\.names\.plural: Invalid value: "CronTabs"/,
      ],
      [
        'group without a dot',
        (c) => (c.spec.group = 'example'),
        /spec\.group: Invalid value: "example": should be a domain with at least one dot/,
      ],
      [
        'name not plural.group',
        (c) => (c.metadata.name = 'tabs.stable.example.com'),
        /metadata\.name: Invalid value: "tabs\.stable\.example\.com": must be spec\.names\.plural\+"\."\+spec\.group/,
      ],
      ['no versions', (c) => (c.spec.versions = []), /spec\.versions: Required value/],
      [
        'two storage versions',
        (c) => c.spec.versions.push({ ...c.spec.versions[0], name: 'v2' }),
        /spec\.versions: Invalid value: .*must have exactly one version marked as storage version/,
      ],
      [
        'an array without items',
        (c) =>
          (c.spec.versions[0].schema.openAPIV3Schema.properties.spec.properties.ports = {
            type: 'array',
          }),
        /properties\[spec\]\.properties\[ports\]\.items: Required value/,
      ],
      [
        'an unknown type',
        (c) => (c.spec.versions[0].schema.openAPIV3Schema.properties.spec.type = 'map'),
        /properties\[spec\]\.type: Unsupported value: "map"/,
      ],
      [
        'a map list without keys',
        (c) =>
          delete c.spec.versions[0].schema.openAPIV3Schema.properties.spec.properties.ports[
            'x-kubernetes-list-map-keys'
          ],
        /x-kubernetes-list-map-keys: Required value/,
      ],
    ];
    for (const [what, change, message] of cases) {
      const crd = structuredClone(valid);
      change(crd);
      const r = await request(server, 'POST', CRDS, crd);
      expect([what, r.status, r.json.reason, r.json.details?.kind]).toEqual([
        what,
        422,
        'Invalid',
        'CustomResourceDefinition',
      ]);
      expect(r.json.message).toMatch(message);
      expect(r.json.message).toMatch(
        /^CustomResourceDefinition\.apiextensions\.k8s\.io ".*" is invalid: /,
      );
    }
    expect(
      server.objects({
        group: 'apiextensions.k8s.io',
        version: 'v1',
        plural: 'customresourcedefinitions',
      }),
    ).toEqual([]);
    expect((await get(server, '/apis/stable.example.com/v1')).status).toBe(404);
    const crd = await kubectl.manifest(
      'bad.yaml',
      CRD.replace('group: stable.example.com', 'group: example'),
    );
    const r = await kubectl.run('apply', '-f', crd, '--validate=false');
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(
      /CustomResourceDefinition "crontabs.stable.example.com" is invalid:[^]*spec\.group: Invalid value: "example": should be a domain with at least one dot/,
    );
    // The same CRD unchanged is accepted: each case failed for its one change.
    expect((await request(server, 'POST', CRDS, valid)).status).toBe(201);
    expect((await get(server, '/apis/stable.example.com/v1')).status).toBe(200);
  });
});

/** The CRD above as JSON, for the HTTP cases (kubectl's YAML parser is not in the specs). */
const CRD_JSON = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'crontabs.stable.example.com' },
  spec: {
    group: 'stable.example.com',
    scope: 'Namespaced',
    names: { plural: 'crontabs', singular: 'crontab', kind: 'CronTab', shortNames: ['ct'] },
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        schema: {
          openAPIV3Schema: {
            type: 'object',
            properties: {
              spec: {
                type: 'object',
                properties: {
                  cronSpec: { type: 'string' },
                  ports: {
                    type: 'array',
                    'x-kubernetes-list-type': 'map',
                    'x-kubernetes-list-map-keys': ['port'],
                    items: { type: 'object', properties: { port: { type: 'integer' } } },
                  },
                },
              },
            },
          },
        },
      },
    ],
  },
};
