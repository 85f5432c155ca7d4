import { afterEach, describe, expect, it } from '@jest/globals';
import { FakeKubeApiServer } from '../../../../src/testing/fakeKubeApiServer/FakeKubeApiServer.js';
import { unknownFields } from '../../../../src/testing/fakeKubeApiServer/openapi/fieldValidation.js';
import { readFields } from '../../../../src/testing/fakeKubeApiServer/protobuf/wire.js';
import { get } from '../client.js';
import https from 'node:https';

const CRONTAB_SCHEMA = {
  type: 'object',
  properties: {
    spec: {
      type: 'object',
      properties: { cronSpec: { type: 'string' }, replicas: { type: 'integer' } },
    },
    status: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
  },
};

/** Every `$ref` in a document (not the `$ref` property of JSONSchemaProps). */
function refs(value: unknown): string[] {
  if (Array.isArray(value)) return value.flatMap(refs);
  if (value === null || typeof value !== 'object') return [];
  return Object.entries(value).flatMap(([k, v]) =>
    k === '$ref' && typeof v === 'string' ? [v] : refs(v),
  );
}

describe('FakeKubeApiServer OpenAPI', () => {
  let server: FakeKubeApiServer;
  afterEach(() => server.stop());

  it('/openapi/v3 indexes each group version by a URL whose hash follows its document', async () => {
    server = await FakeKubeApiServer.start();
    const before = (await get(server, '/openapi/v3')).json.paths;
    expect(before['apis/apps/v1'].serverRelativeURL).toMatch(
      /^\/openapi\/v3\/apis\/apps\/v1\?hash=[0-9A-F]{128}$/,
    );
    expect(before['apis/stable.example.com/v1']).toBeUndefined();
    server.defineResource({
      group: 'stable.example.com',
      version: 'v1',
      plural: 'crontabs',
      kind: 'CronTab',
    });
    const middle = (await get(server, '/openapi/v3')).json.paths;
    expect(middle['apis/apps/v1']).toEqual(before['apis/apps/v1']);
    const url = middle['apis/stable.example.com/v1'].serverRelativeURL;
    server.defineResource({
      group: 'stable.example.com',
      version: 'v1',
      plural: 'crontabs',
      kind: 'CronTab',
      schema: CRONTAB_SCHEMA,
    });
    const after = (await get(server, '/openapi/v3')).json.paths;
    expect(after['apis/stable.example.com/v1'].serverRelativeURL).not.toBe(url);
  });

  it('a group version document: definitions named as kube-apiserver names them, tagged with their GVK, every $ref resolved', async () => {
    server = await FakeKubeApiServer.start();
    const r = await get(server, '/openapi/v3/apis/apps/v1');
    expect(r.status).toBe(200);
    const schemas = r.json.components.schemas;
    expect(schemas['io.k8s.api.apps.v1.Deployment']['x-kubernetes-group-version-kind']).toEqual([
      { group: 'apps', version: 'v1', kind: 'Deployment' },
    ]);
    // Descriptions and required fields from client-node's declarations.
    const spec = schemas['io.k8s.api.apps.v1.DeploymentSpec'];
    expect(spec.properties.replicas).toEqual({
      type: 'integer',
      format: 'int32',
      description:
        'Number of desired pods. This is a pointer to distinguish between explicit zero and not specified. Defaults to 1.',
    });
    expect(spec.required).toEqual(['selector', 'template']);
    expect(spec.description).toBe(
      'DeploymentSpec is the specification of the desired behavior of the Deployment.',
    );
    expect(schemas['io.k8s.api.apps.v1.Deployment'].properties.metadata).toEqual({
      $ref: '#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta',
    });
    // PodSpec belongs to core even when apps asks for it first.
    expect(schemas['io.k8s.api.core.v1.PodSpec'].properties.containers).toEqual({
      type: 'array',
      items: { $ref: '#/components/schemas/io.k8s.api.core.v1.Container' },
      'x-kubernetes-patch-strategy': 'merge',
      'x-kubernetes-patch-merge-key': 'name',
      description: expect.stringMatching(/^List of containers belonging to the pod\./),
    });
    const missing = refs(r.json).filter(
      (ref) => schemas[ref.replace('#/components/schemas/', '')] === undefined,
    );
    expect(missing).toEqual([]);
    // kubectl leaves the unknown-field check to the server when PATCH takes fieldValidation.
    const patch = r.json.paths['/apis/apps/v1/namespaces/{namespace}/deployments/{name}'].patch;
    expect(patch['x-kubernetes-group-version-kind']).toEqual({
      group: 'apps',
      version: 'v1',
      kind: 'Deployment',
    });
    expect(patch.parameters).toContainEqual({
      name: 'fieldValidation',
      in: 'query',
      schema: { type: 'string' },
    });
  });

  it("a custom resource's definition: its schema, or anything goes, with apiVersion, kind and metadata", async () => {
    server = await FakeKubeApiServer.start();
    server.defineResource({
      group: 'stable.example.com',
      version: 'v1',
      plural: 'crontabs',
      kind: 'CronTab',
      schema: CRONTAB_SCHEMA,
    });
    server.defineResource({
      group: 'stable.example.com',
      version: 'v1',
      plural: 'anythings',
      kind: 'Anything',
      namespaced: false,
    });
    const doc = (await get(server, '/openapi/v3/apis/stable.example.com/v1')).json;
    const { schemas } = doc.components;
    // A custom resource takes no strategic merge patch (kubectl then sends a merge patch).
    const patch =
      doc.paths['/apis/stable.example.com/v1/namespaces/{namespace}/crontabs/{name}'].patch;
    expect(Object.keys(patch.requestBody.content)).toEqual([
      'application/json-patch+json',
      'application/merge-patch+json',
      'application/apply-patch+yaml',
    ]);
    const crontab = schemas['com.example.stable.v1.CronTab'];
    expect(crontab.properties.spec).toEqual(CRONTAB_SCHEMA.properties.spec);
    expect(crontab.properties.metadata.$ref).toBe(
      '#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta',
    );
    expect(crontab['x-kubernetes-group-version-kind']).toEqual([
      { group: 'stable.example.com', version: 'v1', kind: 'CronTab' },
    ]);
    expect(schemas['com.example.stable.v1.Anything']['x-kubernetes-preserve-unknown-fields']).toBe(
      true,
    );
    const crd = await get(
      server,
      '/apis/apiextensions.k8s.io/v1/customresourcedefinitions/crontabs.stable.example.com',
    );
    expect(crd.json.spec.versions[0].schema.openAPIV3Schema).toEqual(CRONTAB_SCHEMA);
  });

  it('defineResource refuses a schema that is not an object', async () => {
    server = await FakeKubeApiServer.start();
    const def = { group: 'stable.example.com', version: 'v1', plural: 'crontabs', kind: 'CronTab' };
    for (const schema of [[], 'object', null]) {
      expect(() =>
        server.defineResource({ ...def, schema: schema as unknown as Record<string, unknown> }),
      ).toThrow(/defineResource: invalid schema/);
    }
    expect(
      (await get(server, '/openapi/v3')).json.paths['apis/stable.example.com/v1'],
    ).toBeUndefined();
  });

  it('/openapi/v2 is Swagger 2.0 JSON with #/definitions/ references', async () => {
    server = await FakeKubeApiServer.start();
    const r = await get(server, '/openapi/v2');
    expect(r.json.swagger).toBe('2.0');
    expect(r.json.definitions['io.k8s.api.core.v1.ConfigMap'].properties.data).toEqual({
      type: 'object',
      additionalProperties: { type: 'string' },
      description: expect.stringContaining("alphanumeric characters, '-', '_' or '.'."),
    });
    expect(refs(r.json).every((ref) => ref.startsWith('#/definitions/'))).toBe(true);
  });
});

/** GET as bytes (the spec client reads text). */
function getBytes(server: FakeKubeApiServer, path: string, accept: string) {
  return new Promise<{ type: string | undefined; body: Buffer }>((resolve, reject) => {
    const req = https.get(
      server.url + path,
      { ca: server.caPem, headers: { accept, authorization: 'Bearer test-token' } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({ type: res.headers['content-type'], body: Buffer.concat(chunks) }),
        );
      },
    );
    req.on('error', reject);
  });
}

/** The fields of a message: [number, value] in wire order. */
const fields = (buf: Buffer) => readFields(buf).map((f) => [f.no, f.value] as const);
const text = (v: unknown) => (Buffer.isBuffer(v) ? v.toString('utf8') : String(v));

describe('/openapi/v2 as protobuf (what kubectl asks for)', () => {
  let server: FakeKubeApiServer;
  afterEach(() => server.stop());

  it("encodes gnostic's openapi_v2.Document: swagger, definitions with their type, properties and GVK extension", async () => {
    server = await FakeKubeApiServer.start({ tls: true, token: 'test-token' });
    const r = await getBytes(
      server,
      '/openapi/v2',
      'application/com.github.proto-openapi.spec.v2@v1.0+protobuf',
    );
    expect(r.type).toBe('application/com.github.proto-openapi.spec.v2.v1.0+protobuf');
    const doc = fields(r.body);
    expect(text(doc.find(([no]) => no === 1)?.[1])).toBe('2.0');
    const definitions = fields(doc.find(([no]) => no === 9)![1] as Buffer).map(([, named]) => {
      const [[, name], [, schema]] = fields(named as Buffer);
      return [text(name), schema as Buffer] as const;
    });
    const deployment = fields(
      definitions.find(([name]) => name === 'io.k8s.api.apps.v1.Deployment')![1],
    );
    // type = 22 (TypeItem {value = 1}), properties = 25, vendor_extension = 31 (NamedAny {name, Any {yaml = 2}}).
    expect(text(fields(deployment.find(([no]) => no === 22)![1] as Buffer)[0][1])).toBe('object');
    const properties = fields(deployment.find(([no]) => no === 25)![1] as Buffer).map(([, named]) =>
      text(fields(named as Buffer)[0][1]),
    );
    expect(properties).toEqual(['apiVersion', 'kind', 'metadata', 'spec', 'status']);
    const [name, any] = fields(deployment.find(([no]) => no === 31)![1] as Buffer).map(
      ([, v]) => v,
    );
    expect(text(name)).toBe('x-kubernetes-group-version-kind');
    expect(JSON.parse(text(fields(any as Buffer)[0][1]))).toEqual([
      { group: 'apps', version: 'v1', kind: 'Deployment' },
    ]);
    // JSON for a client that prefers it.
    const json = await getBytes(
      server,
      '/openapi/v2',
      'application/json, application/com.github.proto-openapi.spec.v2@v1.0+protobuf',
    );
    expect([json.type, JSON.parse(json.body.toString()).swagger]).toEqual([
      'application/json',
      '2.0',
    ]);
  });
});

describe('field validation (fieldValidation)', () => {
  let server: FakeKubeApiServer | undefined;
  afterEach(async () => {
    await server?.stop();
    server = undefined;
  });
  const configMap = {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'a', colour: 'red' },
    data: { x: '1' },
    spec: {},
  };

  it('names unknown fields by their path; $-directives, maps and preserved objects pass', () => {
    const definitions = {
      Obj: {
        type: 'object',
        properties: {
          list: { type: 'array', items: { $ref: '#/components/schemas/Item' } },
          map: { type: 'object', additionalProperties: { type: 'string' } },
          free: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
        },
      },
      Item: { type: 'object', properties: { name: { type: 'string' } } },
    };
    const value = {
      list: [{ name: 'a' }, { name: 'b', nmae: 'c' }],
      map: { any: 'x' },
      free: { any: { thing: 1 } },
      $setElementOrder: [],
      extra: 1,
    };
    expect(unknownFields(value, definitions.Obj, definitions)).toEqual(['list[1].nmae', 'extra']);
  });

  it('a custom resource is checked against its schema; one defined without a schema takes anything', async () => {
    server = await FakeKubeApiServer.start();
    server.defineResource({
      group: 'stable.example.com',
      version: 'v1',
      plural: 'crontabs',
      kind: 'CronTab',
      schema: CRONTAB_SCHEMA,
    });
    server.defineResource({
      group: 'stable.example.com',
      version: 'v1',
      plural: 'anythings',
      kind: 'Anything',
    });
    const post = (plural: string, kind: string) =>
      get(
        server!,
        `/apis/stable.example.com/v1/namespaces/default/${plural}?fieldValidation=Strict`,
        {
          method: 'POST',
          body: {
            apiVersion: 'stable.example.com/v1',
            kind,
            metadata: { name: 'a' },
            spec: { cronSpec: '* * * * *', cronspec: 'x' },
            status: { free: 1 },
          },
        },
      );
    const refused = await post('crontabs', 'CronTab');
    expect([refused.status, refused.json.message]).toEqual([
      400,
      'CronTab in version "v1" cannot be handled as a CronTab: strict decoding error: unknown field "spec.cronspec"',
    ]);
    expect((await post('anythings', 'Anything')).status).toBe(201);
  });

  it("Warn's warnings come before a finalizer's, in one Warning header", async () => {
    server = await FakeKubeApiServer.start();
    const r = await get(server, '/api/v1/namespaces/default/configmaps', {
      method: 'POST',
      body: { metadata: { name: 'a', finalizers: ['keep'] }, colour: 'red' },
    });
    expect(r.status).toBe(201);
    expect(r.headers.warning).toMatch(
      /^299 - "unknown field \\"colour\\"", 299 - "metadata.finalizers: \\"keep\\": prefer a domain-qualified finalizer name/,
    );
  });

  it('Strict: 400 as kube-apiserver words it, nothing stored', async () => {
    server = await FakeKubeApiServer.start();
    const r = await get(server, '/api/v1/namespaces/default/configmaps?fieldValidation=Strict', {
      method: 'POST',
      body: configMap,
    });
    expect([r.status, r.json.reason, r.json.message]).toEqual([
      400,
      'BadRequest',
      'ConfigMap in version "v1" cannot be handled as a ConfigMap: strict decoding error: unknown field "metadata.colour", unknown field "spec"',
    ]);
    expect((await get(server, '/api/v1/namespaces/default/configmaps/a')).status).toBe(404);
  });

  it('Warn (the default): created, one Warning per unknown field; Ignore: no warning; anything else: 400', async () => {
    server = await FakeKubeApiServer.start();
    const warned = await get(server, '/api/v1/namespaces/default/configmaps', {
      method: 'POST',
      body: configMap,
    });
    expect(warned.status).toBe(201);
    expect(warned.headers.warning).toBe(
      '299 - "unknown field \\"metadata.colour\\"", 299 - "unknown field \\"spec\\""',
    );
    const patched = await get(
      server,
      '/api/v1/namespaces/default/configmaps/a?fieldValidation=Ignore',
      {
        method: 'PATCH',
        contentType: 'application/merge-patch+json',
        body: { data: { y: '2' }, nope: true },
      },
    );
    expect([patched.status, patched.headers.warning, patched.json.data]).toEqual([
      200,
      undefined,
      { x: '1', y: '2' },
    ]);
    const strictPatch = await get(
      server,
      '/api/v1/namespaces/default/configmaps/a?fieldValidation=Strict',
      {
        method: 'PATCH',
        contentType: 'application/strategic-merge-patch+json',
        body: { data: { z: '3' }, nope: true },
      },
    );
    expect([strictPatch.status, strictPatch.json.message]).toEqual([
      400,
      'ConfigMap in version "v1" cannot be handled as a ConfigMap: strict decoding error: unknown field "nope"',
    ]);
    const bad = await get(server, '/api/v1/namespaces/default/configmaps?fieldValidation=Loud', {
      method: 'POST',
      body: { metadata: { name: 'b' } },
    });
    expect([bad.status, bad.json.message]).toEqual([
      400,
      'fieldValidation: Unsupported value: "Loud": supported values: "Ignore", "Strict", "Warn"',
    ]);
  });
});
