// A seeded random walk of server-side applies (some forced) by three managers and strategic or
// merge patches by an updater, on one Deployment. After every step: applying the configuration
// the last applier just applied again changes nothing (same resourceVersion, same object, as
// kube-apiserver skips a no-op write), and ownership matches the object: every owned path is in
// the object, every field of the object is owned by someone. KUBE_RX_SEED replays a failing run.
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { FakeKubeApiServer } from '../../../../src/testing/fakeKubeApiServer/FakeKubeApiServer.js';
import { Dice, mulberry32, seedFromEnv } from '../../../support/seededRandom.js';
import { get, request } from '../client.js';
import { apply, DEPLOYMENTS } from './applyClient.js';
import { mismatch } from './ownership.js';

const PATH = `${DEPLOYMENTS}/d`;
const MANAGERS = ['alice', 'bob', 'carol'];

/** A random configuration: labels, replicas, containers by name with an atomic args list. */
function randomConfig(d: Dice): Record<string, any> {
  const labels: Record<string, string> = {};
  for (const k of ['a', 'b', 'c']) if (d.chance(0.4)) labels[k] = d.pick(['1', '2']);
  const containers = ['web', 'proxy', 'log']
    .filter(() => d.chance(0.5))
    .map((name) => ({
      name,
      ...(d.chance(0.7) ? { image: d.pick(['img:1', 'img:2']) } : {}),
      ...(d.chance(0.4) ? { args: d.pick([['-x'], ['-x', '-y'], []]) } : {}),
    }));
  // No empty containers list: applying `[]` where the list was pruned away adds it back, a second
  // write kube-apiserver makes too (an empty list and no list differ to structured-merge-diff).
  const spec: Record<string, any> =
    containers.length > 0 ? { template: { spec: { containers } } } : {};
  if (d.chance(0.5)) spec.replicas = d.int(1, 3);
  const metadata: Record<string, any> = { name: 'd' };
  if (Object.keys(labels).length > 0) metadata.labels = labels;
  return { apiVersion: 'apps/v1', kind: 'Deployment', metadata, spec };
}

describe('server-side apply: random applies and patches', () => {
  let server: FakeKubeApiServer;
  beforeEach(async () => {
    server = await FakeKubeApiServer.start();
  });
  afterEach(() => server.stop());

  const base = seedFromEnv();
  it.each([0, 1, 2, 3])(
    'a no-op apply keeps the resourceVersion; ownership matches the fields (seed offset %i)',
    async (offset) => {
      const seed = (base + offset) >>> 0;
      const d = new Dice(mulberry32(seed));
      const steps: string[] = [];
      for (let step = 0; step < 25; step++) {
        const context = () => `seed ${seed} (KUBE_RX_SEED=${base}), steps:\n${steps.join('\n')}`;
        if (step > 0 && d.chance(0.25)) {
          const patch = d.chance(0.5)
            ? { metadata: { labels: { [d.pick(['a', 'b', 'c'])]: d.pick(['3', null]) } } }
            : {
                spec: {
                  template: {
                    spec: {
                      containers: [{ name: d.pick(['web', 'proxy', 'log']), image: 'img:9' }],
                    },
                  },
                },
              };
          const type = 'application/strategic-merge-patch+json';
          const r = await request(server, 'PATCH', `${PATH}?fieldManager=editor`, patch, {
            contentType: type,
          });
          steps.push(`editor patches ${JSON.stringify(patch)}: ${r.status}`);
          expect([r.status, context()]).toEqual([200, context()]);
        } else {
          const manager = d.pick(MANAGERS);
          const config = randomConfig(d);
          const force = d.chance(0.3);
          const r = await apply(server, PATH, config, manager, force ? { force: 'true' } : {});
          steps.push(
            `${manager} applies${force ? ' (force)' : ''} ${JSON.stringify(config)}: ${r.status}`,
          );
          expect([[200, 201, 409].includes(r.status), context()]).toEqual([true, context()]);
          if (r.status !== 409) {
            const again = await apply(
              server,
              PATH,
              config,
              manager,
              force ? { force: 'true' } : {},
            );
            expect([again.status, again.json, context()]).toEqual([200, r.json, context()]);
          }
        }
        const live = await get(server, PATH);
        if (live.status === 200) {
          expect([mismatch(live.json), context()]).toEqual([{ stale: [], unowned: [] }, context()]);
        }
      }
    },
  );
});
