// Field ownership and the status subresource, on the server's apply functions (the server has
// no /status route for them yet): an apply through status changes and owns status only, an apply
// to the object does not own status, as kube-apiserver resets those fields per endpoint.
import { describe, expect, it } from '@jest/globals';
import { deployments } from '../../../../src/objects/resources.js';
import { applyConfig } from '../../../../src/testing/fakeKubeApiServer/apply/fieldManager.js';
import { trackingFor } from '../../../../src/testing/fakeKubeApiServer/apply/track.js';
import { ObjectStore } from '../../../../src/testing/fakeKubeApiServer/ObjectStore.js';
import { ResourceTypes } from '../../../../src/testing/fakeKubeApiServer/ResourceTypes.js';
import { owners } from './applyClient.js';

const types = new ResourceTypes();
const ctx = { types, objects: new ObjectStore(100, types) };
const onObject = trackingFor(ctx, deployments, 'Deployment', 'apps/v1');
const onStatus = trackingFor(ctx, deployments, 'Deployment', 'apps/v1', 'status');

const config = (spec: Record<string, unknown>, status?: Record<string, unknown>) => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'web', namespace: 'default' },
  spec,
  ...(status !== undefined ? { status } : {}),
});

describe('server-side apply and the status subresource', () => {
  it('an apply to the object does not own status', () => {
    const obj = applyConfig(
      undefined,
      config({ replicas: 1 }, { replicas: 5 }),
      'alice',
      false,
      onObject,
    );
    expect(owners(obj)).toEqual({ 'alice/Apply': { 'f:spec': { 'f:replicas': {} } } });
  });

  it('an apply through status changes status only, and owns it in a status entry', () => {
    const live = applyConfig(undefined, config({ replicas: 1 }), 'alice', false, onObject);
    const obj = applyConfig(
      live,
      config({ replicas: 9 }, { readyReplicas: 1 }),
      'controller',
      false,
      onStatus,
      { subresource: 'status' },
    );
    expect(obj.spec).toEqual({ replicas: 1 });
    expect(obj.status).toEqual({ readyReplicas: 1 });
    expect(owners(obj)).toEqual({
      'alice/Apply': { 'f:spec': { 'f:replicas': {} } },
      'controller/Apply/status': { 'f:status': { 'f:readyReplicas': {} } },
    });
    // Another status manager with another value conflicts, named with its subresource.
    expect(() =>
      applyConfig(obj, config({}, { readyReplicas: 2 }), 'other', false, onStatus, {
        subresource: 'status',
      }),
    ).toThrow(
      'Apply failed with 1 conflict: conflict with "controller" with subresource "status": .status.readyReplicas',
    );
  });
});
