// Runs every program in examples/ against a FakeKubeApiServer, so the examples the README points
// to keep compiling (tsc covers examples/) and keep doing what they say.
import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import type { V1Pod } from '@kubernetes/client-node';
import { main as firstWatch } from '../examples/first-watch.js';
import { main as resilientWatch } from '../examples/resilient-watch.js';
import {
  deploymentOf,
  main as podsPerDeployment,
  selects,
} from '../examples/pods-per-deployment.js';
import {
  main as customConnection,
  settingsFromEnvironment,
  tokenConnection,
  tokenFromFile,
} from '../examples/custom-connection.js';
import { firstValueFrom, of } from 'rxjs';
import { WatchError, deployments, pods, toStore } from '../src/index.js';
import { FakeKubeApiServer, added, deployment, pod } from '../src/testing/index.js';
import { until } from './support/wait.js';

const repoRoot = fileURLToPath(new URL('..', import.meta.url));

/** A log function for an example, and its lines. */
function logLines() {
  const lines: string[] = [];
  const log = (line: string) => void lines.push(line);
  const seen = (text: string) => () => lines.some((line) => line.includes(text));
  return { lines, log, seen };
}

/** A pod made by the ReplicaSet `{deploymentName}-7d9f` of a deployment, as in a real cluster. */
function replicaSetPod(deploymentName: string, name: string): V1Pod {
  return pod(name, '', {
    metadata: {
      labels: { app: deploymentName },
      ownerReferences: [
        {
          apiVersion: 'apps/v1',
          kind: 'ReplicaSet',
          name: `${deploymentName}-7d9f`,
          uid: `uid-rs-${deploymentName}`,
          controller: true,
        },
      ],
    },
  });
}

describe('examples against a FakeKubeApiServer', () => {
  let server: FakeKubeApiServer;

  beforeEach(async () => {
    server = await FakeKubeApiServer.start({ bookmarkIntervalMs: 0 });
  });
  afterEach(() => server.stop());

  describe('first-watch', () => {
    it('logs each change to the pods of a namespace until aborted', async () => {
      server.create(pods, pod('web-1', ''));
      server.create(pods, pod('web-2', '', { status: { phase: 'Pending' } }));
      server.create(pods, pod('other', '', { metadata: { namespace: 'kube-system' } }));
      const { lines, log, seen } = logLines();
      const stop = new AbortController();

      const done = firstWatch(server.kubeConfig(), { signal: stop.signal, log });
      await until(() => lines.length === 2, 'the initial pods');
      server.update(pods, pod('web-2', ''));
      server.delete(pods, 'default', 'web-1');
      await until(seen('DELETED'), 'the deletion');
      stop.abort();

      await expect(done).resolves.toBe(4);
      expect(lines.map((line) => line.replace(/ \(rv \d+\)$/, '')).sort()).toEqual([
        'ADDED default/web-1 Running',
        'ADDED default/web-2 Pending',
        'DELETED default/web-1 Running',
        'MODIFIED default/web-2 Running',
      ]);
      await server.waitForConnections(0);
    });

    it('reports a refused token as an ERROR event, then ends', async () => {
      const { lines, log } = logLines();
      await expect(firstWatch(server.kubeConfig({ token: 'wrong' }), { log })).resolves.toBe(1);
      expect(lines).toEqual([expect.stringMatching(/^ERROR UNAUTHORIZED_ERROR 401: /)]);
    });

    it('runs from the command line with the current kubeconfig context, until Ctrl-C', async () => {
      server.create(pods, pod('web-1', ''));
      const dir = await mkdtemp(join(tmpdir(), 'kube-rx-example-'));
      try {
        const kubeconfig = join(dir, 'config');
        await writeFile(kubeconfig, server.kubeConfig().exportConfig());
        const child = spawn(
          process.execPath,
          ['--import', './bench/register.mjs', 'examples/first-watch.ts', 'default'],
          { cwd: repoRoot, env: { ...process.env, KUBECONFIG: kubeconfig } },
        );
        let output = '';
        child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
        child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
        const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));

        // Node transpiles the example with the project's TypeScript as it loads: seconds on a
        // busy machine.
        await until(
          () => output.includes('ADDED default/web-1'),
          'the example to print the pod',
          20_000,
        );
        child.kill('SIGINT');

        await expect(exited).resolves.toBe(0);
        expect(output).toMatch(/^1 events$/m);
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    }, 30_000);
  });

  describe('resilient-watch', () => {
    it('lists, watches, relists after 410 Gone and reconnects after a restart, logging each step', async () => {
      server.create(pods, pod('web-1', ''));
      server.create(pods, pod('web-2', ''));
      const { lines, log, seen } = logLines();
      const stop = new AbortController();

      const done = resilientWatch(server.kubeConfig(), { signal: stop.signal, log });
      await until(seen('synced'), 'the initial state');
      server.create(pods, pod('web-3', ''));
      await until(seen('ADDED default/web-3'), 'the new pod');

      server.expireHistory(); // the watch gets an in-stream 410 and must relist
      await until(seen('relist-end (3 objects)'), 'the relist');
      await server.restart(); // every connection drops
      await until(() => lines.filter((l) => l.includes('connecting')).length >= 3, 'the reconnect');
      server.delete(pods, 'default', 'web-1');
      await until(seen('DELETED default/web-1'), 'the deletion after the reconnect');
      stop.abort();

      // 2 ADDED + end BOOKMARK, ADDED web-3, the relist's end BOOKMARK, DELETED web-1.
      await expect(done).resolves.toBe(6);
      const steps = lines
        .filter((line) => line.startsWith('lifecycle'))
        .map((l) => l.split(' ')[1]);
      expect(steps.slice(0, 4)).toEqual(['relist-start', 'relist-end', 'connecting', 'connected']);
      expect(steps).toEqual(expect.arrayContaining(['expired', 'disconnected', 'backoff']));
      expect(lines).toContain('synced: the initial state is complete');
      expect(lines.filter((line) => /^ADDED/.test(line))).toHaveLength(3); // no duplicates
      await server.waitForConnections(0);
    }, 10_000);
  });

  describe('pods-per-deployment', () => {
    it('keeps a live map of pods per deployment from two merged watches', async () => {
      server.create(deployments, deployment('web', ''));
      server.create(deployments, deployment('api', ''));
      server.create(pods, replicaSetPod('web', 'web-7d9f-a'));
      // No controller: it belongs to the deployment whose selector matches its labels.
      server.create(pods, pod('api-by-hand', '', { metadata: { labels: { app: 'api' } } }));
      // Controlled by a Job: no deployment's, even with a matching label.
      server.create(
        pods,
        pod('batch-1', '', {
          metadata: {
            labels: { app: 'web' },
            ownerReferences: [
              { apiVersion: 'batch/v1', kind: 'Job', name: 'batch', uid: 'u', controller: true },
            ],
          },
        }),
      );
      const { lines, log, seen } = logLines();
      const stop = new AbortController();

      const done = podsPerDeployment(server.kubeConfig(), { signal: stop.signal, log });
      await until(() => lines.length > 0, 'the first summary');
      expect(lines).toEqual(['default/api 1: api-by-hand | default/web 1: web-7d9f-a']);

      server.create(pods, replicaSetPod('web', 'web-7d9f-b'));
      await until(seen('default/web 2: web-7d9f-a web-7d9f-b'), 'the second web pod');
      server.delete(deployments, 'default', 'api');
      await until(() => !lines.at(-1)!.includes('api'), 'the deleted deployment');
      stop.abort();

      await expect(done).resolves.toEqual(new Map([['default/web', ['web-7d9f-a', 'web-7d9f-b']]]));
      expect(lines.at(-1)).toBe('default/web 2: web-7d9f-a web-7d9f-b');
    });

    it('gives a pod whose ReplicaSet is not named {deployment}-{hash} no deployment', async () => {
      const store = await firstValueFrom(of(added(deployment('we', '1'))).pipe(toStore()));
      const owned = (replicaSet: string) =>
        pod('p', '1', {
          metadata: {
            ownerReferences: [
              {
                apiVersion: 'apps/v1',
                kind: 'ReplicaSet',
                name: replicaSet,
                uid: 'u',
                controller: true,
              },
            ],
          },
        });
      expect(deploymentOf(owned('we-5d8f'), store)).toBe('default/we');
      expect(deploymentOf(owned('web'), store)).toBeUndefined();
    });

    it('matches label selectors with matchLabels and matchExpressions', () => {
      const selector = {
        matchLabels: { app: 'web' },
        matchExpressions: [
          { key: 'tier', operator: 'In', values: ['front', 'edge'] },
          { key: 'canary', operator: 'DoesNotExist' },
        ],
      };
      expect(selects(selector, { app: 'web', tier: 'front' })).toBe(true);
      expect(selects(selector, { app: 'web', tier: 'back' })).toBe(false);
      expect(selects(selector, { app: 'web', tier: 'edge', canary: 'yes' })).toBe(false);
      expect(selects({}, { app: 'web' })).toBe(false);
      // A label is an own key: 'constructor' is in every object, but on no pod without it.
      const exists = { matchExpressions: [{ key: 'constructor', operator: 'Exists' }] };
      expect(selects(exists, { app: 'web' })).toBe(false);
    });
  });

  describe('custom-connection', () => {
    let dir: string;
    beforeEach(async () => {
      dir = await mkdtemp(join(tmpdir(), 'kube-rx-token-'));
    });
    afterEach(() => rm(dir, { recursive: true, force: true }));

    it('lists through a token file and a CA, and picks up a rotated token', async () => {
      const tlsServer = await FakeKubeApiServer.start({ tls: true, token: 'token-1' });
      try {
        tlsServer.create(pods, pod('web-1', ''));
        tlsServer.create(pods, pod('db-0', '', { metadata: { namespace: 'data' } }));
        const tokenFile = join(dir, 'token');
        await writeFile(tokenFile, 'token-1\n');
        const cluster = tokenConnection({
          server: tlsServer.url,
          ca: tlsServer.caPem,
          token: tokenFromFile(tokenFile),
        });
        const { lines, log } = logLines();

        await expect(customConnection(cluster, { log })).resolves.toEqual([
          'data/db-0',
          'default/web-1',
        ]);
        expect(lines.at(-1)).toMatch(/^2 pods on 127\.0\.0\.1:\d+ at resourceVersion \d+$/);

        tlsServer.rotateToken('token-2');
        const refused = customConnection(cluster, { log });
        await expect(refused).rejects.toBeInstanceOf(WatchError);
        await expect(refused).rejects.toMatchObject({ statusCode: 401 });

        await writeFile(tokenFile, 'token-2\n'); // the same connection reads the new token
        await expect(customConnection(cluster, { log, namespace: 'data' })).resolves.toEqual([
          'data/db-0',
        ]);
        expect(tlsServer.requests.at(-1)).toMatchObject({
          tokenValid: true,
          path: '/api/v1/namespaces/data/pods',
        });
      } finally {
        await tlsServer.stop();
      }
    });

    it('refuses a server whose certificate its CA did not sign', async () => {
      const tlsServer = await FakeKubeApiServer.start({ tls: true });
      const other = await FakeKubeApiServer.start({ tls: true });
      try {
        const cluster = tokenConnection({
          server: tlsServer.url,
          ca: other.caPem,
          token: () => 'test-token',
        });
        await expect(customConnection(cluster, { log: () => {} })).rejects.toMatchObject({
          errorType: 'SYSTEM_ERROR',
          statusCode: 0,
        });
      } finally {
        await Promise.all([tlsServer.stop(), other.stop()]);
      }
    });

    it('takes its settings from KUBE_* variables or the pod service account', () => {
      expect(
        settingsFromEnvironment({ KUBE_SERVER: 'https://k8s.example:6443', KUBE_CA_FILE: '/none' }),
      ).toMatchObject({ server: 'https://k8s.example:6443', ca: undefined });
      expect(
        settingsFromEnvironment({
          KUBERNETES_SERVICE_HOST: 'fd00::1',
          KUBERNETES_SERVICE_PORT: '443',
        }).server,
      ).toBe('https://[fd00::1]:443');
      expect(() => settingsFromEnvironment({})).toThrow(/KUBE_SERVER/);
    });
  });
});
