import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { V1ConfigMap } from '@kubernetes/client-node';
import { resourceApi } from '../../../src/client/write/resourceApi.js';
import { WatchError } from '../../../src/WatchError.js';
import { configmaps, deployments, namespaces } from '../../../src/objects/resources.js';
import { FakeKubeApiServer } from '../../../src/testing/fakeKubeApiServer/FakeKubeApiServer.js';
import type { ResourceRef } from '../../../src/types.js';

// Bad input is refused with BAD_REQUEST before anything is sent: the server sees no request.
describe('resourceApi refuses bad input before sending', () => {
  let server: FakeKubeApiServer;
  beforeAll(async () => {
    server = await FakeKubeApiServer.start({ bookmarkIntervalMs: 0 });
  });
  afterAll(() => server.stop());

  /** Runs `call`, expects a BAD_REQUEST rejection and no request; returns its message. */
  const refused = async (call: () => Promise<unknown>): Promise<string> => {
    server.requests.length = 0;
    const error = await call().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(WatchError);
    expect(error).toMatchObject({ errorType: 'BAD_REQUEST', statusCode: 400 });
    expect(server.requests).toEqual([]);
    return (error as WatchError).message;
  };
  const anything = (value: unknown) => value as never;

  it('invalid names and namespaces, a missing namespace, a namespace on a cluster-scoped kind', async () => {
    const cms = resourceApi(server.kubeConfig(), configmaps);
    for (const name of ['Bad_Name', 'a/b', '..', '', 'x'.repeat(254), 'a?b=c', anything(7)]) {
      await refused(() => cms.get(name, { namespace: 'ns' }));
      await refused(() => cms.delete(name, { namespace: 'ns' }));
      await refused(() => cms.patch(name, {}, { namespace: 'ns', type: 'merge' }));
      await refused(() => cms.replace({ metadata: { name, namespace: 'ns' } }));
      await refused(() =>
        cms.apply({ metadata: { name, namespace: 'ns' } }, { fieldManager: 'm' }),
      );
    }
    await refused(() => cms.create({ metadata: { name: 'UPPER', namespace: 'ns' } }));
    for (const namespace of ['NS', 'a/b', 'a.b', '', '-x', 'x'.repeat(64)]) {
      await refused(() => cms.get('a', { namespace }));
      await refused(() => cms.list({ namespace }));
      await refused(() => cms.create({ metadata: { name: 'a' } }, { namespace }));
    }
    // A namespaced resource needs one (never defaulted); a list may span them all.
    expect(await refused(() => cms.get('a'))).toMatch(/namespaced/);
    await refused(() => cms.create({ metadata: { name: 'a' } }));
    await refused(() => cms.apply({ metadata: { name: 'a' } }, { fieldManager: 'm' }));
    // The option and the object disagree.
    await refused(() =>
      cms.create({ metadata: { name: 'a', namespace: 'x' } }, { namespace: 'y' }),
    );
    const ns = resourceApi(server.kubeConfig(), namespaces);
    expect(await refused(() => ns.get('default', { namespace: 'default' }))).toMatch(
      /cluster-scoped/,
    );
    await refused(() => ns.list({ namespace: 'default' }));
  });

  it('field managers as the server validates them: 1..128 bytes of printable characters, required to apply', async () => {
    const api = resourceApi(server.kubeConfig(), deployments);
    const config = { metadata: { name: 'web', namespace: 'shop' } };
    await refused(() => api.apply(config, anything({})));
    await refused(() => api.apply(config, anything(undefined)));
    await refused(() => api.apply(config, { fieldManager: '' }));
    for (const fieldManager of [
      'a'.repeat(129),
      '€'.repeat(43),
      'tab\there',
      'new\nline',
      'esc\u001b',
      anything(42),
    ]) {
      const message = await refused(() => api.apply(config, { fieldManager }));
      if (typeof fieldManager === 'string') expect(message).not.toContain(fieldManager);
      await refused(() => api.patch('web', {}, { namespace: 'shop', type: 'merge', fieldManager }));
      await refused(() => api.create(anything(config), { fieldManager }));
    }
    // At the bounds: 128 ASCII bytes, 42 three-byte characters, spaces and symbols are sent.
    for (const fieldManager of ['a'.repeat(128), '€'.repeat(42), 'my operator (v2) ✓']) {
      server.requests.length = 0;
      await api.apply(config, { fieldManager }).catch(() => undefined);
      expect(server.requests.map((r) => r.query.fieldManager)).toEqual([fieldManager]);
    }
  });

  it('bad refs, bodies and options', async () => {
    const refs: unknown[] = [
      { group: 'Apps', version: 'v1', plural: 'deployments' },
      { group: 'apps', version: '1', plural: 'deployments' },
      { group: '', version: 'v1', plural: 'Pods' },
      { group: '', version: 'v1', plural: 'pods', kind: 'pod' },
      { group: '', version: 'v1', plural: 'pods', namespaced: 'yes' },
      { group: 'apps', plural: 'deployments' },
      null,
    ];
    for (const ref of refs) {
      const api = resourceApi(server.kubeConfig(), ref as ResourceRef);
      await refused(() => api.get('a', { namespace: 'ns' }));
      await refused(() => api.list());
      await refused(() =>
        api.apply({ kind: 'Pod', metadata: { name: 'a', namespace: 'ns' } }, { fieldManager: 'm' }),
      );
    }
    const cms = resourceApi(server.kubeConfig(), configmaps);
    const cm = { metadata: { name: 'a', namespace: 'ns' } };
    // Bodies: not an object, no metadata, apiVersion or kind other than the ref's.
    for (const body of [null, 'a', [], {}, { metadata: 'a' }])
      await refused(() => cms.create(anything(body)));
    await refused(() => cms.create({ ...cm, apiVersion: 'v2' } as V1ConfigMap));
    await refused(() => cms.replace({ ...cm, kind: 'Secret' }));
    await refused(() => cms.apply({ ...cm, apiVersion: 'apps/v1' }, { fieldManager: 'm' }));
    // An apply needs a kind: from the config, else the ref.
    const kindless = resourceApi(server.kubeConfig(), {
      group: '',
      version: 'v1',
      plural: 'configmaps',
    });
    expect(await refused(() => kindless.apply(cm, { fieldManager: 'm' }))).toMatch(/kind/);
    // Patches: a known type, and a body of its shape.
    await refused(() => cms.patch('a', {}, anything({ namespace: 'ns', type: 'yaml' })));
    await refused(() => cms.patch('a', {}, anything({ namespace: 'ns' })));
    await refused(() => cms.patch('a', {}, anything(undefined)));
    await refused(() => cms.patch('a', { op: 'add' }, { namespace: 'ns', type: 'json' }));
    await refused(() => cms.patch('a', [], { namespace: 'ns', type: 'merge' }));
    await refused(() => cms.patch('a', null, { namespace: 'ns', type: 'strategic' }));
    // Options.
    await refused(() =>
      cms.delete('a', { namespace: 'ns', propagationPolicy: anything('Sometimes') }),
    );
    await refused(() => cms.delete('a', { namespace: 'ns', gracePeriodSeconds: -1 }));
    await refused(() => cms.delete('a', { namespace: 'ns', gracePeriodSeconds: 1.5 }));
    await refused(() => cms.delete('a', { namespace: 'ns', preconditions: anything({ uid: 5 }) }));
    await refused(() => cms.create(cm, { dryRun: anything('yes') }));
    await refused(() => cms.apply(cm, { fieldManager: 'm', force: anything('true') }));
    await refused(() =>
      cms.patch('a', {}, anything({ namespace: 'ns', type: 'merge', force: true })),
    );
    await refused(() => cms.list({ limit: -1 }));
    await refused(() => cms.list({ limit: 2.5 }));
  });
});
