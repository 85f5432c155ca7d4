// A new user's first commands against the demo cluster (issue 35): `kubectl apply -f` with
// validation on and `kubectl create configmap` (a protobuf body), with the demo's kubeconfig.
import { afterEach, describe, expect, it, jest } from '@jest/globals';
import { DemoCluster } from '../../src/cli/demo/DemoCluster.js';
import { Kubectl } from '../testing/fakeKubeApiServer/kubectl.js';

jest.setTimeout(120_000);

describe('kubectl against the demo cluster', () => {
  let demo: DemoCluster | undefined;
  let kubectl: Kubectl | undefined;
  afterEach(async () => {
    await kubectl?.cleanup();
    await demo?.stop();
  });

  it('apply -f (validation on), create configmap, explain', async () => {
    demo = await DemoCluster.start({ faultEveryMs: 0 });
    kubectl = await Kubectl.withKubeConfig(demo.kubeConfigPath);
    const manifest = await kubectl.manifest(
      'cm.yaml',
      'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: app-config}\ndata: {mode: demo}\n',
    );
    // The demo's context is the shop namespace.
    expect(await kubectl.ok('apply', '-f', manifest)).toBe('configmap/app-config created\n');
    expect(await kubectl.ok('create', 'configmap', 'site-config', '--from-literal=x=1')).toBe(
      'configmap/site-config created\n',
    );
    const json = JSON.parse(await kubectl.ok('get', 'configmap', 'site-config', '-o', 'json'));
    expect([json.metadata.namespace, json.data]).toEqual([DemoCluster.namespace, { x: '1' }]);
    expect(await kubectl.ok('explain', 'deployment.spec.replicas')).toMatch(
      /FIELD: replicas <integer>/,
    );
  });
});
