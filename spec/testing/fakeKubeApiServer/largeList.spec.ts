import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { EventEmitter } from 'node:events';
import { pods } from '../../../src/objects/resources.js';
import { FakeKubeApiServer } from '../../../src/testing/fakeKubeApiServer/FakeKubeApiServer.js';
import type { Reply } from '../../../src/testing/fakeKubeApiServer/protocol.js';
import { sendJsonParts } from '../../../src/testing/fakeKubeApiServer/send.js';
import { pod } from '../../../src/testing/marbles/builders.js';
import { get } from './client.js';
import { connect, H2Stream } from './h2client.js';

const PODS = 400;
const METADATA_LIST =
  'application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json';

/** Pods of about 5 KB, so that a list of them is several of the server's 1 MiB writes. */
function bigPod(i: number) {
  return pod(`p-${String(i).padStart(4, '0')}`, '0', {
    metadata: { namespace: 'big', annotations: { note: `é${i}`.padEnd(5000, 'x') } },
  });
}

describe('FakeKubeApiServer lists longer than one write', () => {
  let server: FakeKubeApiServer;
  beforeAll(async () => {
    server = await FakeKubeApiServer.start({ tls: true, bookmarkIntervalMs: 0 });
    for (let i = 0; i < PODS; i++) server.create(pods, bigPod(i));
  });
  afterAll(() => server.stop());

  const check = (list: any, kind: string) => {
    expect(list.kind).toBe(kind);
    expect(list.items).toHaveLength(PODS);
    list.items.forEach((item: any, i: number) => {
      expect(item.metadata.name).toBe(`p-${String(i).padStart(4, '0')}`);
      expect(item.metadata.annotations.note).toBe(`é${i}`.padEnd(5000, 'x'));
    });
  };

  it('sends every item, byte for byte, over HTTP/1.1 (Content-Length in bytes, not characters)', async () => {
    for (let round = 0; round < 2; round++) {
      const reply = await get(server, '/api/v1/pods');
      expect(reply.status).toBe(200);
      expect(Number(reply.headers['content-length'])).toBe(Buffer.byteLength(reply.body));
      expect(Buffer.byteLength(reply.body)).toBeGreaterThan(2 * 1024 * 1024);
      check(reply.json, 'PodList');
    }
  });

  it('sends every item of a metadata list and of a full list over HTTP/2', async () => {
    const session = await connect(server);
    try {
      const full = new H2Stream(session, '/api/v1/pods');
      check(await full.json(), 'PodList');
      const meta = new H2Stream(session, '/api/v1/pods', { headers: { accept: METADATA_LIST } });
      const list = await meta.json();
      check(list, 'PartialObjectMetadataList');
      expect(list.items[0].spec).toBeUndefined();
    } finally {
      session.close();
    }
  });
});

/** A reply that records writes and answers "full" until told to drain. */
class SlowReply extends EventEmitter {
  headersSent = false;
  writableEnded = false;
  status = 0;
  headers: Record<string, unknown> = {};
  writes: number[] = [];
  full = true;
  writeHead(status: number, headers: Record<string, unknown> = {}): this {
    this.status = status;
    this.headers = headers;
    this.headersSent = true;
    return this;
  }
  write(chunk: Uint8Array): boolean {
    this.writes.push(chunk.length);
    return !this.full;
  }
  end(chunk?: Uint8Array): this {
    if (chunk !== undefined) this.writes.push(chunk.length);
    this.writableEnded = true;
    return this;
  }
  flushHeaders(): void {}
}

describe('sendJsonParts', () => {
  it('writes a long body in batches of at most 1 MiB, each after the previous one drained', () => {
    const parts = Array.from({ length: 40 }, (_, i) => Buffer.alloc(100 * 1024, i));
    const res = new SlowReply();
    sendJsonParts(res as unknown as Reply, 200, parts);
    expect(res.headers['Content-Length']).toBe(40 * 100 * 1024);
    expect(res.writes).toEqual([10 * 100 * 1024]);
    res.emit('drain');
    expect(res.writes).toHaveLength(2);
    res.full = false;
    res.emit('drain');
    expect(res.writes.reduce((a, b) => a + b, 0)).toBe(40 * 100 * 1024);
    expect(res.writes.every((n) => n <= 1024 * 1024)).toBe(true);
    expect(res.writableEnded).toBe(true);
  });

  it('sends a short body in one end()', () => {
    const res = new SlowReply();
    sendJsonParts(res as unknown as Reply, 200, [Buffer.from('{"a":'), Buffer.from('1}')]);
    expect(res.writes).toEqual([7]);
    expect(res.writableEnded).toBe(true);
  });
});
