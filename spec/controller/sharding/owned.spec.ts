// Owned objects follow their controller owner: the sharder labels each with its owner's member
// (before it assigns a moved owner), so members watch owned resources label-selected and each
// caches only its share. Members of one ring in one process against FakeKubeApiServer.
import { afterEach, describe, expect, it } from '@jest/globals';
import type { V1ConfigMap } from '@kubernetes/client-node';
import type { Subscription } from 'rxjs';
import { controller } from '../../../src/controller/controller.js';
import { controllerReference } from '../../../src/controller/kit/controllerReference.js';
import { HashRing } from '../../../src/controller/sharding/hashRing.js';
import { configmaps, resource } from '../../../src/objects/resources.js';
import { FakeKubeApiServer } from '../../../src/testing/fakeKubeApiServer/FakeKubeApiServer.js';
import type { KubernetesObject } from '../../../src/types.js';
import { sleep, until } from '../../support/wait.js';
import { LABEL, RETRY, seed } from './ringHarness.js';

/** The owned resource: one child per ConfigMap, `<name>-child`. */
const children = resource<KubernetesObject>('v1', 'secrets');

let fake: FakeKubeApiServer | undefined;
const members = new Map<string, Subscription>();
afterEach(async () => {
  for (const s of members.values()) s.unsubscribe();
  members.clear();
  await sleep(100);
  await fake?.stop();
  fake = undefined;
});

describe('controller: sharding, owned objects', () => {
  it('carry their owner’s member; each member caches its share; a moved owner finds them', async () => {
    fake = await FakeKubeApiServer.start({ http2: false });
    seed(fake, 30);
    const server = fake;
    /** Per member: how many children its store held at each run, and the creates that failed. */
    const cached = new Map<string, number>();
    const failures: string[] = [];
    const join = (identity: string) => {
      const subscription = controller<V1ConfigMap>({
        cluster: server.kubeConfig(),
        for: { resource: configmaps, options: { namespace: 'app' } },
        owns: [{ resource: children, options: { namespace: 'app' } }],
        rateLimit: false,
        reconcile: async (cm, { stores, api }) => {
          if (!cm) return;
          const store = stores.get(children)!;
          cached.set(identity, store.size);
          const name = `${cm.metadata!.name}-child`;
          if (store.get('app', name)) return;
          await api(children)
            .create(
              {
                apiVersion: 'v1',
                kind: 'Secret',
                metadata: { name, namespace: 'app', ownerReferences: [controllerReference(cm)] },
              },
              { namespace: 'app' },
            )
            .catch((error: Error) => void failures.push(`${identity} ${name}: ${error.message}`));
        },
        sharding: {
          ring: 'cms',
          namespace: 'ops',
          identity,
          // Nobody leaves here: leases long enough that a loaded machine never flaps a member
          // (a flap moves every owner to the other one for a moment, and its store with them).
          leaseDurationMs: 3000,
          renewDeadlineMs: 2000,
          retryPeriodMs: RETRY,
        },
      }).subscribe();
      members.set(identity, subscription);
    };
    const label = (object: KubernetesObject | undefined) => object?.metadata?.labels?.[LABEL];
    const followed = (ids: string[]) => {
      const ring = new HashRing(ids);
      const owners = server.objects(configmaps, 'app');
      return owners.every((cm) => {
        const child = server.get(children, 'app', `${cm.metadata!.name}-child`);
        return label(cm) === ring.owner(`app/${cm.metadata!.name}`) && label(child) === label(cm);
      });
    };
    join('m1');
    join('m2');
    await until(() => followed(['m1', 'm2']), 'every child labelled as its owner', 15_000);
    // Each member's owned store holds only its share of the 30 children (read at runs that
    // every owner's change starts now, on its member).
    await sleep(300);
    cached.clear();
    for (const cm of server.objects(configmaps, 'app')) {
      server.update(configmaps, {
        ...cm,
        metadata: { ...cm.metadata, annotations: { touched: 'yes' } },
      });
    }
    await until(() => cached.size === 2, 'both members ran');
    await sleep(300);
    for (const id of ['m1', 'm2']) {
      const share = server.objects(children, 'app').filter((s) => label(s) === id).length;
      expect([id, cached.get(id)]).toEqual([id, share]);
      expect(share).toBeLessThan(30);
    }
    // A third member: the owners that move to it are assigned only with their children, so its
    // first run finds them in its store and creates nothing (a create would fail: AlreadyExists).
    join('m3');
    await until(() => followed(['m1', 'm2', 'm3']), 'children moved with their owners', 15_000);
    await sleep(300);
    expect(server.objects(children, 'app')).toHaveLength(30);
    expect(failures).toEqual([]);
  }, 40_000);
});
