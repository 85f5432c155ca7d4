import { afterEach, describe, expect, it, jest } from '@jest/globals';
import { connect, type Socket } from 'node:net';
import { startDashboard } from '../../src/cli/dashboard/startDashboard.js';
import { pods } from '../../src/objects/resources.js';
import { FakeKubeApiServer } from '../../src/testing/fakeKubeApiServer/FakeKubeApiServer.js';
import { pod } from '../../src/testing/marbles/builders.js';
import { until } from '../support/wait.js';

jest.setTimeout(60_000);

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A plain HTTP client of `/events` that reads only when told to. */
function eventStreamClient(url: string): { socket: Socket; text: () => string } {
  const { port } = new URL(url);
  const socket = connect(Number(port), '127.0.0.1');
  socket.write(`GET /events HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n\r\n`);
  let text = '';
  socket.setEncoding('utf8');
  socket.on('data', (chunk: string) => (text += chunk));
  return { socket, text: () => text };
}

describe('the dashboard server', () => {
  it('sends nothing more to a browser that stopped reading, then skips it to the latest state and says so', async () => {
    const server = await FakeKubeApiServer.start();
    cleanups.push(() => server.stop());
    const warnings: string[] = [];
    const dashboard = await startDashboard({
      cluster: server.kubeConfig(),
      clusterName: 'fake',
      server: server.url,
      port: 0,
      throttleMs: 5,
      maxQueuedBytes: 64 * 1024,
      warn: (line) => warnings.push(line),
    });
    cleanups.push(() => dashboard.close());
    await until(() => dashboard.feed.status().synced, 'the feed synced');

    const slow = eventStreamClient(dashboard.url);
    cleanups.push(() => slow.socket.destroy());
    await until(() => slow.text().includes('event: snapshot'), 'the first snapshot');
    slow.socket.pause(); // stops reading: the kernel buffers fill, then the server's

    // Long names make big rows: a few MB of diffs in all, far more than the socket buffers hold.
    const long = 'x'.repeat(200);
    let created = 0;
    const createSome = async (count: number) => {
      for (let i = 0; i < count; i++) server.create(pods, pod(`p-${created++}-${long}`, ''));
      await new Promise((resolve) => setTimeout(resolve, 20));
    };
    while (dashboard.clients().skippedMessages === 0) {
      if (created >= 20_000) throw new Error('the slow client never fell behind');
      await createSome(200);
    }
    expect(warnings).toContain(
      'kube-rx: a browser fell behind; it skips to the latest state when it reads',
    );
    // What waits for the slow socket stays bounded whatever is sent meanwhile: at most
    // maxQueuedBytes, one message past it, and the latest snapshot it was skipped to.
    let worst = 0;
    for (let round = 0; round < 10; round++) {
      await createSome(200);
      const bound = dashboard.feed.snapshotMessage().length + 64 * 1024 + 256 * 1024;
      worst = Math.max(worst, dashboard.clients().bufferedBytes / bound);
    }
    expect(worst).toBeLessThan(1);
    const skippedBefore = dashboard.clients().skippedMessages;
    expect(skippedBefore).toBeGreaterThan(0);
    expect(dashboard.clients().connected).toBe(1);

    const last = `p-last-${long}`;
    server.create(pods, pod(last, ''));
    await until(
      () => dashboard.feed.snapshot().rows.some((r) => r.name === last),
      'the last pod in the feed',
    );
    slow.socket.resume();
    // It reads again: told what it missed, then the latest state, whole.
    const hasLatest = () => {
      const text = slow.text();
      const skippedAt = text.lastIndexOf('event: skipped');
      if (skippedAt < 0) return false;
      const snapshot = /event: snapshot\ndata: (.*)\n\n/.exec(text.slice(skippedAt));
      if (!snapshot) return false;
      return (JSON.parse(snapshot[1]!) as { rows: { name: string }[] }).rows.some(
        (r) => r.name === last,
      );
    };
    await until(hasLatest, 'a skipped message then a snapshot with the last pod', 20_000);
    expect(slow.text()).toMatch(/event: skipped\ndata: \{"messages":[1-9]\d*\}\n\n/);
    await until(() => dashboard.clients().behind === 0, 'caught up');
    expect(dashboard.clients().resyncs).toBeGreaterThan(0);
  });
});
