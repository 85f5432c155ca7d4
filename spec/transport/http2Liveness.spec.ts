/**
 * HTTP/2 liveness (issue 39): a session's signs of life are the bytes it reads (node:http2
 * reads its socket natively, so a socket 'data' listener never fires), and a PING deadline that
 * fires late because the main thread was blocked does not fail a live session. The server runs
 * in another process, so that it goes on streaming while this one is blocked. (A silent session
 * is still found dead: spec/transport/http2.spec.ts, "a relay that goes silent".)
 */
import { afterAll, expect, it } from '@jest/globals';
import { spawn } from 'node:child_process';
import { KubeConfig } from '@kubernetes/client-node';
import { fromWatch } from '../../src/sources/fromWatch.js';
import { pods } from '../../src/objects/resources.js';
import { transportSettings } from '../../src/transport/transportSettings.js';
import type { WatchEvent } from '../../src/types.js';
import { removeTempDirs, tempDir } from '../support/tempDirs.js';
import { sleep, until } from '../support/wait.js';

const dir = tempDir('h2-liveness');
const child = spawn(
  process.execPath,
  ['--import', './bench/register.mjs', 'spec/transport/support/streamingServer.ts', dir],
  { stdio: ['pipe', 'pipe', 'inherit'] },
);
const exited = new Promise((resolve) => child.on('close', resolve));
afterAll(async () => {
  child.stdin!.end();
  await exited;
  removeTempDirs();
});

/** Keeps the main thread busy for `ms`, as a 100 000-object relist or a slow reconcile does. */
function blockFor(ms: number): void {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    // busy
  }
}

it('a session streaming while the main thread is blocked past the PING timeout stays alive', async () => {
  const line = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const found = /KUBECONFIG=(.+)\n/.exec(out);
      if (found) resolve(found[1]);
    });
    child.on('close', () => reject(new Error(`the server process ended: ${out}`)));
  });
  const kc = new KubeConfig();
  kc.loadFromFile(line);
  const saved = { ...transportSettings };
  transportSettings.http2PingIdleMs = 200;
  transportSettings.http2PingTimeoutMs = 300;
  const events: WatchEvent[] = [];
  const subscription = fromWatch(kc, pods, { namespace: 'default' }).subscribe((e) =>
    events.push(e),
  );
  try {
    await until(() => events.length >= 3, 'the first events', 15_000);
    // Blocks of 700 ms (past the 300 ms PING timeout) with short breaks, for 4 s: a PING sent
    // in a break has its deadline run after the next block, before its answer is read.
    for (let i = 0; i < 6; i++) {
      blockFor(700);
      await sleep(i % 2 === 0 ? 5 : 210);
    }
    const before = events.length;
    await until(() => events.length > before + 5, 'events after the blocks', 5000);
    expect(events.filter((e) => e.type === 'ERROR')).toEqual([]);
  } finally {
    subscription.unsubscribe();
    Object.assign(transportSettings, saved);
  }
}, 60_000);
