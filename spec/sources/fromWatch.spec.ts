import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { firstValueFrom, lastValueFrom, take, toArray } from 'rxjs';
import { fromWatch } from '../../src/sources/fromWatch.js';
import { pods } from '../../src/objects/resources.js';
import type { WatchEvent } from '../../src/types.js';
import { FakeKubeApiServer } from '../../src/testing/index.js';
import { pod } from '../../src/testing/marbles/builders.js';
import { RawServer, line, rawPod, streamChunks } from '../support/rawServer.js';
import { sleep, until } from '../support/wait.js';

const closeCount = (server: FakeKubeApiServer) =>
  server.connectionLog.filter((e) => e.event === 'close').length;
/** Resolves once the server's connection log gains a close after `closesBefore`, within `ms`. */
const closeSeenWithin = (server: FakeKubeApiServer, closesBefore: number, ms: number) =>
  until(() => closeCount(server) > closesBefore, `the server to see a close`, ms);

describe('fromWatch', () => {
  let server: FakeKubeApiServer;
  beforeAll(async () => {
    server = await FakeKubeApiServer.start({ bookmarkIntervalMs: 0 });
    for (let i = 0; i < 3; i++) server.create(pods, pod(`p${i}`, '0'));
  });
  afterAll(async () => {
    await server.waitForConnections(0, 1000);
    await server.stop();
  });

  it('is cold: nothing is sent before a subscription, and two subscriptions make two requests', async () => {
    const source = fromWatch(server.kubeConfig(), pods, {
      namespace: 'default',
      timeoutSeconds: 1,
    });
    const before = server.requests.length;
    await sleep(20);
    expect(server.requests.length).toBe(before);
    const [a, b] = await Promise.all([
      lastValueFrom(source.pipe(toArray())),
      lastValueFrom(source.pipe(toArray())),
    ]);
    expect(server.requests.length).toBe(before + 2);
    expect(a.map((e) => e.type)).toEqual(['ADDED', 'ADDED', 'ADDED']);
    expect(b).toHaveLength(3);
  });

  it('completes when the server ends the watch', async () => {
    const events = await lastValueFrom(
      fromWatch(server.kubeConfig(), pods, { timeoutSeconds: 1 }).pipe(toArray()),
    );
    expect(events).toHaveLength(3);
  });

  it('carries its request, and withOptions makes another cold source', async () => {
    const kc = server.kubeConfig();
    const source = fromWatch(kc, pods, { namespace: 'default', labelSelector: 'a=b' });
    const resumed = source.withOptions({ resourceVersion: '7', labelSelector: undefined });
    expect(source.cluster).toBe(kc);
    expect(source.resource).toBe(pods);
    expect(source.options).toEqual({ namespace: 'default', labelSelector: 'a=b' });
    expect(resumed.options).toEqual({ namespace: 'default', resourceVersion: '7' });
    expect(Object.isFrozen(source.options)).toBe(true);
  });

  it('unsubscribing before the response headers closes the connection within 250 ms', async () => {
    server.faults.delayHeaders(5000);
    const closes = closeCount(server);
    const requests = server.requests.length;
    const subscription = fromWatch(server.kubeConfig(), pods).subscribe();
    await server.waitForRequests(requests + 1);
    subscription.unsubscribe();
    await closeSeenWithin(server, closes, 250);
    server.faults.reset();
  });

  it('unsubscribing an idle watch closes the connection within 250 ms', async () => {
    const closes = closeCount(server);
    const seen: WatchEvent[] = [];
    const subscription = fromWatch(server.kubeConfig(), pods).subscribe((e) => seen.push(e));
    while (seen.length < 3) await sleep(2);
    await sleep(30);
    subscription.unsubscribe();
    await closeSeenWithin(server, closes, 250);
  });

  it('unsubscribing mid-burst closes the connection within 250 ms and delivers nothing after', async () => {
    for (let i = 0; i < 300; i++)
      server.create(pods, pod(`burst-${i}`, '0', { metadata: { namespace: 'burst' } }));
    const closes = closeCount(server);
    const events = await lastValueFrom(
      fromWatch(server.kubeConfig(), pods, { namespace: 'burst' }).pipe(take(5), toArray()),
    );
    expect(events).toHaveLength(5);
    await closeSeenWithin(server, closes, 250);
  });

  it('options.signal aborting ends the subscription quietly and closes the connection', async () => {
    const controller = new AbortController();
    const closes = closeCount(server);
    let completed = false;
    let errored = false;
    fromWatch(server.kubeConfig(), pods, { signal: controller.signal }).subscribe({
      complete: () => (completed = true),
      error: () => (errored = true),
    });
    await sleep(50);
    controller.abort();
    await closeSeenWithin(server, closes, 250);
    expect(completed).toBe(true);
    expect(errored).toBe(false);
    let completedAtOnce = false;
    fromWatch(server.kubeConfig(), pods, { signal: controller.signal }).subscribe({
      complete: () => (completedAtOnce = true),
    });
    expect(completedAtOnce).toBe(true);
  });

  it('ERROR events arrive as values, then the source completes', async () => {
    server.faults.fail(403, { message: 'pods is forbidden' });
    const events = await lastValueFrom(fromWatch(server.kubeConfig(), pods).pipe(toArray()));
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({
      type: 'ERROR',
      error: { errorType: 'FORBIDDEN', statusCode: 403 },
    });
  });

  it('an in-stream 410 arrives as a value', async () => {
    server.expireHistory();
    const event = await firstValueFrom(
      fromWatch(server.kubeConfig(), pods, { resourceVersion: '1' }),
    );
    expect(event).toMatchObject({ type: 'ERROR', error: { errorType: 'GONE', statusCode: 410 } });
  });

  it('after everything has ended no socket to the server remains', async () => {
    await server.waitForConnections(0, 1000);
    expect(server.openConnections).toBe(0);
    const sockets = (process as unknown as { _getActiveHandles(): unknown[] })
      ._getActiveHandles()
      .filter((h) => (h as { remotePort?: number }).remotePort === server.port);
    expect(sockets).toHaveLength(0);
  });
});

describe('fromWatch on a raw server', () => {
  let raw: RawServer;
  beforeAll(async () => {
    raw = await RawServer.start();
  });
  afterAll(() => raw.stop());

  it('stops decoding at the event after which the subscriber left: the rest of that read is never parsed', async () => {
    // One write: the event the subscriber takes, then lines that would be logged if decoded.
    raw.handler = streamChunks(
      [line('ADDED', rawPod('a', '1')) + 'not json\n'.repeat(3) + line('ADDED', rawPod('b', '2'))],
      { end: false },
    );
    const warnings: string[] = [];
    const events = await lastValueFrom(
      fromWatch(raw.kubeConfig(), pods, { logger: { warn: (m) => warnings.push(m) } }).pipe(
        take(1),
        toArray(),
      ),
    );
    expect(events.map((e) => e.type)).toEqual(['ADDED']);
    await raw.waitForNoSockets();
    expect(warnings).toEqual([]);
  });
});
