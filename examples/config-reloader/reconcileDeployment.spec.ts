/**
 * The config-reloader's reconcile with fakes: stores folded from events by `toStore`, as the
 * controller hands them over, and a patch function that records what it is asked to send.
 *
 *   npm run spec -- examples/config-reloader/reconcileDeployment.spec.ts
 */
import { describe, expect, it } from '@jest/globals';
import type { V1ConfigMap, V1Deployment, V1PodSpec, V1Secret } from '@kubernetes/client-node';
import { firstValueFrom, from, last } from 'rxjs';
import { toStore, type KubernetesObject, type Store, type WatchEvent } from '../../src/index.js';
import { added, bookmark } from '../../src/testing/index.js';
import { configRef, mountIndex, mountedConfig } from './mounts.js';
import {
  CONFIG_HASH_ANNOTATION,
  configHash,
  reconcileDeployment,
  type DeploymentPatch,
} from './reconcileDeployment.js';

function deploymentWith(
  podSpec: Partial<V1PodSpec>,
  annotations?: Record<string, string>,
): V1Deployment {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'web', namespace: 'shop', resourceVersion: '40', annotations },
    spec: {
      selector: { matchLabels: { app: 'web' } },
      template: { spec: { containers: [{ name: 'main', image: 'nginx' }], ...podSpec } },
    },
  };
}

function configMap(name: string, data: Record<string, string>, namespace = 'shop'): V1ConfigMap {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace }, data };
}

function secret(name: string, data: Record<string, string>, uid = `uid-${name}`): V1Secret {
  return { apiVersion: 'v1', kind: 'Secret', metadata: { name, namespace: 'shop', uid }, data };
}

/** The synced snapshot of a store folded from these objects, as the controller hands it over. */
function storeOf<T extends KubernetesObject>(...objects: T[]): Promise<Store<T>> {
  const events: Array<WatchEvent<T>> = [
    ...objects.map((o) => added(o)),
    bookmark<T>('50', { initialEventsEnd: true }),
  ];
  return firstValueFrom(from(events).pipe(toStore<WatchEvent<T>>(), last())) as Promise<Store<T>>;
}

/** A patch function that records its calls. */
function recordingPatch() {
  const calls: Array<{ namespace: string; name: string; patch: DeploymentPatch }> = [];
  const patch = async (namespace: string, name: string, body: DeploymentPatch) => {
    calls.push({ namespace, name, patch: body });
  };
  return { calls, patch };
}

const mountsEverything = deploymentWith({
  volumes: [
    { name: 'a', configMap: { name: 'app-config' } },
    { name: 'b', secret: { secretName: 'tls' } },
    {
      name: 'c',
      projected: { sources: [{ configMap: { name: 'extra' } }, { secret: { name: 'token' } }] },
    },
  ],
  containers: [
    {
      name: 'main',
      envFrom: [{ configMapRef: { name: 'env-config' } }, { secretRef: { name: 'env-secret' } }],
      env: [
        { name: 'X', valueFrom: { configMapKeyRef: { name: 'app-config', key: 'x' } } },
        { name: 'Y', valueFrom: { secretKeyRef: { name: 'db', key: 'password' } } },
        { name: 'Z', value: 'plain' },
      ],
    },
  ],
  initContainers: [{ name: 'init', envFrom: [{ configMapRef: { name: 'init-config' } }] }],
});

describe('what a Deployment mounts', () => {
  it('finds ConfigMaps and Secrets in volumes, projected volumes, envFrom and env of every container', () => {
    expect(mountedConfig(mountsEverything)).toEqual({
      configmap: ['app-config', 'env-config', 'extra', 'init-config'],
      secret: ['db', 'env-secret', 'tls', 'token'],
    });
    expect(mountedConfig(deploymentWith({}))).toEqual({ configmap: [], secret: [] });
  });

  it('indexes a Deployment under each of them, in its own namespace', async () => {
    const other = { ...deploymentWith({}), metadata: { name: 'api', namespace: 'shop' } };
    const store = await firstValueFrom(
      from([added(mountsEverything), added(other)]).pipe(
        toStore({ indexes: { byConfig: mountIndex } }),
        last(),
      ),
    );
    const names = (ref: string) => store.byIndex('byConfig', ref).map((d) => d.metadata?.name);
    expect(names(configRef('configmap', 'shop', 'extra'))).toEqual(['web']);
    expect(names(configRef('secret', 'shop', 'db'))).toEqual(['web']);
    // Same name, another namespace or the other kind: not this Deployment's.
    expect(names(configRef('configmap', 'default', 'extra'))).toEqual([]);
    expect(names(configRef('secret', 'shop', 'extra'))).toEqual([]);
  });
});

describe('reconcileDeployment', () => {
  const mountsConfig = (annotations?: Record<string, string>) =>
    deploymentWith(
      {
        volumes: [{ name: 'config', configMap: { name: 'app-config' } }],
        containers: [
          {
            name: 'main',
            env: [{ name: 'PW', valueFrom: { secretKeyRef: { name: 'db', key: 'pw' } } }],
          },
        ],
      },
      annotations,
    );

  it('records the hash of a Deployment seen for the first time, without rolling it', async () => {
    const { calls, patch } = recordingPatch();
    const configMaps = await storeOf(configMap('app-config', { level: 'info' }));
    const secrets = await storeOf(secret('db', { pw: 'czNjcjN0' }));

    await expect(reconcileDeployment(mountsConfig(), { configMaps, secrets, patch })).resolves.toBe(
      'adopted',
    );

    const hash = configHash(mountsConfig(), configMaps, secrets);
    expect(hash).toMatch(/^[0-9a-f]{32}$/);
    expect(calls).toEqual([
      {
        namespace: 'shop',
        name: 'web',
        patch: {
          metadata: { resourceVersion: '40', annotations: { [CONFIG_HASH_ANNOTATION]: hash } },
        },
      },
    ]);
  });

  it('adopting keeps a hash already on the pod template: an apply that left it out would remove it and roll', async () => {
    const { calls, patch } = recordingPatch();
    const configMaps = await storeOf(configMap('app-config', { level: 'info' }));
    const secrets = await storeOf(secret('db', { pw: 'czNjcjN0' }));
    const lostRecord = mountsConfig();
    lostRecord.spec!.template.metadata = { annotations: { [CONFIG_HASH_ANNOTATION]: 'earlier' } };

    await expect(reconcileDeployment(lostRecord, { configMaps, secrets, patch })).resolves.toBe(
      'adopted',
    );
    const hash = configHash(lostRecord, configMaps, secrets)!;
    expect(calls.map((c) => c.patch)).toEqual([
      {
        metadata: { resourceVersion: '40', annotations: { [CONFIG_HASH_ANNOTATION]: hash } },
        spec: { template: { metadata: { annotations: { [CONFIG_HASH_ANNOTATION]: 'earlier' } } } },
      },
    ]);
  });

  it('does nothing while the recorded hash is current, and rolls the pods once it is not', async () => {
    const { calls, patch } = recordingPatch();
    const before = await storeOf(configMap('app-config', { level: 'info' }));
    const secrets = await storeOf(secret('db', { pw: 'czNjcjN0' }));
    const old = configHash(mountsConfig(), before, secrets)!;
    const current = mountsConfig({ [CONFIG_HASH_ANNOTATION]: old });

    await expect(
      reconcileDeployment(current, { configMaps: before, secrets, patch }),
    ).resolves.toBe('unchanged');
    expect(calls).toEqual([]);

    const after = await storeOf(configMap('app-config', { level: 'debug' }));
    await expect(reconcileDeployment(current, { configMaps: after, secrets, patch })).resolves.toBe(
      'rolled',
    );
    const hash = configHash(current, after, secrets)!;
    expect(hash).not.toBe(old);
    const annotations = { [CONFIG_HASH_ANNOTATION]: hash };
    expect(calls.map((c) => c.patch)).toEqual([
      {
        metadata: { resourceVersion: '40', annotations },
        spec: { template: { metadata: { annotations } } },
      },
    ]);
  });

  it('rolls on a Secret change read through env valueFrom, and ignores metadata-only changes', async () => {
    const configMaps = await storeOf(configMap('app-config', { level: 'info' }));
    const hashWith = async (cm: V1ConfigMap, s: V1Secret) =>
      configHash(mountsConfig(), await storeOf(cm), await storeOf(s));
    const base = await hashWith(
      configMap('app-config', { level: 'info' }),
      secret('db', { pw: 'YQ==' }),
    );

    expect(
      await hashWith(configMap('app-config', { level: 'info' }), secret('db', { pw: 'Yg==' })),
    ).not.toBe(base);
    const labelled = configMap('app-config', { level: 'info' });
    labelled.metadata!.labels = { team: 'shop' };
    labelled.metadata!.resourceVersion = '99';
    expect(await hashWith(labelled, secret('db', { pw: 'YQ==' }))).toBe(base);
    // The same data in the same order of keys or another: one hash.
    expect(
      configHash(
        mountsConfig(),
        await storeOf(configMap('app-config', { b: '2', a: '1' })),
        await storeOf(secret('db', { pw: 'YQ==' })),
      ),
    ).toBe(
      configHash(
        mountsConfig(),
        await storeOf(configMap('app-config', { a: '1', b: '2' })),
        await storeOf(secret('db', { pw: 'YQ==' })),
      ),
    );
    expect(configMaps.size).toBe(1);
  });

  it("keys a Secret's part of the hash by the Secret's uid, so the annotation reveals nothing guessable", async () => {
    const configMaps = await storeOf(configMap('app-config', {}));
    const one = configHash(
      mountsConfig(),
      configMaps,
      await storeOf(secret('db', { pw: 'YQ==' }, 'u1')),
    );
    const two = configHash(
      mountsConfig(),
      configMaps,
      await storeOf(secret('db', { pw: 'YQ==' }, 'u2')),
    );
    expect(one).not.toBe(two);
  });

  it('counts a missing ConfigMap as missing: its creation changes the hash', async () => {
    const secrets = await storeOf(secret('db', { pw: 'YQ==' }));
    const missing = configHash(mountsConfig(), await storeOf<V1ConfigMap>(), secrets);
    const empty = configHash(mountsConfig(), await storeOf(configMap('app-config', {})), secrets);
    expect(missing).toMatch(/^[0-9a-f]{32}$/);
    expect(empty).not.toBe(missing);
    // Another namespace's ConfigMap of that name is not this one.
    const elsewhere = configHash(
      mountsConfig(),
      await storeOf(configMap('app-config', {}, 'default')),
      secrets,
    );
    expect(elsewhere).toBe(missing);
  });

  it('leaves Secrets alone when started without them', async () => {
    const configMaps = await storeOf(configMap('app-config', { level: 'info' }));
    const onlySecrets = deploymentWith({ volumes: [{ name: 's', secret: { secretName: 'db' } }] });
    const { calls, patch } = recordingPatch();
    await expect(reconcileDeployment(onlySecrets, { configMaps, patch })).resolves.toBe(
      'no-config',
    );
    expect(configHash(mountsConfig(), configMaps, undefined)).toBe(
      configHash(
        deploymentWith({ volumes: [{ name: 'config', configMap: { name: 'app-config' } }] }),
        configMaps,
        undefined,
      ),
    );
    expect(calls).toEqual([]);
  });

  it('does nothing for a deleted Deployment or one that mounts no configuration', async () => {
    const { calls, patch } = recordingPatch();
    const configMaps = await storeOf(configMap('app-config', {}));
    await expect(reconcileDeployment(undefined, { configMaps, patch })).resolves.toBe('gone');
    await expect(reconcileDeployment(deploymentWith({}), { configMaps, patch })).resolves.toBe(
      'no-config',
    );
    expect(calls).toEqual([]);
  });

  it('fails when the patch fails, so that the queue retries it with backoff', async () => {
    const configMaps = await storeOf(configMap('app-config', {}));
    const conflict = Object.assign(new Error('the object has been modified'), { code: 409 });
    const patch = () => Promise.reject(conflict);
    await expect(reconcileDeployment(mountsConfig(), { configMaps, patch })).rejects.toBe(conflict);
  });
});
