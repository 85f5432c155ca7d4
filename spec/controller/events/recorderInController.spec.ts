import { afterEach, describe, expect, it } from '@jest/globals';
import { firstValueFrom, take, toArray } from 'rxjs';
import { controller } from '../../../src/controller/controller.js';
import { eventRecorder } from '../../../src/controller/events/eventRecorder.js';
import { configmaps } from '../../../src/objects/resources.js';
import { FakeKubeApiServer } from '../../../src/testing/index.js';
import { RawServer } from '../../support/rawServer.js';

let server: FakeKubeApiServer | undefined;
let raw: RawServer | undefined;
afterEach(async () => {
  await server?.stop();
  await raw?.stop();
  server = raw = undefined;
});

describe('ctx.recorder in a controller', () => {
  it('never slows a run: a server that never answers Event writes leaves the reconcile as fast', async () => {
    server = await FakeKubeApiServer.start();
    for (const name of ['a', 'b', 'c'])
      server.create(configmaps, { metadata: { name, namespace: 'shop' } });
    raw = await RawServer.start(() => undefined); // accepts Event writes and never answers
    const drops: string[] = [];
    const recorder = eventRecorder(raw.kubeConfig(), {
      reportingController: 'example.com/cm',
      reportingInstance: 'cm-0',
      writeTimeoutMs: 60_000,
      onDrop: (why) => drops.push(why),
    });
    const reports = await firstValueFrom(
      controller({
        cluster: server.kubeConfig(),
        for: { resource: configmaps, options: { namespace: 'shop' } },
        recorder,
        reconcile: async (cm, ctx) => {
          for (let i = 0; i < 5; i++)
            ctx.recorder.record(cm!, {
              type: 'Normal',
              reason: 'Seen',
              action: 'Reconcile',
              note: `${ctx.key} ${i}`,
            });
        },
      }).pipe(take(3), toArray()),
    );
    expect(reports.map((r) => r.outcome)).toEqual(['done', 'done', 'done']);
    // 15 writes are waiting on the silent server (for up to 60 s each); none of them held a
    // run: a run that waited for its Event would last until that timeout
    for (const report of reports) expect(report.durationMs).toBeLessThan(2_000);
    for (let i = 0; i < 100 && raw.requests.length === 0; i++)
      await new Promise((r) => setTimeout(r, 20));
    expect(raw.requests.length).toBeGreaterThan(0); // the writes were sent, and wait
    expect(drops).toEqual([]);
    recorder.close();
  });

  it('gives every run a recorder of its own when none is configured, writing to the cluster', async () => {
    server = await FakeKubeApiServer.start();
    server.create(configmaps, { metadata: { name: 'a', namespace: 'shop' } });
    await firstValueFrom(
      controller({
        cluster: server.kubeConfig(),
        for: { resource: configmaps, options: { namespace: 'shop' } },
        reconcile: async (cm, ctx) =>
          ctx.recorder.record(cm!, { type: 'Normal', reason: 'Seen', action: 'Reconcile' }),
      }).pipe(take(1)),
    );
    const events = { group: 'events.k8s.io', version: 'v1', plural: 'events', kind: 'Event' };
    for (let i = 0; i < 100 && server.objects(events, 'shop').length === 0; i++)
      await new Promise((r) => setTimeout(r, 20));
    expect(server.objects<any>(events, 'shop')).toEqual([
      expect.objectContaining({ reason: 'Seen', reportingController: 'kube-rx' }),
    ]);
  });
});
