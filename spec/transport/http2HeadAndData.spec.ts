import { describe, expect, it } from '@jest/globals';
import type http2 from 'node:http2';
import { Readable } from 'node:stream';
import { Http2Exchange } from '../../src/transport/http2Exchange.js';
import type { ExchangeResult } from '../../src/transport/body.js';
import { readBody } from '../../src/client/request/readBody.js';

// node:http2 (lib/internal/http2/core.js, onSessionHeaders) emits a stream's 'response' with
// process.nextTick, while the DATA read with it reaches a flowing stream at once: when HEADERS and
// DATA come in one read (a busy client, the sharding bench with --http2), 'data' is emitted
// before 'response'. Those bytes were dropped (the head was not known yet): a 2xx answer read as
// an empty body, `undefined` to resourceApi and a Lease update. The stream here plays node's
// order exactly: pushed data at once, the head on the next tick.
function nodeOrderStream(): Readable {
  const stream = new Readable({ read() {} });
  return Object.assign(stream, { rstCode: undefined, close: () => undefined });
}

describe('Http2Exchange', () => {
  it('keeps the DATA that node:http2 emits before the response head', async () => {
    const body = JSON.stringify({ kind: 'ConfigMap', padding: 'x'.repeat(300) });
    const stream = nodeOrderStream();
    const session = { request: () => stream } as unknown as http2.ClientHttp2Session;
    const result = new Promise<ExchangeResult>((settle) => {
      const exchange = new Http2Exchange(
        {
          origin: 'https://127.0.0.1',
          method: 'GET',
          path: '/api/v1/namespaces/a/configmaps/b',
          headers: {},
          signal: new AbortController().signal,
        },
        settle,
        () => undefined,
      );
      exchange.open(session);
    });
    // Once the stream flows (as it does long before its answer comes), one socket read brings
    // HEADERS and DATA: the head is emitted on the next tick, the data at once.
    await new Promise((resolve) => setImmediate(resolve));
    process.nextTick(() => stream.emit('response', { ':status': 200 }));
    stream.push(Buffer.from(body));
    stream.push(null);
    const answer = await result;
    if (answer.kind !== 'answer') throw new Error(`no answer: ${answer.kind}`);
    const read = await readBody(answer.body, 1 << 20);
    expect(read.ok && Buffer.from(read.bytes).toString('utf8')).toBe(body);
  });
});
