// Apply requests kube-apiserver 1.32 refuses, each with its Status; nothing is stored.
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { FakeKubeApiServer } from '../../../../src/testing/fakeKubeApiServer/FakeKubeApiServer.js';
import { get, request } from '../client.js';
import { apply, configMap, CONFIGMAPS } from './applyClient.js';

const C = `${CONFIGMAPS}/c`;

describe('server-side apply: bad input', () => {
  let server: FakeKubeApiServer;
  beforeEach(async () => {
    server = await FakeKubeApiServer.start();
  });
  afterEach(() => server.stop());

  /** Expects `reply` to be a Status with `code`, `reason` and `message`, and `c` not stored. */
  async function refused(reply: any, code: number, reason: string, message: string) {
    expect([reply.status, reply.json?.kind, reply.json?.reason, reply.json?.message]).toEqual([
      code,
      'Status',
      reason,
      message,
    ]);
    expect((await get(server, C)).status).toBe(404);
  }

  it('a body that is not an object: 400', async () => {
    const cannot = (type: string) =>
      `error decoding YAML: error unmarshaling JSON: while decoding JSON: json: cannot unmarshal ${type} into Go value of type map[string]interface {}`;
    await refused(
      await apply(server, C, [configMap('c', {})], 'alice'),
      400,
      'BadRequest',
      cannot('array'),
    );
    await refused(
      await apply(server, C, 'just text', 'alice'),
      400,
      'BadRequest',
      cannot('string'),
    );
    await refused(
      await apply(server, C, '{ not: yaml: [', 'alice'),
      400,
      'BadRequest',
      expect.stringMatching(/^error decoding YAML: /) as any,
    );
  });

  it('an unknown field with fieldValidation=Strict (what kubectl sends): 400, as any write', async () => {
    const config = { ...configMap('c', { a: '1' }), datum: { b: '2' } };
    const reply = await apply(server, C, config, 'alice', { fieldValidation: 'Strict' });
    await refused(
      reply,
      400,
      'BadRequest',
      expect.stringContaining('strict decoding error: unknown field "datum"') as any,
    );
    // the default, Warn, stores it with a warning
    const warned = await apply(server, C, config, 'alice');
    expect(warned.status).toBe(201);
    expect(String(warned.headers.warning)).toMatch(/^299 - "unknown field .*datum/);
  });

  it('an empty body, or another kind than the URL: 400 invalid object type', async () => {
    await refused(
      await apply(server, C, '', 'alice'),
      400,
      'BadRequest',
      'invalid object type: /, Kind=',
    );
    const secret = { ...configMap('c', {}), kind: 'Secret' };
    await refused(
      await apply(server, C, secret, 'alice'),
      400,
      'BadRequest',
      'invalid object type: /v1, Kind=Secret',
    );
  });

  it('no fieldManager: 422 PatchOptions invalid, fieldManager required', async () => {
    const r = await apply(server, C, configMap('c', { a: '1' }), undefined);
    await refused(
      r,
      422,
      'Invalid',
      'PatchOptions.meta.k8s.io "" is invalid: fieldManager: Required value: is required for apply patch',
    );
    expect(r.json.details).toEqual({
      group: 'meta.k8s.io',
      kind: 'PatchOptions',
      causes: [
        {
          reason: 'FieldValueRequired',
          message: 'Required value: is required for apply patch',
          field: 'fieldManager',
        },
      ],
    });
  });

  it('a fieldManager over 128 bytes: 422 (128 is accepted)', async () => {
    const r = await apply(server, C, configMap('c', { a: '1' }), 'm'.repeat(129));
    await refused(
      r,
      422,
      'Invalid',
      'PatchOptions.meta.k8s.io "" is invalid: fieldManager: Too long: may not be more than 128 bytes',
    );
    expect((await apply(server, C, configMap('c', { a: '1' }), 'm'.repeat(128))).status).toBe(201);
  });

  it('a name that differs from the URL: 400', async () => {
    const r = await apply(server, C, configMap('other', { a: '1' }), 'alice');
    await refused(
      r,
      400,
      'BadRequest',
      'the name of the object (other) does not match the name on the URL (c)',
    );
  });

  it('a namespace that differs from the URL: 400', async () => {
    const config = { ...configMap('c', {}), metadata: { name: 'c', namespace: 'kube-system' } };
    const r = await apply(server, C, config, 'alice');
    await refused(
      r,
      400,
      'BadRequest',
      'the namespace of the object (kube-system) does not match the namespace on the request (default)',
    );
  });

  it('managedFields in the configuration: 400', async () => {
    const config = { ...configMap('c', {}), metadata: { name: 'c', managedFields: [] } };
    await refused(
      await apply(server, C, config, 'alice'),
      400,
      'BadRequest',
      'metadata.managedFields must be nil',
    );
  });

  it('force on a patch that is not an apply: 422', async () => {
    await apply(server, C, configMap('c', { a: '1' }), 'alice');
    const r = await request(
      server,
      'PATCH',
      `${C}?force=true`,
      { data: { a: '2' } },
      { contentType: 'application/merge-patch+json' },
    );
    expect([r.status, r.json.message]).toEqual([
      422,
      'PatchOptions.meta.k8s.io "" is invalid: force: Forbidden: may not be specified for non-apply patch',
    ]);
    expect((await get(server, C)).json.data).toEqual({ a: '1' });
  });

  it('dryRun=All: the created object is answered, not stored', async () => {
    const r = await apply(server, C, configMap('c', { a: '1' }), 'alice', { dryRun: 'All' });
    expect(r.status).toBe(201);
    expect(r.json.metadata.managedFields[0].manager).toBe('alice');
    expect((await get(server, C)).status).toBe(404);
  });
});
