import { afterEach, describe, expect, it } from '@jest/globals';
import { existsSync, statSync } from 'node:fs';
import { dirname, isAbsolute } from 'node:path';
import { KubeConfig, type V1Pod } from '@kubernetes/client-node';
import { ClusterSimulator } from '../../src/cli/demo/ClusterSimulator.js';
import { DemoCluster } from '../../src/cli/demo/DemoCluster.js';
import { demoDeploymentController } from '../../src/cli/demo/demoDeploymentController.js';
import { summarizePod } from '../../src/cli/format/summarizePod.js';
import { resilientWatch } from '../../src/operators/resilientWatch.js';
import { toStore, type Store } from '../../src/operators/toStore.js';
import { deployments, namespaces, nodes, pods, replicasets } from '../../src/objects/resources.js';
import { FakeKubeApiServer } from '../../src/testing/fakeKubeApiServer/FakeKubeApiServer.js';
import { mulberry32 } from '../support/seededRandom.js';
import { sleep, until } from '../support/wait.js';

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

describe('the demo cluster simulation', () => {
  it('seeds namespaces, nodes, deployments with ReplicaSets and pods', async () => {
    const server = await FakeKubeApiServer.start();
    cleanups.push(() => server.stop());
    new ClusterSimulator(server, { random: mulberry32(1) }).seed();
    expect(server.objects(namespaces).map((n) => n.metadata?.name)).toEqual([
      'default',
      'monitoring',
      'shop',
    ]);
    expect(server.objects(nodes)).toHaveLength(3);
    expect(
      server.objects(deployments).map((d) => `${d.metadata?.namespace}/${d.metadata?.name}`),
    ).toEqual([
      'default/hello',
      'monitoring/grafana',
      'monitoring/prometheus',
      'shop/cart',
      'shop/checkout',
      'shop/frontend',
    ]);
    expect(server.objects(replicasets)).toHaveLength(6);
    expect(server.objects(pods)).toHaveLength(11);
  });

  it('moves pods through their life: start, crash-loop with growing restarts, replacement, scaling', async () => {
    const server = await FakeKubeApiServer.start({ bookmarkIntervalMs: 0 });
    cleanups.push(() => server.stop());
    let now = Date.parse('2024-06-01T12:00:00Z');
    const simulator = new ClusterSimulator(server, { random: mulberry32(42), now: () => now });
    simulator.seed();
    const controller = demoDeploymentController(server.kubeConfig(), simulator).subscribe();
    cleanups.push(() => controller.unsubscribe());
    const seen = new Set<string>();
    const restartsOf = () =>
      new Map(server.objects(pods).map((p) => [p.metadata?.name, summarizePod(p).restarts]));
    const restartsBefore = restartsOf();
    // Two simulated minutes in 250 ms steps, each a few real milliseconds, so the controller
    // (over HTTP, in real time) replaces the pods the steps kill.
    for (let step = 0; step < 480; step++) {
      now += 250;
      simulator.tick();
      await sleep(3);
      for (const p of server.objects(pods)) seen.add(summarizePod(p).status);
    }
    expect([...seen]).toEqual(
      expect.arrayContaining([
        'Pending',
        'ContainerCreating',
        'Running',
        'Error',
        'CrashLoopBackOff',
        'Terminating',
      ]),
    );
    const grew = [...restartsOf()].some(
      ([name, restarts]) => restarts > (restartsBefore.get(name) ?? 0),
    );
    expect(grew).toBe(true);
    // Every deployment's status matches its pods, as its controller keeps it, and as many pods
    // as it asks for run (or are on their way), once the controller has caught up.
    const mismatches = () =>
      server.objects(deployments).flatMap((d) => {
        const own = server
          .objects(pods, d.metadata?.namespace)
          .filter((p) => p.metadata?.labels?.app === d.metadata?.name);
        const live = own.filter((p) => !p.metadata?.deletionTimestamp);
        const running = live.filter((p) => summarizePod(p).status === 'Running');
        const ok = d.status?.readyReplicas === running.length && live.length === d.spec?.replicas;
        return ok ? [] : [`${d.metadata?.name}: ${live.length}/${d.spec?.replicas}`];
      });
    await until(
      () => mismatches().length === 0,
      () => `statuses: ${mismatches().join(', ')}`,
    );
    // The simulation scaled some deployment through the API, with a new generation each time.
    expect(server.objects(deployments).some((d) => (d.metadata?.generation ?? 1) > 1)).toBe(true);
  });

  it('injects its faults in turn, and a resilient watch ends up equal to the server', async () => {
    // No timer: the spec steps the simulation itself, so that it can stop it and compare.
    const demo = await DemoCluster.start({
      tickMs: 3_600_000,
      faultEveryMs: 0,
      timeScale: 0.1,
      random: mulberry32(7),
    });
    cleanups.push(() => demo.stop());
    const faults: string[] = [];
    let latest: Store<V1Pod> | undefined;
    const subscription = resilientWatch<V1Pod>(demo.kubeConfig(), pods, {})
      .pipe(toStore())
      .subscribe((store) => (latest = store as Store<V1Pod>));
    cleanups.push(() => subscription.unsubscribe());
    const stepFor = async (ms: number) => {
      for (const end = Date.now() + ms; Date.now() < end;) {
        demo.simulator.tick();
        await sleep(50);
      }
    };
    await stepFor(500);
    for (let i = 0; i < 3; i++) {
      await demo.injectFault((what) => faults.push(what));
      await stepFor(300);
    }
    expect(faults).toEqual([
      expect.stringContaining('dropping every connection'),
      expect.stringContaining('expiring the event history'),
      expect.stringContaining('503 with Retry-After'),
    ]);
    // Once the 503s (Retry-After: 2) have passed, the watch catches up with the server. The
    // backoff's attempt count has grown over the three faults (it resets only after 2 minutes of
    // health), so the last wait can be several times the Retry-After: give it time.
    const key = (p: V1Pod) =>
      `${p.metadata?.namespace}/${p.metadata?.name}@${p.metadata?.resourceVersion}`;
    const theirs = demo.server.objects(pods).map(key);
    const ours = () => (latest?.values() ?? []).map(key);
    await until(
      () => JSON.stringify(ours()) === JSON.stringify(theirs),
      () => `the watch to equal the server: ${ours().join(' ')} against ${theirs.join(' ')}`,
      30_000,
    );
  }, 45_000);

  it('writes a kubeconfig for its TLS server into a private directory, and removes both on stop', async () => {
    const demo = await DemoCluster.start({ tickMs: 3_600_000, faultEveryMs: 0 });
    cleanups.push(() => demo.stop());
    const path = demo.kubeConfigPath;
    expect(isAbsolute(path)).toBe(true);
    // The file holds the token: only this user may read it, or even find it.
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(statSync(dirname(path)).mode & 0o777).toBe(0o700);

    const kc = new KubeConfig();
    kc.loadFromFile(path);
    expect(kc.getCurrentContext()).toBe('kube-rx-demo');
    expect(kc.getContextObject('kube-rx-demo')?.namespace).toBe('shop');
    const cluster = kc.getCurrentCluster()!;
    expect(cluster.server).toBe(demo.url);
    expect(cluster.server).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    expect(cluster.skipTLSVerify).toBe(false);
    expect(Buffer.from(cluster.caData!, 'base64').toString()).toBe(demo.server.caPem);
    // A token of its own, not the test kit's well-known default: the server accepts writes.
    const token = kc.getCurrentUser()?.token;
    expect(token).toBe(demo.server.token);
    expect(token).not.toBe('test-token');
    expect(token!.length).toBeGreaterThanOrEqual(32);

    // The file works, TLS verified against its CA: the demo's pods are listed through it.
    let latest: Store<V1Pod> | undefined;
    const subscription = resilientWatch<V1Pod>(kc, pods, { namespace: 'shop' })
      .pipe(toStore())
      .subscribe((store) => (latest = store as Store<V1Pod>));
    cleanups.push(() => subscription.unsubscribe());
    await until(() => latest?.synced === true, 'the watch through the written kubeconfig to sync');
    expect(latest!.values().map((p) => p.metadata?.name)).toEqual(
      demo.server.objects(pods, 'shop').map((p) => p.metadata?.name),
    );

    subscription.unsubscribe();
    await demo.stop();
    expect(existsSync(path)).toBe(false);
    expect(existsSync(dirname(path))).toBe(false);
  });

  it('forgets a pod deleted from outside (kubectl delete) and replaces it, as a ReplicaSet would', async () => {
    const server = await FakeKubeApiServer.start();
    cleanups.push(() => server.stop());
    const simulator = new ClusterSimulator(server, { random: mulberry32(3) });
    simulator.seed();
    const controller = demoDeploymentController(server.kubeConfig(), simulator).subscribe();
    cleanups.push(() => controller.unsubscribe());
    const frontend = () =>
      server
        .objects(pods, 'shop')
        .map((p) => p.metadata!.name!)
        .filter((name) => name.startsWith('frontend-'));
    const before = frontend();
    expect(before).toHaveLength(3);
    server.delete(pods, 'shop', before[0]);
    // The simulation steps on, never tripping over the missing pod, and the deployment is whole
    // again with a new pod; the deleted one does not come back.
    for (let step = 0; step < 20; step++) {
      simulator.tick();
      await sleep(10);
    }
    await until(
      () => frontend().filter((name) => !before.includes(name)).length >= 1,
      'a replacement pod',
    );
    expect(frontend()).not.toContain(before[0]);
  });

  it('keeps the replicas a user scaled a deployment to, and converges on them', async () => {
    const server = await FakeKubeApiServer.start({ bookmarkIntervalMs: 0 });
    cleanups.push(() => server.stop());
    let now = Date.parse('2024-06-01T12:00:00Z');
    // A chaos-heavy seed: over two simulated minutes it kills pods and scales deployments.
    const simulator = new ClusterSimulator(server, { random: mulberry32(11), now: () => now });
    simulator.seed();
    const controller = demoDeploymentController(server.kubeConfig(), simulator).subscribe();
    cleanups.push(() => controller.unsubscribe());
    // What `kubectl scale deployment frontend --replicas=5` sends: a new spec, a new generation.
    const frontend = server.get(deployments, 'shop', 'frontend')!;
    server.update(deployments, {
      ...frontend,
      metadata: { ...frontend.metadata, generation: 2 },
      spec: { ...frontend.spec!, replicas: 5 },
    });
    const scales = new Set<string>();
    for (let step = 0; step < 480; step++) {
      now += 250;
      simulator.tick();
      await sleep(3);
      for (const d of server.objects(deployments)) {
        scales.add(`${d.metadata?.name}=${d.spec?.replicas}`);
      }
    }
    // Others were scaled by the simulation; frontend stayed where the user put it.
    expect([...scales].filter((s) => s.startsWith('frontend='))).toEqual(['frontend=5']);
    expect(scales.size).toBeGreaterThan(7);
    const live = () =>
      server
        .objects(pods, 'shop')
        .filter((p) => p.metadata?.name?.startsWith('frontend-') && !p.metadata.deletionTimestamp);
    await until(
      () => live().length === 5,
      () => `5 frontend pods, not ${live().length}`,
    );
    expect(
      server.get(replicasets, 'shop', live()[0].metadata!.ownerReferences![0].name)?.spec,
    ).toMatchObject({ replicas: 5 });
  });
});
