// Server-side apply in the test server (issue 39, item 2): any sequence of applies (some forced)
// by three managers and strategic merge patches by an editor, on one Deployment. After each
// step, applying again what was just applied changes nothing (same status 200, same object: same
// resourceVersion, same managedFields), and ownership is consistent with the fields present
// (every field set is owned by a manager, nothing owned is absent). The fast-check form of
// spec/testing/fakeKubeApiServer/apply/randomApply.spec.ts's seeded walk, with its model
// (ownership.ts), so a failure shrinks to the shortest sequence that shows it.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { FakeKubeApiServer } from '../../src/testing/fakeKubeApiServer/FakeKubeApiServer.js';
import { get, request } from '../testing/fakeKubeApiServer/client.js';
import { apply, DEPLOYMENTS } from '../testing/fakeKubeApiServer/apply/applyClient.js';
import { mismatch } from '../testing/fakeKubeApiServer/apply/ownership.js';
import { checkProperty } from './settings.js';

const NAMES = ['web', 'proxy', 'log'] as const;
const value = fc.constantFrom('1', '2');

/** A configuration: some labels, maybe replicas, containers by name with an atomic args list. */
const config = fc
  .record({
    labels: fc.record({ a: value, b: value, c: value }, { requiredKeys: [] }),
    replicas: fc.option(fc.integer({ min: 1, max: 3 }), { nil: undefined }),
    containers: fc.subarray([...NAMES], { minLength: 1 }).chain((names) =>
      fc.tuple(
        ...names.map((name) =>
          fc
            .record(
              {
                image: fc.constantFrom('img:1', 'img:2'),
                args: fc.constantFrom(['-x'], ['-x', '-y'], []),
              },
              { requiredKeys: [] },
            )
            .map((fields) => ({ name, ...fields })),
        ),
      ),
    ),
  })
  .map(({ labels, replicas, containers }) => ({ labels, replicas, containers }));

type Config = typeof config extends fc.Arbitrary<infer C> ? C : never;

/** The body of an apply of `c` to the Deployment `name` (no empty map sent: see randomApply). */
function body(name: string, c: Config) {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, ...(Object.keys(c.labels).length > 0 && { labels: c.labels }) },
    spec: {
      ...(c.replicas !== undefined && { replicas: c.replicas }),
      template: { spec: { containers: c.containers } },
    },
  };
}

const applyStep = fc.record({
  kind: fc.constant('apply' as const),
  manager: fc.constantFrom('alice', 'bob', 'carol'),
  config,
  force: fc.boolean(),
});
const patchStep = fc.record({
  kind: fc.constant('patch' as const),
  patch: fc.oneof(
    fc
      .record({ key: fc.constantFrom('a', 'b', 'c'), to: fc.constantFrom('3', null) })
      .map(({ key, to }) => ({ metadata: { labels: { [key]: to } } })),
    fc.constantFrom(...NAMES).map((name) => ({
      spec: { template: { spec: { containers: [{ name, image: 'img:9' }] } } },
    })),
  ),
});
/** A first apply creates the object; then any steps. */
const steps = fc.tuple(applyStep, fc.array(fc.oneof(applyStep, patchStep), { maxLength: 10 }));

let server: FakeKubeApiServer;
beforeAll(async () => {
  server = await FakeKubeApiServer.start();
});
afterAll(() => server.stop());

let runs = 0;

describe('server-side apply property', () => {
  it('a second apply of the same configuration changes nothing; ownership matches the fields', async () => {
    await checkProperty(
      'server-side apply: idempotent, ownership consistent',
      fc.asyncProperty(steps, async ([first, rest]) => {
        // A Deployment of its own per run: the server is shared.
        const name = `d-${++runs}`;
        const path = `${DEPLOYMENTS}/${name}`;
        for (const step of [first, ...rest]) {
          if (step.kind === 'patch') {
            const r = await request(server, 'PATCH', `${path}?fieldManager=editor`, step.patch, {
              contentType: 'application/strategic-merge-patch+json',
            });
            expect(r.status).toBe(200);
          } else {
            const query: Record<string, string> = step.force ? { force: 'true' } : {};
            const sent = body(name, step.config);
            const r = await apply(server, path, sent, step.manager, query);
            expect([200, 201, 409]).toContain(r.status);
            if (r.status !== 409) {
              const again = await apply(server, path, sent, step.manager, query);
              expect(again.status).toBe(200);
              // The whole object: resourceVersion, managedFields and fields alike.
              expect(again.json).toEqual(r.json);
            }
          }
          const live = await get(server, path);
          expect(live.status).toBe(200);
          expect(mismatch(live.json)).toEqual({ stale: [], unowned: [] });
        }
        await request(server, 'DELETE', path);
      }),
      25,
      0.002,
    );
  }, 120_000);
});
