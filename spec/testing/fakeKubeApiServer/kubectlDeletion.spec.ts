// The real kubectl (1.32) over TLS against deletion as kube-apiserver does it: a ConfigMap with a
// finalizer stays terminating after `kubectl delete --wait=false` until `kubectl patch` removes
// the finalizer; `--cascade=orphan|foreground|background` map to the propagation policies.
import { beforeEach, describe, expect, it, jest } from '@jest/globals';
import { configmaps, deployments, replicasets } from '../../../src/objects/resources.js';
import type { FakeKubeApiServer } from '../../../src/testing/fakeKubeApiServer/FakeKubeApiServer.js';
import { deployment } from '../../../src/testing/marbles/builders.js';
import type { KubernetesObject } from '../../../src/types.js';
import type { Kubectl } from './kubectl.js';
import { kubectlHarness } from './kubectl.js';

// Every kubectl run starts a process and reads discovery: slow on a loaded machine.
jest.setTimeout(90_000);

const ownedBy = (owner: KubernetesObject) => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  name: owner.metadata!.name!,
  uid: owner.metadata!.uid!,
  controller: true,
  blockOwnerDeletion: true,
});

describe('kubectl delete against FakeKubeApiServer', () => {
  const harness = kubectlHarness({ token: 'kubectl-token' });
  let server: FakeKubeApiServer;
  let kubectl: Kubectl;
  beforeEach(() => {
    ({ server, kubectl } = harness);
  });

  it('delete --wait=false leaves a finalized ConfigMap terminating; patching the finalizer away deletes it', async () => {
    server.create(configmaps, {
      metadata: { name: 'x', namespace: 'default', finalizers: ['example.com/cleanup'] },
      data: { a: '1' },
    });
    expect(await kubectl.ok('delete', 'cm', 'x', '--wait=false')).toBe('configmap "x" deleted\n');
    expect(await kubectl.ok('get', 'cm', 'x', '-o', 'name')).toBe('configmap/x\n');
    const stamp = await kubectl.ok(
      'get',
      'cm',
      'x',
      '-o',
      'jsonpath={.metadata.deletionTimestamp}',
    );
    expect(stamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    // Adding a finalizer to a terminating object is refused.
    const refused = await kubectl.run(
      'patch',
      'cm',
      'x',
      '--type=merge',
      '-p',
      '{"metadata":{"finalizers":["example.com/cleanup","example.com/more"]}}',
    );
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain(
      'no new finalizers can be added if the object is being deleted',
    );
    await kubectl.ok(
      'patch',
      'cm',
      'x',
      '--type=json',
      '-p',
      '[{"op":"remove","path":"/metadata/finalizers"}]',
    );
    const gone = await kubectl.run('get', 'cm', 'x');
    expect(gone.code).not.toBe(0);
    expect(gone.stderr).toContain('configmaps "x" not found');
  });

  it('delete deployment --cascade=orphan keeps its replicaset, its reference to the deployment removed', async () => {
    const d = server.create(deployments, deployment('web', ''));
    server.create(replicasets, {
      metadata: { name: 'web-1', namespace: 'default', ownerReferences: [ownedBy(d)] },
    });
    expect(await kubectl.ok('delete', 'deployment', 'web', '--cascade=orphan')).toBe(
      'deployment.apps "web" deleted\n',
    );
    expect(server.get(deployments, 'default', 'web')).toBeUndefined();
    const refs = await kubectl.ok(
      'get',
      'rs',
      'web-1',
      '-o',
      'jsonpath={.metadata.ownerReferences}',
    );
    expect(refs).toBe('');
  });

  it('delete deployment --cascade=foreground and the default (background) take the replicaset with it', async () => {
    const d = server.create(deployments, deployment('web', ''));
    server.create(replicasets, {
      metadata: { name: 'web-1', namespace: 'default', ownerReferences: [ownedBy(d)] },
    });
    await kubectl.ok('delete', 'deployment', 'web', '--cascade=foreground');
    expect(server.get(deployments, 'default', 'web')).toBeUndefined();
    expect(server.objects(replicasets)).toEqual([]);
    const d2 = server.create(deployments, deployment('api', ''));
    server.create(replicasets, {
      metadata: { name: 'api-1', namespace: 'default', ownerReferences: [ownedBy(d2)] },
    });
    await kubectl.ok('delete', 'deployment', 'api');
    await server.settled();
    expect(server.objects(replicasets)).toEqual([]);
  });
});
