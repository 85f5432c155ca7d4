import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { inspect } from 'node:util';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { V1Secret } from '@kubernetes/client-node';
import { resourceApi } from '../../../src/client/write/resourceApi.js';
import { isAlreadyExists, WatchError } from '../../../src/WatchError.js';
import { resource } from '../../../src/objects/resources.js';
import { FakeKubeApiServer } from '../../../src/testing/fakeKubeApiServer/FakeKubeApiServer.js';
import { RawServer } from '../../support/rawServer.js';

// No error of a write ever carries a Secret's data, a token or the request body, even from a
// server that echoes the request in its refusal.

const secrets = resource<V1Secret>('v1', 'secrets', { kind: 'Secret' });
const PASSWORD = 's3cr3t-value-1';
const TOKEN_DATA = 'plain-secret-2';
const CHANGED = 'n3w-s3cr3t-3';
const b64 = (s: string) => Buffer.from(s).toString('base64');
/** Every form of every value written, and the bearer token. */
const FORBIDDEN = [
  PASSWORD,
  b64(PASSWORD),
  TOKEN_DATA,
  b64(TOKEN_DATA),
  CHANGED,
  b64(CHANGED),
  'raw-token',
];

// Keys that no credential pattern knows (`password`, `token`... are redacted anyway): what is
// removed here is removed because it was written.
const secret = (): V1Secret & { metadata: { name: string } } => ({
  metadata: { name: 'db', namespace: 'shop' },
  data: { dbpass: b64(PASSWORD) },
  stringData: { apikey: TOKEN_DATA },
});

/** Every text an error carries: message, stack, reason, Status, conflicts, the cause chain. */
function everyText(error: unknown): string {
  expect(error).toBeInstanceOf(WatchError);
  const e = error as WatchError;
  const texts = [
    e.message,
    String(e.stack),
    String(e.reason),
    JSON.stringify(e.status),
    JSON.stringify(e.conflicts),
  ];
  for (let cause = e.cause; cause !== undefined; cause = (cause as Error).cause) {
    texts.push(cause instanceof Error ? `${cause.message} ${cause.stack}` : String(cause));
  }
  texts.push(inspect(e, { depth: Infinity }));
  return texts.join('\n');
}

const expectClean = (error: unknown) => {
  const text = everyText(error);
  for (const value of FORBIDDEN) expect(text).not.toContain(value);
};

describe('a refused Secret write never leaks its data', () => {
  let raw: RawServer;
  beforeAll(async () => {
    // A server that quotes the whole request, body and Authorization header, in every refusal.
    raw = await RawServer.start((req: IncomingMessage, res: ServerResponse) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const body = Buffer.concat(chunks).toString();
        const code = req.method === 'POST' ? 409 : 422;
        const status = {
          kind: 'Status',
          apiVersion: 'v1',
          status: 'Failure',
          code,
          reason: code === 409 ? 'AlreadyExists' : 'Invalid',
          message: `Secret "db" is invalid: ${body} (sent with ${req.headers.authorization})`,
          details: {
            name: 'db',
            kind: 'secrets',
            causes: [
              {
                type: 'FieldValueInvalid',
                field: 'data[dbpass]',
                message: `Invalid value: ${body}`,
              },
              {
                type: 'FieldManagerConflict',
                field: '.data.password',
                message: `conflict with "${body}"`,
              },
            ],
            [body]: body,
          },
        };
        res.writeHead(code, { 'content-type': 'application/json' });
        res.end(JSON.stringify(status));
      });
    });
  });
  afterAll(() => raw.stop());

  it('create, replace, merge and JSON patches and apply of a Secret, refused by a server that echoes them', async () => {
    const api = resourceApi(raw.kubeConfig(), secrets);
    const errors = [
      await api.create(secret()).catch((e) => e),
      await api
        .replace({ ...secret(), metadata: { ...secret().metadata, resourceVersion: '3' } })
        .catch((e) => e),
      await api
        .patch('db', { data: { dbpass: b64(CHANGED) } }, { namespace: 'shop', type: 'merge' })
        .catch((e) => e),
      await api
        .patch('db', [{ op: 'replace', path: '/stringData/apikey', value: CHANGED }], {
          namespace: 'shop',
          type: 'json',
        })
        .catch((e) => e),
      await api.apply(secret(), { fieldManager: 'op' }).catch((e) => e),
      await api.status.apply(secret(), { fieldManager: 'op' }).catch((e) => e),
    ];
    expect(errors.map((e) => e.errorType)).toEqual([
      'CONFLICT',
      'INVALID',
      'INVALID',
      'INVALID',
      'INVALID',
      'INVALID',
    ]);
    for (const error of errors) expectClean(error);
    // What is left is still useful: the kind of failure, the name, where the value was.
    expect(errors[1].message).toContain('Secret "db" is invalid');
    expect(errors[1].message).toContain('<redacted>');
    expect(JSON.stringify(errors[1].status)).toContain('data[dbpass]');
  });

  it('the same against the test server: a Secret created twice is AlreadyExists, with nothing of its data', async () => {
    const server = await FakeKubeApiServer.start({ tls: true, bookmarkIntervalMs: 0 });
    try {
      const api = resourceApi(server.kubeConfig(), secrets);
      await api.create(secret());
      const again = await api.create(secret()).catch((e) => e);
      expect(isAlreadyExists(again)).toBe(true);
      expectClean(again);
    } finally {
      await server.stop();
    }
  });
});
