import { afterEach, describe, expect, it } from '@jest/globals';
import { DashboardFeed } from '../../src/cli/dashboard/DashboardFeed.js';
import { rowKey } from '../../src/cli/dashboard/dashboardRows.js';
import { deployments, pods } from '../../src/objects/resources.js';
import { FakeKubeApiServer } from '../../src/testing/fakeKubeApiServer/FakeKubeApiServer.js';
import { deployment, pod } from '../../src/testing/marbles/builders.js';
import { until } from '../support/wait.js';

// The dashboard's one pipeline, in-process, against a real (fake) API server.
const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

describe('DashboardFeed', () => {
  it('shows a watch that fails for good (403) as failed, with its error, while the other goes on', async () => {
    const server = await FakeKubeApiServer.start();
    cleanups.push(() => server.stop());
    server.create(deployments, deployment('web', ''));
    server.create(pods, pod('web-1', ''));
    // The first of the two initial lists is refused; which one depends on who asks first.
    server.faults.fail(403, { match: 'list', message: 'you shall not list' });
    const warnings: string[] = [];
    const feed = new DashboardFeed({
      cluster: server.kubeConfig(),
      clusterName: 'fake',
      server: server.url,
      warn: (line) => warnings.push(line),
      throttleMs: 10,
    });
    feed.start();
    cleanups.push(() => feed.stop());

    await until(() => feed.status().synced, 'the feed to be as complete as it gets');
    const { sources, state, error, log } = feed.status();
    const names = Object.keys(sources) as (keyof typeof sources)[];
    const failed = names.find((source) => sources[source] === 'failed')!;
    const other = failed === 'pods' ? 'deployments' : 'pods';
    // The worst state is the page's: one failed watch is not hidden behind live ones.
    expect(names.sort()).toEqual(['deployments', 'pods', 'replicasets']);
    expect({ state, sources }).toEqual({
      state: 'failed',
      sources: { ...Object.fromEntries(names.map((n) => [n, 'live'])), [failed]: 'failed' },
    });
    expect(error).toMatch(
      new RegExp(`^forbidden: you may not list and watch ${failed}: 403 .*you shall not list`),
    );
    expect(log.map((entry) => entry.text)).toContain(error);
    expect(warnings).toContain(`kube-rx: ${error}`);

    // The surviving watch goes on: a new object of its kind reaches the rows.
    if (other === 'pods') server.create(pods, pod('web-2', ''));
    else server.create(deployments, deployment('api', ''));
    const key = other === 'pods' ? 'pod:default/web-2' : 'deployment:default/api';
    await until(() => feed.snapshot().rows.map(rowKey).includes(key), `${key} on the page`);
  });

  it('keeps pods without their managedFields (the pod watch strips them on decode)', async () => {
    const server = await FakeKubeApiServer.start();
    cleanups.push(() => server.stop());
    const managedFields = [
      { manager: 'kubelet', operation: 'Update', fieldsV1: { 'f:status': {} } },
    ];
    server.create(pods, pod('web-1', '', { metadata: { managedFields } }));
    const feed = new DashboardFeed({
      cluster: server.kubeConfig(),
      clusterName: 'fake',
      server: server.url,
      throttleMs: 10,
    });
    feed.start();
    cleanups.push(() => feed.stop());
    // Later changes come through the watch, not the list: those are stripped too.
    await until(() => feed.store()?.store('pods').synced === true, 'the pods to be listed');
    server.create(pods, pod('web-2', '', { metadata: { managedFields } }));
    const kept = () => feed.store()?.store('pods').values() ?? [];
    await until(() => kept().length === 2, 'the watched pod in the store');
    // The server sends them; the store holds none.
    expect(server.objects(pods).map((p) => p.metadata?.managedFields)).toEqual([
      managedFields,
      managedFields,
    ]);
    expect(kept().map((p) => [p.metadata?.name, p.metadata?.managedFields])).toEqual([
      ['web-1', undefined],
      ['web-2', undefined],
    ]);
  });
});
