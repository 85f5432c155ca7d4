/**
 * The config-reloader end to end: its main program against a FakeKubeApiServer (TLS, a bearer
 * token), while the real kubectl changes ConfigMaps and Secrets as a user would.
 *
 *   npm run spec -- examples/config-reloader/configReloader.spec.ts
 */
import { afterEach, beforeEach, describe, expect, it, jest } from '@jest/globals';
import type { V1ConfigMap, V1Deployment, V1PodSpec, V1Secret } from '@kubernetes/client-node';
import { configmaps, deployments, resource } from '../../src/index.js';
import { FakeKubeApiServer } from '../../src/testing/index.js';
import { Kubectl } from '../../spec/testing/fakeKubeApiServer/kubectl.js';
import { until } from '../../spec/support/wait.js';
import { operatorProgram } from '../../spec/examples/operatorProgram.js';
import { secrets } from './configReloader.js';
import { main, type RunningReloader } from './main.js';
import { CONFIG_HASH_ANNOTATION } from './reconcileDeployment.js';

// kubectl starts a process and reads discovery for each command: seconds on a busy machine.
jest.setTimeout(90_000);

// The reloader writes with server-side apply, which the test server keeps as kube-apiserver does.
const WRITE = 'apply' as const;

const leases = resource<{ spec?: { holderIdentity?: string } }>('coordination.k8s.io/v1', 'leases');

function deploymentObject(name: string, namespace: string, pod: Partial<V1PodSpec>): V1Deployment {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, namespace, generation: 1 },
    spec: {
      selector: { matchLabels: { app: name } },
      template: {
        metadata: { labels: { app: name } },
        spec: { containers: [{ name: 'main', image: 'nginx:1.27' }], ...pod },
      },
    },
  };
}

const configMapObject = (name: string, namespace: string, data: Record<string, string>) =>
  ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace }, data }) as V1ConfigMap;

describe('config-reloader against a FakeKubeApiServer, changed with kubectl', () => {
  let server: FakeKubeApiServer;
  let kubectl: Kubectl;
  /** What a user does: `kubectl patch` the ConfigMap's data. */
  const setLevel = (level: string) =>
    kubectl.ok(
      'patch',
      'configmap',
      'app-config',
      '-n',
      'shop',
      '--type',
      'merge',
      '-p',
      JSON.stringify({ data: { level } }),
    );
  let stop: AbortController;
  let reloader: RunningReloader | undefined;
  const lines: string[] = [];

  beforeEach(async () => {
    server = await FakeKubeApiServer.start({ tls: true, bookmarkIntervalMs: 500 });
    kubectl = await Kubectl.for(server);
    stop = new AbortController();
    lines.length = 0;
    server.create(configmaps, configMapObject('app-config', 'shop', { level: 'info' }));
    server.create(configmaps, configMapObject('app-config', 'default', { level: 'info' }));
    server.create(secrets, {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'db', namespace: 'shop' },
      data: { password: Buffer.from('s3cr3t').toString('base64') },
    } as V1Secret);
    // web mounts the ConfigMap as a volume; worker reads the Secret through env; api mounts
    // nothing; the default namespace's web mounts the other namespace's app-config.
    const volume = { volumes: [{ name: 'config', configMap: { name: 'app-config' } }] };
    server.create(deployments, deploymentObject('web', 'shop', volume));
    server.create(
      deployments,
      deploymentObject('worker', 'shop', {
        containers: [
          {
            name: 'main',
            image: 'worker:1',
            env: [{ name: 'PW', valueFrom: { secretKeyRef: { name: 'db', key: 'password' } } }],
          },
        ],
      }),
    );
    server.create(deployments, deploymentObject('api', 'shop', {}));
    server.create(deployments, deploymentObject('web', 'default', volume));
  });

  afterEach(async () => {
    stop.abort();
    await reloader?.done;
    reloader = undefined;
    await server.stop();
    await kubectl.cleanup();
  });

  const start = async () => {
    reloader = await main(server.kubeConfig(), {
      secrets: true,
      signal: stop.signal,
      log: (line) => void lines.push(line),
      health: { port: 0 },
      write: WRITE,
    });
    return reloader;
  };
  const get = (namespace: string, name: string) => server.get(deployments, namespace, name)!;
  const recorded = (d: V1Deployment) => d.metadata?.annotations?.[CONFIG_HASH_ANNOTATION];
  const onTemplate = (d: V1Deployment) =>
    d.spec?.template?.metadata?.annotations?.[CONFIG_HASH_ANNOTATION];
  const adopted = () =>
    [get('shop', 'web'), get('shop', 'worker'), get('default', 'web')].every(
      (d) => recorded(d) !== undefined,
    );

  it('is unready until synced, adopts without a rollout, then rolls what mounts the changed ConfigMap or Secret', async () => {
    // The first lists fail: the watches back off and /healthz says 503 meanwhile.
    server.faults.fail(503, { times: 6, match: 'list' });
    const { healthUrl } = await start();
    const health = async () => (await fetch(`${healthUrl}/healthz`)).status;
    expect(await health()).toBe(503);
    await until(adopted, () => `the deployments to be adopted: ${lines.join(' | ')}`, 30_000);
    expect(await health()).toBe(200);
    // Adopted: recorded, and no rollout (the template and its generation are as they were).
    const web = get('shop', 'web');
    expect(onTemplate(web)).toBeUndefined();
    expect(web.metadata?.generation).toBe(1);
    expect(recorded(get('shop', 'api'))).toBeUndefined(); // mounts nothing

    // What people type: regenerate the ConfigMap and apply it.
    const yaml = await kubectl.ok(
      'create',
      'configmap',
      'app-config',
      '-n',
      'shop',
      '--from-literal=level=debug',
      '--dry-run=client',
      '-o',
      'yaml',
    );
    await kubectl.ok('apply', '-f', await kubectl.manifest('cm.yaml', yaml), '--validate=false');
    expect(server.get(configmaps, 'shop', 'app-config')?.data).toEqual({ level: 'debug' });

    await until(
      () => onTemplate(get('shop', 'web')) !== undefined,
      () => `shop/web to roll: ${lines.join(' | ')}`,
      30_000,
    );
    const rolled = get('shop', 'web');
    expect(onTemplate(rolled)).toBe(recorded(rolled));
    expect(recorded(rolled)).not.toBe(recorded(web));
    expect(rolled.metadata?.generation).toBe(2); // a new pod template: the pods roll
    // Written by server-side apply: the reloader's field manager owns the annotations it set.
    const entry = rolled.metadata?.managedFields?.find(
      (f) => f.manager === 'kube-rx-config-reloader',
    );
    expect(entry?.operation).toBe('Apply');
    expect(JSON.stringify(entry?.fieldsV1)).toContain(`f:${CONFIG_HASH_ANNOTATION}`);
    await until(() => lines.includes('rolled shop/web'), 'the log line of the rollout');
    // A ConfigMap of the same name in another namespace is not what default/web mounts.
    expect(onTemplate(get('default', 'web'))).toBeUndefined();
    expect(onTemplate(get('shop', 'worker'))).toBeUndefined();

    // A Secret read through env valueFrom, changed with kubectl patch.
    const before = recorded(get('shop', 'worker'));
    const password = Buffer.from('n3w').toString('base64');
    await kubectl.ok(
      'patch',
      'secret',
      'db',
      '-n',
      'shop',
      '--type',
      'merge',
      '-p',
      JSON.stringify({ data: { password } }),
    );
    await until(
      () => onTemplate(get('shop', 'worker')) !== undefined,
      () => `shop/worker to roll: ${lines.join(' | ')}`,
      30_000,
    );
    expect(recorded(get('shop', 'worker'))).not.toBe(before);
    expect(onTemplate(get('shop', 'web'))).toBe(recorded(rolled)); // web did not roll again
    // The Secret's content is in no line logged.
    expect(lines.join('\n')).not.toContain('s3cr3t');

    stop.abort();
    await expect(reloader!.done).resolves.toBeGreaterThan(0);
    await server.waitForConnections(0, 10_000);
  });

  it('rolls a Deployment whose ConfigMap changed while the reloader was down', async () => {
    await start();
    await until(adopted, () => `the deployments to be adopted: ${lines.join(' | ')}`, 30_000);
    stop.abort();
    await reloader!.done;

    await setLevel('warn');
    expect(onTemplate(get('shop', 'web'))).toBeUndefined();

    stop = new AbortController();
    await start();
    await until(
      () => onTemplate(get('shop', 'web')) !== undefined,
      () => `shop/web to roll after the restart: ${lines.join(' | ')}`,
      30_000,
    );
    expect(onTemplate(get('default', 'web'))).toBeUndefined();
  });

  it('runs as a program with the kubeconfig of KUBECONFIG, serves /healthz and /metrics, and exits 0 on SIGTERM', async () => {
    const program = operatorProgram(
      'examples/config-reloader/main.ts',
      ['shop'],
      kubectl.kubeconfig,
      { POD_NAME: 'config-reloader-0', DEPLOYMENT_WRITE: WRITE },
    );
    let exited: Promise<number | null> | undefined;
    try {
      await program.waitFor(/adopted shop\/web/, 'the program');
      const url = program.probeUrl();
      expect(url).toBeDefined();
      expect((await fetch(`${url}/healthz`)).status).toBe(200);
      // The scrape: controller-runtime's names, labelled by the controller, never by a key.
      const scrape = await (await fetch(`${url}/metrics`)).text();
      expect(scrape).toMatch(
        /^controller_runtime_reconcile_total\{controller="config-reloader",result="success"\} [1-9]/m,
      );
      expect(scrape).toMatch(
        /^workqueue_adds_total\{name="config-reloader",controller="config-reloader"\} [1-9]/m,
      );
      expect(scrape).not.toContain('shop/web');
      // Only the namespace given: default/web is not its business.
      expect(recorded(get('default', 'web'))).toBeUndefined();
      // It leads through the Lease of its namespace, under its pod's name.
      expect(program.output()).toContain('leading (config-reloader-0)');
      expect(
        (
          server.get(leases, 'shop', 'config-reloader') as
            { spec?: { holderIdentity?: string } } | undefined
        )?.spec,
      ).toMatchObject({
        holderIdentity: 'config-reloader-0',
      });
    } finally {
      exited = program.stop();
    }
    await expect(exited).resolves.toBe(0);
    expect(program.output()).toMatch(/stopped after \d+ runs/);
    // Released on the way out, so that a standby takes over at once.
    expect(
      (
        server.get(leases, 'shop', 'config-reloader') as
          { spec?: { holderIdentity?: string } } | undefined
      )?.spec?.holderIdentity ?? '',
    ).toBe('');
  });

  it('acts in one replica of two: the standby is ready but does nothing until it leads', async () => {
    const second = new AbortController();
    const standbyLines: string[] = [];
    const lease = (identity: string) => ({
      namespace: 'shop',
      name: 'config-reloader',
      identity,
      leaseDurationMs: 2_000,
      renewDeadlineMs: 1_500,
      retryPeriodMs: 300,
    });
    reloader = await main(server.kubeConfig(), {
      secrets: true,
      signal: stop.signal,
      log: (line) => void lines.push(line),
      health: { port: 0 },
      write: WRITE,
      leaderElection: lease('one'),
    });
    await until(adopted, () => `the leader to adopt: ${lines.join(' | ')}`, 30_000);
    const standby = await main(server.kubeConfig(), {
      secrets: true,
      signal: second.signal,
      log: (line) => void standbyLines.push(line),
      health: { port: 0 },
      write: WRITE,
      leaderElection: lease('two'),
    });
    try {
      await until(
        () => standbyLines.includes('standing by'),
        () => `the standby: ${standbyLines.join(' | ')}`,
        30_000,
      );
      expect((await fetch(`${standby.healthUrl}/healthz`)).status).toBe(200);

      stop.abort(); // the leader stops and releases the Lease; the standby takes over
      await reloader.done;
      await until(
        () => standbyLines.includes('leading (two)'),
        () => `the takeover: ${standbyLines.join(' | ')}`,
        30_000,
      );
      await setLevel('error');
      await until(
        () => onTemplate(get('shop', 'web')) !== undefined,
        () => `the new leader to roll shop/web: ${standbyLines.join(' | ')}`,
        30_000,
      );
      await until(() => standbyLines.includes('rolled shop/web'), 'the log line of the rollout');
      expect(lines).not.toContain('rolled shop/web'); // the old leader did not act
    } finally {
      second.abort();
      await standby.done;
    }
  });
});
