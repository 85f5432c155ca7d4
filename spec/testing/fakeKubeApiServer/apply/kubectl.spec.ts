// The real kubectl (1.32) against a TLS FakeKubeApiServer: server-side apply by two managers (a
// conflict, then --force-conflicts), client-side apply, and --show-managed-fields.
// --validate=false: kubectl's validation downloads OpenAPI, which the server does not publish yet.
import { beforeEach, describe, expect, it, jest } from '@jest/globals';
import { load } from 'js-yaml';
import { configmaps } from '../../../../src/objects/resources.js';
import type { FakeKubeApiServer } from '../../../../src/testing/fakeKubeApiServer/FakeKubeApiServer.js';
import type { Kubectl } from '../kubectl.js';
import { kubectlHarness } from '../kubectl.js';

const CM = (value: string, extra = ''): string => `apiVersion: v1
kind: ConfigMap
metadata:
  name: site
data:
  color: "${value}"
${extra}`;

jest.setTimeout(90_000);

describe('kubectl apply against FakeKubeApiServer', () => {
  const harness = kubectlHarness({ token: 'kubectl-token' });
  let server: FakeKubeApiServer;
  let kubectl: Kubectl;
  beforeEach(() => {
    ({ server, kubectl } = harness);
  });

  /** `manager/operation` → fieldsV1 of the config map, as kubectl shows them. */
  async function shownOwners(): Promise<Record<string, unknown>> {
    const yaml = await kubectl.ok(
      'get',
      'configmap',
      'site',
      '-o',
      'yaml',
      '--show-managed-fields',
    );
    const obj = load(yaml) as any;
    const out: Record<string, unknown> = {};
    for (const e of obj.metadata.managedFields) out[`${e.manager}/${e.operation}`] = e.fieldsV1;
    return out;
  }

  it('apply --server-side by two managers: a conflict (non-zero exit, the conflict shown), then --force-conflicts', async () => {
    const first = await kubectl.manifest('first.yaml', CM('blue', '  size: "1"'));
    expect(await kubectl.ok('apply', '--server-side', '-f', first, '--validate=false')).toBe(
      'configmap/site serverside-applied\n',
    );
    const second = await kubectl.manifest('second.yaml', CM('red'));
    const refused = await kubectl.run(
      'apply',
      '--server-side',
      '--field-manager=painter',
      '-f',
      second,
      '--validate=false',
    );
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain(
      'Apply failed with 1 conflict: conflict with "kubectl": .data.color',
    );
    expect(server.get(configmaps, 'default', 'site')?.data).toEqual({ color: 'blue', size: '1' });

    expect(
      await kubectl.ok(
        'apply',
        '--server-side',
        '--field-manager=painter',
        '--force-conflicts',
        '-f',
        second,
        '--validate=false',
      ),
    ).toBe('configmap/site serverside-applied\n');
    expect(server.get(configmaps, 'default', 'site')?.data).toEqual({ color: 'red', size: '1' });
    expect(await shownOwners()).toEqual({
      'kubectl/Apply': { 'f:data': { 'f:size': {} } },
      'painter/Apply': { 'f:data': { 'f:color': {} } },
    });
    // Without the flag kubectl hides them (the server still sends them).
    expect(await kubectl.ok('get', 'configmap', 'site', '-o', 'yaml')).not.toContain(
      'managedFields',
    );
  });

  it('client-side apply: Update entries of kubectl-client-side-apply; then apply --server-side by another manager conflicts, by kubectl takes over', async () => {
    const manifest = await kubectl.manifest('cm.yaml', CM('blue'));
    expect(await kubectl.ok('apply', '-f', manifest, '--validate=false')).toBe(
      'configmap/site created\n',
    );
    await kubectl.manifest('cm.yaml', CM('green', '  size: "2"'));
    expect(await kubectl.ok('apply', '-f', manifest, '--validate=false')).toBe(
      'configmap/site configured\n',
    );
    expect(await shownOwners()).toEqual({
      'kubectl-client-side-apply/Update': {
        'f:data': { '.': {}, 'f:color': {}, 'f:size': {} },
        'f:metadata': {
          'f:annotations': {
            '.': {},
            'f:kubectl.kubernetes.io/last-applied-configuration': {},
          },
        },
      },
    });
    // Server-side apply by another manager conflicts with the client-side applier...
    const red = await kubectl.manifest('red.yaml', CM('red'));
    const other = await kubectl.run(
      'apply',
      '--server-side',
      '--field-manager=other',
      '-f',
      red,
      '--validate=false',
    );
    expect(other.code).not.toBe(0);
    expect(other.stderr).toContain(
      'Apply failed with 1 conflict: conflict with "kubectl-client-side-apply" using v1: .data.color',
    );
    // ...but kubectl's own (manager kubectl) takes over what its last-applied annotation still
    // says (the server allows it), writes the applied configuration into the annotation, and
    // kubectl then moves the client-side applier's fields to its own manager (csaupgrade) and
    // applies again: size, which the configuration no longer has, goes.
    expect(await kubectl.ok('apply', '--server-side', '-f', red, '--validate=false')).toBe(
      'configmap/site serverside-applied\n',
    );
    const live = server.get(configmaps, 'default', 'site')!;
    expect(live.data).toEqual({ color: 'red' });
    const annotation =
      live.metadata?.annotations?.['kubectl.kubernetes.io/last-applied-configuration'];
    expect(JSON.parse(annotation!).data).toEqual({ color: 'red' });
    expect(await shownOwners()).toEqual({
      'kubectl-last-applied/Apply': {
        'f:metadata': {
          'f:annotations': { 'f:kubectl.kubernetes.io/last-applied-configuration': {} },
        },
      },
      'kubectl/Apply': { 'f:data': { 'f:color': {} } },
    });
  });
});
