// The real kubectl (1.32) over TLS with what needs OpenAPI and protobuf: `apply -f` and
// `create -f` with validation on (its default), `explain`, and `kubectl create <kind>`, which
// sends built-in kinds as protobuf.
import { beforeEach, describe, expect, it, jest } from '@jest/globals';
import type { FakeKubeApiServer } from '../../../src/testing/fakeKubeApiServer/FakeKubeApiServer.js';
import type { Kubectl } from './kubectl.js';
import { kubectlHarness } from './kubectl.js';

const CONFIG_MAP = `apiVersion: v1
kind: ConfigMap
metadata: {name: site-config}
data: {x: "1"}
`;

const BAD_DEPLOYMENT = `apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  replicas: 1
  replica: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers: [{name: main, image: nginx, imagePullPolicyy: Always}]
`;

jest.setTimeout(120_000);

describe('kubectl with OpenAPI and protobuf against FakeKubeApiServer', () => {
  const harness = kubectlHarness({ token: 'kubectl-token' });
  let server: FakeKubeApiServer;
  let kubectl: Kubectl;
  beforeEach(() => {
    ({ server, kubectl } = harness);
  });

  const writes = () => server.requests.filter((r) => r.method !== 'GET');

  it('apply -f with validation on: created then unchanged; kubectl read /openapi/v3 and asked for Strict', async () => {
    const manifest = await kubectl.manifest('cm.yaml', CONFIG_MAP);
    expect(await kubectl.ok('apply', '-f', manifest)).toBe('configmap/site-config created\n');
    expect(await kubectl.ok('apply', '-f', manifest)).toBe('configmap/site-config unchanged\n');
    const json = JSON.parse(await kubectl.ok('get', 'configmap', 'site-config', '-o', 'json'));
    expect(json.data).toEqual({ x: '1' });
    expect(writes().map((r) => `${r.method} ${r.status} ${r.query.fieldValidation}`)).toEqual([
      'POST 201 Strict',
    ]);
    const openapi = server.requests.filter((r) => r.path.startsWith('/openapi/v3'));
    expect(openapi.map((r) => r.path)).toContain('/openapi/v3/api/v1');
    expect(openapi.every((r) => r.status === 200)).toBe(true);
  });

  it('apply -f and create -f with unknown fields fail as on a cluster (strict decoding error), nothing stored', async () => {
    const manifest = await kubectl.manifest('bad.yaml', BAD_DEPLOYMENT);
    for (const verb of ['apply', 'create']) {
      const r = await kubectl.run(verb, '-f', manifest);
      expect(r.code).toBe(1);
      expect(r.stderr).toBe(
        `Error from server (BadRequest): error when creating "${manifest}": Deployment in version "v1" cannot be handled as a Deployment: strict decoding error: unknown field "spec.replica", unknown field "spec.template.spec.containers[0].imagePullPolicyy"\n`,
      );
    }
    expect(writes().map((r) => r.status)).toEqual([400, 400]);
    expect(await kubectl.ok('get', 'deployments', '-o', 'name')).toBe('');
  });

  it('a custom resource with a schema: apply -f validated against it, an unknown field refused', async () => {
    server.defineResource({
      group: 'stable.example.com',
      version: 'v1',
      plural: 'crontabs',
      kind: 'CronTab',
      schema: {
        type: 'object',
        properties: { spec: { type: 'object', properties: { cronSpec: { type: 'string' } } } },
      },
    });
    const crontab = (spec: string) =>
      kubectl.manifest(
        'ct.yaml',
        `apiVersion: stable.example.com/v1\nkind: CronTab\nmetadata: {name: nightly}\nspec: ${spec}\n`,
      );
    const bad = await crontab('{cronSpec: "0 3 * * *", cronspec: x}');
    const r = await kubectl.run('apply', '-f', bad);
    expect([r.code, r.stderr]).toEqual([
      1,
      `Error from server (BadRequest): error when creating "${bad}": CronTab in version "v1" cannot be handled as a CronTab: strict decoding error: unknown field "spec.cronspec"\n`,
    ]);
    expect(await kubectl.ok('apply', '-f', await crontab('{cronSpec: "0 3 * * *"}'))).toBe(
      'crontab.stable.example.com/nightly created\n',
    );
    expect(await kubectl.ok('apply', '-f', await crontab('{cronSpec: "0 4 * * *"}'))).toBe(
      'crontab.stable.example.com/nightly configured\n',
    );
    expect(writes().map((r) => `${r.method} ${r.status} ${r.headers['content-type']}`)).toEqual([
      'POST 400 application/json',
      'POST 201 application/json',
      'PATCH 200 application/merge-patch+json',
    ]);
  });

  it('kubectl create configmap|secret|deployment|namespace|serviceaccount|role|rolebinding: protobuf bodies decoded', async () => {
    const created = async (...args: string[]) => kubectl.ok('create', ...args);
    expect(await created('configmap', 'site-config', '--from-literal=x=1')).toBe(
      'configmap/site-config created\n',
    );
    expect(await created('secret', 'generic', 'db', '--from-literal=password=hunter2')).toBe(
      'secret/db created\n',
    );
    expect(await created('deployment', 'web', '--image=nginx', '--replicas=2', '--port=80')).toBe(
      'deployment.apps/web created\n',
    );
    expect(await created('namespace', 'team-a')).toBe('namespace/team-a created\n');
    expect(await created('serviceaccount', 'robot')).toBe('serviceaccount/robot created\n');
    expect(await created('role', 'reader', '--verb=get', '--verb=list', '--resource=pods')).toBe(
      'role.rbac.authorization.k8s.io/reader created\n',
    );
    expect(await created('rolebinding', 'read', '--role=reader', '--user=alice')).toBe(
      'rolebinding.rbac.authorization.k8s.io/read created\n',
    );
    expect(writes().map((r) => `${r.status} ${r.headers['content-type']}`)).toEqual(
      Array(7).fill('201 application/vnd.kubernetes.protobuf'),
    );

    const get = async (...args: string[]) =>
      JSON.parse(await kubectl.ok('get', ...args, '-o', 'json'));
    expect((await get('configmap', 'site-config')).data).toEqual({ x: '1' });
    expect((await get('secret', 'db')).data).toEqual({
      password: Buffer.from('hunter2').toString('base64'),
    });
    const deployment = await get('deployment', 'web');
    expect(deployment.spec).toMatchObject({
      replicas: 2,
      selector: { matchLabels: { app: 'web' } },
      template: {
        metadata: { labels: { app: 'web' } },
        spec: { containers: [{ name: 'nginx', image: 'nginx', ports: [{ containerPort: 80 }] }] },
      },
    });
    expect((await get('namespace', 'team-a')).metadata.name).toBe('team-a');
    expect((await get('serviceaccount', 'robot')).metadata.namespace).toBe('default');
    expect((await get('role', 'reader')).rules).toEqual([
      { apiGroups: [''], resources: ['pods'], verbs: ['get', 'list'] },
    ]);
    const binding = await get('rolebinding', 'read');
    expect([binding.roleRef, binding.subjects]).toEqual([
      { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'reader' },
      [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'alice' }],
    ]);
  });

  it('explain deployment.spec.replicas, and a custom resource by its schema, from v3 and v2', async () => {
    server.defineResource({
      group: 'stable.example.com',
      version: 'v1',
      plural: 'crontabs',
      kind: 'CronTab',
      schema: {
        type: 'object',
        properties: { spec: { type: 'object', properties: { cronSpec: { type: 'string' } } } },
      },
    });
    expect(await kubectl.ok('explain', 'deployment.spec.replicas')).toMatch(
      /^GROUP:\s+apps\nKIND:\s+Deployment\nVERSION:\s+v1\n\nFIELD: replicas <integer>\n\n\nDESCRIPTION:\n\s+Number of desired pods\./,
    );
    expect(await kubectl.ok('explain', 'deployment.spec')).toMatch(
      /^ {2}selector\t<LabelSelector> -required-$/m,
    );
    const crontab = await kubectl.ok('explain', 'crontab');
    expect(crontab).toMatch(/^GROUP:\s+stable.example.com\nKIND:\s+CronTab\nVERSION:\s+v1\n/);
    expect([...crontab.matchAll(/^ {2}(\w+)\t<(\w+)>$/gm)].map((m) => `${m[1]} ${m[2]}`)).toEqual([
      'apiVersion string',
      'kind string',
      'metadata ObjectMeta',
      'spec Object',
    ]);
    expect(await kubectl.ok('explain', 'crontab.spec')).toMatch(/^ {2}cronSpec\t<string>$/m);
    // The same from /openapi/v2, which kubectl reads only as protobuf.
    expect(
      await kubectl.ok('explain', 'deployment.spec.replicas', '--output=plaintext-openapiv2'),
    ).toMatch(/^KIND:\s+Deployment\nVERSION:\s+apps\/v1\n\nFIELD:\s+replicas <integer>\n/);
    expect(await kubectl.ok('explain', 'crontab.spec', '--output=plaintext-openapiv2')).toMatch(
      /^ {3}cronSpec\t<string>$/m,
    );
  });
});
