import { afterEach, describe, expect, it } from '@jest/globals';
import { setTimeout as sleep } from 'node:timers/promises';
import { firstValueFrom } from 'rxjs';
import { resumeFromResourceVersion } from '../../src/operators/resumeFromResourceVersion.js';
import { fromList } from '../../src/sources/fromList.js';
import { fromWatch } from '../../src/sources/fromWatch.js';
import type { WatchEvent } from '../../src/types.js';
import { watchResource } from '../../src/watch.js';
import { RawServer, collect, line, rawPod } from '../support/rawServer.js';
import { pods, types } from './support.js';
import { until } from '../support/wait.js';

// What the hostile corpus found in code outside spec/hostile (issue 8). Each spec is minimal; all
// of them failed before commit 3e060d2 fixed the bugs they name, and stay as regression tests.
describe('findings against hostile servers', () => {
  let raw: RawServer | undefined;
  afterEach(async () => {
    await raw?.stop();
    raw = undefined;
  });

  /** Runs a resumed watch for `ms` and returns how many requests the server got meanwhile. */
  const requestsWhileResumed = async (
    ms: number,
    config: Parameters<typeof resumeFromResourceVersion>[0] = { initialState: 'none' },
  ) => {
    const events: WatchEvent[] = [];
    const subscription = fromWatch(raw!.kubeConfig(), pods)
      .pipe(resumeFromResourceVersion(config))
      .subscribe({ next: (e) => events.push(e), error: () => {} });
    await sleep(ms);
    subscription.unsubscribe();
    return { requests: raw!.requests.length, events };
  };

  // resumeFromResourceVersion (internal/backoffDelay.ts): Retry-After is used uncapped;
  // a delay above 2^31-1 ms makes the RxJS timer fire after 1 ms (Node's TimeoutOverflowWarning),
  // so the watch retries in a tight loop: ~400 requests a second against the API server.
  it('a Retry-After longer than a timer can hold does not make a resumed watch retry in a tight loop', async () => {
    raw = await RawServer.start((_req, res) => {
      res.writeHead(503, { 'content-type': 'application/json', 'retry-after': '99999999999' });
      res.end(JSON.stringify({ kind: 'Status', code: 503 }));
    });
    const { requests } = await requestsWhileResumed(1000);
    expect(requests).toBeLessThanOrEqual(3);
  });

  it('a huge retryAfterSeconds in an in-stream Status does not make a resumed watch retry in a tight loop', async () => {
    raw = await RawServer.start((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(line('ERROR', { kind: 'Status', code: 429, details: { retryAfterSeconds: 1e10 } }));
    });
    const { requests } = await requestsWhileResumed(1000);
    expect(requests).toBeLessThanOrEqual(3);
  });

  // client/statusError.ts statusToWatchError: any number in [100, 599] is taken as the code, so
  // a code of 410.5 becomes UNKNOWN_ERROR with statusCode 410.5, which resumeFromResourceVersion
  // classifies as 'refused' (a 4xx) and errors the whole stream on. A code that is not a whole
  // number is no HTTP status: it should fall back like 0, 999 or a string (500, SYSTEM_ERROR).
  it('an in-stream Status whose code is not a whole number is a 500 SYSTEM_ERROR', async () => {
    raw = await RawServer.start((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(line('ERROR', { kind: 'Status', code: 410.5 }));
    });
    const [event] = await collect(watchResource(raw.kubeConfig(), pods));
    expect(event).toMatchObject({
      type: 'ERROR',
      error: { errorType: 'SYSTEM_ERROR', statusCode: 500 },
    });
  });

  // sources/fromList.ts listPages: a 200 answer of `{}` or `[]` passes the shape check
  // (`page.items ?? []`) and becomes an empty list at resourceVersion ''. A relist answered so by
  // a broken proxy makes resumeFromResourceVersion emit DELETED for every object it delivered and
  // an initial-events-end BOOKMARK at '' (then it watches with no version at all). The API server
  // always sends a list's metadata.resourceVersion; without one the answer is not a list.
  it.each([
    ['{}', '{}'],
    ['[]', '[]'],
    ['a list without a resourceVersion', '{"kind":"PodList","apiVersion":"v1","items":[]}'],
  ])('a list answer of %s is PARSE_ERROR, not an empty list', async (_what, body) => {
    raw = await RawServer.start((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(body);
    });
    const outcome = await firstValueFrom(fromList(raw.kubeConfig(), pods)).then(
      (list) => ({ list }),
      (error: unknown) => ({ error }),
    );
    expect(outcome).toMatchObject({ error: { errorType: 'PARSE_ERROR' } });
  });

  it('a resumed watch whose relist is answered {} does not delete what it delivered', async () => {
    let lists = 0;
    raw = await RawServer.start((req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      if (req.url?.includes('watch=true')) {
        return res.end(line('ERROR', { kind: 'Status', code: 410, reason: 'Expired' }));
      }
      res.end(
        ++lists === 1
          ? JSON.stringify({ metadata: { resourceVersion: '5' }, items: [rawPod('a', '3')] })
          : '{}',
      );
    });
    // Backoff jitter near 0, so the relist comes at once; waited for, not timed (a loaded
    // machine may take longer than any fixed window).
    const events: WatchEvent[] = [];
    const subscription = fromWatch(raw.kubeConfig(), pods)
      .pipe(resumeFromResourceVersion({ random: () => 0.001 }))
      .subscribe({ next: (e) => events.push(e), error: () => {} });
    await until(
      () => lists >= 2,
      () => `${lists} lists`,
      10_000,
    );
    await sleep(50); // what the second list answer would make it emit
    subscription.unsubscribe();
    expect(types(events)).not.toContain('DELETED');
  });
});
