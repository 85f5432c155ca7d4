/**
 * Hostile answers to writes (issue 39, item 3): a server answering `resourceApi`'s create, patch
 * and apply with a huge body, a body that never ends, a body that stalls, invalid JSON, a Status
 * with control characters and the bearer token in it, a 409 whose causes are hostile. Each
 * write ends with a typed WatchError, reads at most the request core's bound (16 MiB for a JSON
 * answer, 64 KiB for an error's Status) and carries nothing secret in any text.
 * (A Status echoing a Secret's data is resourceApi.secrets.spec.ts's.)
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { inspect } from 'node:util';
import { requestJson } from '../../src/client/request/requestJson.js';
import { resourceApi } from '../../src/client/write/resourceApi.js';
import { configmaps } from '../../src/objects/resources.js';
import { WatchError } from '../../src/WatchError.js';
import { RawServer } from '../support/rawServer.js';

const TOKEN = 'tok-7f3a9c1e5b2d8046';
const MiB = 1024 * 1024;
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/;

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

let raw: RawServer;
let answer: Handler;
beforeAll(async () => {
  raw = await RawServer.start((req, res) => {
    req.resume();
    answer(req, res);
  });
});
afterAll(() => raw.stop());
beforeEach(() => {
  raw.requests.length = 0;
});

const config = { metadata: { name: 'web', namespace: 'shop' }, data: { a: '1' } };
/** The three writes whose answers carry an object back, each with the same answer. */
const WRITES: Array<[string, (signal?: AbortSignal) => Promise<unknown>]> = [
  ['create', (signal) => api().create(config, { signal })],
  [
    'patch',
    (signal) => api().patch('web', { data: {} }, { namespace: 'shop', type: 'merge', signal }),
  ],
  ['apply', (signal) => api().apply(config, { fieldManager: 'op', signal })],
];
const api = () => resourceApi(raw.kubeConfig(TOKEN), configmaps);

/** The error a write rejected with (failing when it resolved). */
async function rejection(write: Promise<unknown>): Promise<WatchError> {
  const error = await write.then(
    () => new Error('the write resolved'),
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(WatchError);
  return error as WatchError;
}

/** Every text an error carries, as secrets.spec reads them. */
function everyText(e: WatchError): string {
  const texts = [
    e.message,
    String(e.reason),
    JSON.stringify(e.status),
    JSON.stringify(e.conflicts),
  ];
  for (let cause = e.cause; cause !== undefined; cause = (cause as Error).cause)
    texts.push(cause instanceof Error ? cause.message : String(cause));
  texts.push(inspect(e, { depth: Infinity }));
  return texts.join('\n');
}

/** Writes `total` bytes of JSON-ish filler in 1 MiB chunks, honouring back-pressure. */
async function flood(res: ServerResponse, total: number): Promise<void> {
  const chunk = Buffer.alloc(MiB, 0x61);
  for (let sent = 0; sent < total && !res.destroyed; sent += chunk.length) {
    if (!res.write(chunk))
      await new Promise((r) => {
        res.once('drain', r);
        res.once('close', r);
      });
  }
}

/** The largest growth of the process's heap and buffers while `run` runs. */
async function peakGrowth(run: () => Promise<unknown>): Promise<number> {
  const used = () => {
    const m = process.memoryUsage();
    return m.heapUsed + m.arrayBuffers;
  };
  const start = used();
  let peak = 0;
  const timer = setInterval(() => (peak = Math.max(peak, used() - start)), 5);
  try {
    await run();
  } finally {
    clearInterval(timer);
  }
  return Math.max(peak, used() - start);
}

describe.each(WRITES)('%s answered by a hostile server', (_name, write) => {
  it('a 64 MiB answer: SYSTEM_ERROR naming the 16 MiB bound, memory bounded', async () => {
    answer = (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': 64 * MiB });
      void flood(res, 64 * MiB);
    };
    let error: WatchError | undefined;
    const growth = await peakGrowth(async () => (error = await rejection(write())));
    expect(error!.errorType).toBe('SYSTEM_ERROR');
    expect(error!.message).toContain(`longer than ${16 * MiB} bytes`);
    // The answer is cut at 16 MiB (and may be copied once when joined): never 64.
    expect(growth).toBeLessThan(48 * MiB);
  });

  it('a body that never ends: ends at the same bound', async () => {
    answer = (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      void flood(res, Number.POSITIVE_INFINITY);
    };
    const error = await rejection(write());
    expect(error.errorType).toBe('SYSTEM_ERROR');
    expect(error.message).toContain(`longer than ${16 * MiB} bytes`);
  });

  it('a body that stalls without data: bounded only by the caller signal, which ends it', async () => {
    answer = (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"kind":');
    };
    // No body timeout in the request core (watches need none): nothing grows, and the write
    // waits until the caller's signal aborts it (docs/reliability.md says so).
    let settled = false;
    const controller = new AbortController();
    const pending = write(controller.signal).finally(() => (settled = true));
    await new Promise((r) => setTimeout(r, 300));
    expect(settled).toBe(false);
    controller.abort();
    const error = await rejection(pending);
    expect(error.message).toMatch(/^aborted/);
  });

  it('an error answer whose Status stalls: ended by the signal too', async () => {
    answer = (_req, res) => {
      res.writeHead(409, { 'content-type': 'application/json' });
      res.write('{"kind":"Status",');
    };
    const pending = write(AbortSignal.timeout(200));
    const error = await rejection(pending);
    expect(error.message).toMatch(/^aborted/);
  });

  it('invalid JSON in a 2xx: PARSE_ERROR, the body not echoed', async () => {
    answer = (_req, res) => {
      res.writeHead(201, { 'content-type': 'application/json' });
      res.end(`{"metadata": {"name": "web"}, "token": "${TOKEN}"`);
    };
    const error = await rejection(write());
    expect(error.errorType).toBe('PARSE_ERROR');
    expect(everyText(error)).not.toContain(TOKEN);
  });

  it('a 2xx with no body: PARSE_ERROR, never a write that resolves with undefined', async () => {
    answer = (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end();
    };
    const error = await rejection(write());
    expect(error.errorType).toBe('PARSE_ERROR');
    expect(error.statusCode).toBe(200);
    expect(error.message).toMatch(/no body/);
  });

  it('a 204 No Content is the one 2xx without a body that resolves (the request core, any method)', async () => {
    answer = (_req, res) => {
      res.writeHead(204);
      res.end();
    };
    const got = await requestJson(raw.kubeConfig(TOKEN), {
      method: 'DELETE',
      path: '/api/v1/namespaces/shop/configmaps/web',
      signal: new AbortController().signal,
    });
    expect(got).toEqual({ ok: true, status: 204, value: undefined });
  });

  it('a Status with control characters and the token: sanitised and redacted everywhere', async () => {
    const hostile = `\u001b]0;owned\u0007 Bearer ${TOKEN}\r\n\u009b2J token=${TOKEN}`;
    answer = (_req, res) => {
      res.writeHead(422, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          kind: 'Status',
          code: 422,
          reason: `Invalid${hostile}`,
          message: hostile,
          details: { causes: [{ type: 'FieldValueInvalid', field: hostile, message: hostile }] },
        }),
      );
    };
    const error = await rejection(write());
    expect(error.errorType).toBe('INVALID');
    expect(everyText(error)).not.toContain(TOKEN);
    expect(error.message).not.toMatch(CONTROL);
    expect(error.reason).not.toMatch(CONTROL);
  });

  it('a 409 whose causes are hostile: conflicts typed, bounded, redacted', async () => {
    const conflict = (field: unknown, message: unknown) => ({
      type: 'FieldManagerConflict',
      field,
      message,
    });
    const causes = [
      null,
      42,
      'FieldManagerConflict',
      [conflict('.x', 'conflict with "a"')],
      conflict({ nested: TOKEN }, 42),
      conflict(`.data.${TOKEN}`, `conflict with "m\u001b[2J ${TOKEN}"`),
      // As many as the 64 KiB an error's Status is read from can hold.
      ...Array.from({ length: 2000 }, (_, i) => conflict(`.f${i}`, 'conflict with "x"')),
    ];
    answer = (_req, res) => {
      res.writeHead(409, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({ kind: 'Status', code: 409, reason: 'Conflict', details: { causes } }),
      );
    };
    const error = await rejection(write());
    expect(error.errorType).toBe('CONFLICT');
    // The Status is longer than the 64 KiB read of an error: no conflicts, no crash.
    expect(error.conflicts).toBeUndefined();

    answer = (_req, res) => {
      res.writeHead(409, { 'content-type': 'application/json' });
      const status = {
        kind: 'Status',
        code: 409,
        reason: 'Conflict',
        details: { causes: causes.slice(0, 300) },
      };
      res.end(JSON.stringify(status));
    };
    const cut = await rejection(write());
    const conflicts = cut.conflicts!;
    expect(conflicts.length).toBeGreaterThan(0);
    expect(conflicts.length).toBeLessThanOrEqual(300);
    for (const c of conflicts) {
      for (const text of [c.manager, c.field, c.message]) {
        expect(typeof text).toBe('string');
        expect(text).not.toMatch(CONTROL);
        expect(text.length).toBeLessThan(2000);
      }
    }
    expect(conflicts[0]).toEqual({ manager: '', field: '', message: '' });
    expect(everyText(cut)).not.toContain(TOKEN);

    answer = (_req, res) => {
      res.writeHead(409, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          kind: 'Status',
          code: 409,
          details: { causes: { 0: conflict('.a', 'x') } },
        }),
      );
    };
    expect((await rejection(write())).conflicts).toBeUndefined();
  });
});
