// The sharder's label writes against the test server: what it remembers of an answered write,
// so that a look at the object before the write's event arrives writes nothing from the old
// view (in a kill of 1 000 objects such looks once cost 19-28 conflicts).
import { afterEach, beforeEach, expect, it } from '@jest/globals';
import { LabelWriter } from '../../../src/controller/sharding/LabelWriter.js';
import { configmaps } from '../../../src/objects/resources.js';
import { FakeKubeApiServer } from '../../../src/testing/fakeKubeApiServer/FakeKubeApiServer.js';
import type { KubernetesObject } from '../../../src/types.js';
import { until } from '../../support/wait.js';

const LABEL = 'shard.kube-rx.io/web';
let server: FakeKubeApiServer;
let ended: boolean[];
let writer: LabelWriter;

beforeEach(async () => {
  server = await FakeKubeApiServer.start({ http2: false });
  ended = [];
  writer = new LabelWriter(server.kubeConfig(), 4, (ok) => ended.push(ok));
});

afterEach(async () => {
  writer.close();
  await server.stop();
});

/** `name` as the sharder's store would hold it now. */
function seen(name: string): KubernetesObject {
  return server.get(configmaps, 'app', name)!;
}

/** Writes `labels` over `object` and waits for the answer. */
async function write(object: KubernetesObject, labels: Record<string, string | null>) {
  const before = ended.length;
  writer.write(configmaps, `app/${object.metadata!.name}`, object, labels);
  await until(() => ended.length > before, 'the answer');
  return ended[ended.length - 1];
}

it('remembers the view a write changed until the store shows another version', async () => {
  server.create(configmaps, { metadata: { name: 'a', namespace: 'app' } });
  const old = seen('a');
  expect(await write(old, { [LABEL]: 'pod-1' })).toBe(true);
  // The event has not reached the store yet: the old version is a view we already changed.
  expect(writer.wrote('app/a', old.metadata!.resourceVersion)).toBe(true);
  // The event came: the new version is looked at as any, and the old write is forgotten.
  const now = seen('a');
  expect(writer.wrote('app/a', now.metadata!.resourceVersion)).toBe(false);
  expect(writer.wrote('app/a', old.metadata!.resourceVersion)).toBe(false);
});

it('remembers nothing of a write that failed or changed nothing, or of a deleted object', async () => {
  server.create(configmaps, { metadata: { name: 'a', namespace: 'app', labels: { x: '1' } } });
  const old = seen('a');
  // The same label again: the server stores nothing (same version), and no event comes.
  expect(await write(old, { x: '1' })).toBe(true);
  expect(writer.wrote('app/a', old.metadata!.resourceVersion)).toBe(false);
  // A write from a stale version is a conflict.
  server.update(configmaps, { ...old, metadata: { ...old.metadata, labels: { x: '2' } } });
  expect(await write(old, { [LABEL]: 'pod-1' })).toBe(false);
  expect(writer.wrote('app/a', old.metadata!.resourceVersion)).toBe(false);
  const current = seen('a');
  expect(await write(current, { [LABEL]: 'pod-1' })).toBe(true);
  writer.forget('app/a');
  expect(writer.wrote('app/a', current.metadata!.resourceVersion)).toBe(false);
});
