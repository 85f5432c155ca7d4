/**
 * The tenant-operator without a server: the desired objects of a Tenant, its status over
 * virtual time (the `now` each run is given), and one reconcile's writes and Events against a
 * recording context.
 *
 *   npm run spec -- examples/tenant-operator/desired.spec.ts
 */
import { describe, expect, it } from '@jest/globals';
import { WatchError, type ResourceRef } from '../../src/index.js';
import {
  desiredNamespace,
  desiredQuota,
  desiredRoleBinding,
  desiredStatus,
  registryPatch,
} from './desired.js';
import { reconcileTenant, type TenantContext } from './tenantOperator.js';
import { tenants, type Tenant } from './tenant.types.js';

const T0 = new Date('2026-12-01T10:00:00Z');
const T1 = new Date('2026-12-01T10:05:00Z');

function tenant(extra: Partial<Tenant> = {}, spec: Partial<Tenant['spec']> = {}): Tenant {
  return {
    apiVersion: 'example.com/v1alpha1',
    kind: 'Tenant',
    metadata: { name: 'team-a', uid: 'uid-team-a', generation: 1, ...extra.metadata },
    spec: { owner: 'alice', admins: ['bob', 'alice'], quota: { cpu: '4', pods: 10 }, ...spec },
    ...(extra.status ? { status: extra.status } : {}),
  };
}

describe('the desired objects of a Tenant', () => {
  it('names the namespace tenant-<name> and makes the Tenant the controller owner of each child', () => {
    const owner = { kind: 'Tenant', name: 'team-a', uid: 'uid-team-a', controller: true };
    const ns = desiredNamespace(tenant());
    expect(ns.metadata).toMatchObject({ name: 'tenant-team-a', ownerReferences: [owner] });
    expect(ns.metadata).not.toHaveProperty('namespace');
    expect(desiredQuota(tenant())?.metadata).toMatchObject({ namespace: 'tenant-team-a' });
    expect(desiredRoleBinding(tenant()).metadata.ownerReferences).toMatchObject([owner]);
  });

  it('maps spec.quota to hard limits, int-or-string pods as a string, and no quota to none', () => {
    expect(desiredQuota(tenant())?.spec.hard).toEqual({ 'requests.cpu': '4', pods: '10' });
    expect(desiredQuota(tenant({}, { quota: { memory: '8Gi', pods: '5' } }))?.spec.hard).toEqual({
      'requests.memory': '8Gi',
      pods: '5',
    });
    expect(desiredQuota(tenant({}, { quota: undefined }))).toBeUndefined();
    expect(desiredQuota(tenant({}, { quota: {} }))).toBeUndefined();
  });

  it('binds the admin ClusterRole to the owner and each admin once', () => {
    const binding = desiredRoleBinding(tenant());
    expect(binding.roleRef).toEqual({
      apiGroup: 'rbac.authorization.k8s.io',
      kind: 'ClusterRole',
      name: 'admin',
    });
    expect(binding.subjects.map((s) => s.name)).toEqual(['alice', 'bob']);
  });

  it('sets the registry entry, and removes it with null (a merge patch)', () => {
    expect(registryPatch(tenant(), true)).toEqual({ data: { 'team-a': 'tenant-team-a' } });
    expect(registryPatch(tenant(), false)).toEqual({ data: { 'team-a': null } });
  });
});

describe('the status of a Tenant over time', () => {
  it('is Ready True at the first success, then unchanged (undefined: no write) until something changes', () => {
    const first = desiredStatus(tenant(), { ready: true }, T0)!;
    expect(first).toEqual({
      namespace: 'tenant-team-a',
      observedGeneration: 1,
      conditions: [
        {
          type: 'Ready',
          status: 'True',
          reason: 'Provisioned',
          message: 'namespace tenant-team-a provisioned',
          lastTransitionTime: '2026-12-01T10:00:00Z',
          observedGeneration: 1,
        },
      ],
    });
    expect(desiredStatus(tenant({ status: first }), { ready: true }, T1)).toBeUndefined();
  });

  it('keeps the transition time when only the generation moves, and moves it when Ready flips', () => {
    const first = desiredStatus(tenant(), { ready: true }, T0)!;
    const regenerated = tenant({ metadata: { generation: 2 }, status: first });
    const second = desiredStatus(regenerated, { ready: true }, T1)!;
    expect(second.observedGeneration).toBe(2);
    expect(second.conditions?.[0]).toMatchObject({
      observedGeneration: 2,
      lastTransitionTime: '2026-12-01T10:00:00Z',
    });
    const failed = desiredStatus(regenerated, { ready: false, message: 'forbidden' }, T1)!;
    expect(failed.conditions?.[0]).toMatchObject({
      status: 'False',
      reason: 'ProvisioningFailed',
      message: 'forbidden',
      lastTransitionTime: '2026-12-01T10:05:00Z',
    });
    expect(failed.namespace).toBe('tenant-team-a'); // the one provisioned before stays named
  });
});

/** A context that records every write and Event, failing the writes `fail` names. */
function recordingContext(fail: (call: string) => Error | undefined = () => undefined) {
  const calls: string[] = [];
  const events: string[] = [];
  const write =
    (plural: string, verb: string) =>
    async (...args: unknown[]) => {
      const call = `${verb} ${plural}`;
      calls.push(call);
      const error = fail(call);
      if (error) throw error;
      return verb === 'patch' && plural === 'tenants' ? args[1] : args[0];
    };
  const api = (resource: ResourceRef<unknown>) => {
    const { plural } = resource;
    return {
      apply: write(plural, 'apply'),
      create: write(plural, 'create'),
      delete: write(plural, 'delete'),
      patch: async (name: string, patch: unknown, options: object) => {
        await write(plural, 'patch')(name, patch, options);
        // The finalizer's JSON patch answers with the object it made.
        return plural === 'tenants' ? withFinalizer(tenant()) : patch;
      },
      status: { apply: write(plural, 'status.apply') },
    };
  };
  const ctx = {
    api,
    resource: tenants,
    signal: new AbortController().signal,
    recorder: {
      record: (_object: unknown, e: { type: string; reason: string }) =>
        void events.push(`${e.type} ${e.reason}`),
      close: () => undefined,
    },
  } as unknown as TenantContext;
  return { ctx, calls, events };
}

const withFinalizer = (t: Tenant): Tenant => ({
  ...t,
  metadata: { ...t.metadata, finalizers: ['tenants.example.com/cleanup'] },
});

describe('one reconcile of a Tenant', () => {
  it('adds the finalizer before anything else, provisions, writes the status, records Provisioned', async () => {
    const { ctx, calls, events } = recordingContext();
    await reconcileTenant(tenant(), ctx);
    expect(calls).toEqual([
      'patch tenants', // the finalizer, first
      'apply namespaces',
      'apply resourcequotas',
      'apply rolebindings',
      'patch configmaps',
      'status.apply tenants',
    ]);
    expect(events).toEqual(['Normal Provisioned']);
  });

  it('says nothing and writes no status when all is already as it should be', async () => {
    const { ctx, calls, events } = recordingContext();
    const status = desiredStatus(tenant(), { ready: true }, T0);
    await reconcileTenant(withFinalizer(tenant({ status })), ctx);
    expect(calls).not.toContain('status.apply tenants');
    expect(events).toEqual([]);
  });

  it('creates the registry when it is missing, and deletes a quota no longer asked for', async () => {
    const notFound = new WatchError('not found', {
      errorType: 'NOT_FOUND',
      statusCode: 404,
      resourcePath: '/api/v1/namespaces/tenant-system/configmaps/tenant-registry',
    });
    const { ctx, calls } = recordingContext((call) =>
      call === 'patch configmaps' || call === 'delete resourcequotas' ? notFound : undefined,
    );
    await reconcileTenant(withFinalizer(tenant({}, { quota: undefined })), ctx);
    expect(calls).toContain('delete resourcequotas');
    expect(calls).toContain('create configmaps');
  });

  it('on a failed write: a Warning, Ready False through the status, and the run fails (to back off)', async () => {
    const forbidden = new WatchError('forbidden', {
      errorType: 'FORBIDDEN',
      statusCode: 403,
      resourcePath: '/apis/rbac.authorization.k8s.io/v1/namespaces/tenant-team-a/rolebindings',
    });
    const { ctx, calls, events } = recordingContext((call) =>
      call === 'apply rolebindings' ? forbidden : undefined,
    );
    await expect(reconcileTenant(withFinalizer(tenant()), ctx)).rejects.toBe(forbidden);
    expect(events).toEqual(['Warning ProvisioningFailed']);
    expect(calls.at(-1)).toBe('status.apply tenants');
    expect(calls).not.toContain('patch configmaps');
  });

  it('fails with the error of the write even when the status write fails too', async () => {
    const forbidden = new WatchError('forbidden', {
      errorType: 'FORBIDDEN',
      statusCode: 403,
      resourcePath: '/api/v1/namespaces/tenant-team-a',
    });
    const statusDown = new Error('status down');
    const { ctx } = recordingContext((call) =>
      call === 'apply namespaces'
        ? forbidden
        : call === 'status.apply tenants'
          ? statusDown
          : undefined,
    );
    const failure = reconcileTenant(withFinalizer(tenant()), ctx);
    await expect(failure).rejects.toBe(forbidden);
  });

  it('on deletion: removes the registry entry, then the finalizer, and records Deprovisioned', async () => {
    const { ctx, calls, events } = recordingContext();
    const deleting = withFinalizer(tenant({ metadata: { deletionTimestamp: T1 } }));
    await reconcileTenant(deleting, ctx);
    expect(calls).toEqual(['patch configmaps', 'patch tenants']);
    expect(events).toEqual(['Normal Deprovisioned']);
  });
});
