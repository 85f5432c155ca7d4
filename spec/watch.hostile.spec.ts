import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { watchResource } from '../src/watch.js';
import type { WatchEvent } from '../src/types.js';
import { RawServer, collect, line, rawPod, streamChunks } from './support/rawServer.js';
import { sleep } from './support/wait.js';

const pods = { group: '', version: 'v1', plural: 'pods' };
const types = (events: WatchEvent[]) =>
  events.map((e) => (e.type === 'ERROR' ? `ERROR:${e.error.errorType}` : e.type));

// Floods (endless error bodies, lines far over maxLineBytes) and lying encodings are in
// spec/hostile/, run on both paths.
describe('watchResource against broken and hostile servers', () => {
  let raw: RawServer;
  beforeAll(async () => {
    raw = await RawServer.start();
  });
  afterAll(() => raw.stop());

  const run = async (options = {}) => {
    const events = await collect(watchResource(raw.kubeConfig(), pods, options));
    // No socket is left for the next case. Not a timing claim (the abort cases below bound the
    // time), so a loaded machine gets room.
    await raw.waitForNoSockets(5_000);
    return events;
  };

  it('an HTML error page gives one ERROR with the status, not a crash', async () => {
    raw.handler = (_req, res) => {
      res.writeHead(502, { 'content-type': 'text/html' });
      res.end('<html><body><h1>502 Bad Gateway</h1></body></html>');
    };
    const events = await run();
    expect(types(events)).toEqual(['ERROR:SYSTEM_ERROR']);
    expect(events[0]).toMatchObject({ error: { statusCode: 502 } });
  });

  it('garbage, null, numbers, arrays, strings and unknown types are skipped; events around them survive', async () => {
    raw.handler = streamChunks([
      'garbage\n',
      'null\n',
      '42\n',
      '[1,2]\n',
      '"ADDED"\n',
      '{"type":"ADDED","object":null}\n',
      '{"type":"ADDED","object":[1]}\n',
      '{"type":"ADDED","object":"pod"}\n',
      '{"type":"EXPLODED","object":{}}\n',
      '{"object":{"metadata":{}}}\n',
      line('ADDED', rawPod('ok', '1')),
      '   \n',
      '\u0000\u0001\n',
      line('DELETED', rawPod('ok', '2')),
    ]);
    const warnings: string[] = [];
    const events = await run({ logger: { warn: (m: string) => warnings.push(m) } });
    expect(types(events)).toEqual(['ADDED', 'DELETED']);
    expect(warnings).toHaveLength(12);
  });

  it('lines cut across chunks anywhere, multi-byte characters and CRLF included, arrive whole', async () => {
    const body = Buffer.from(
      line('ADDED', rawPod('ünïcødé-🚀', '1')).replace('\n', '\r\n') +
        line('MODIFIED', rawPod('日本', '2')),
      'utf8',
    );
    raw.handler = (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      let at = 0;
      const sizes = [1, 7, 3, 2, 50, 1, 1, 1, 13];
      const next = () => {
        if (at >= body.length) return res.end();
        const size = sizes[at % sizes.length];
        res.write(body.subarray(at, at + size));
        at += size;
        setImmediate(next);
      };
      next();
    };
    const events = await run();
    expect(
      events.map((e) =>
        e.type === 'ERROR' ? '' : (e.object as { metadata: { name: string } }).metadata.name,
      ),
    ).toEqual(['ünïcødé-🚀', '日本']);
  });

  it('a last line without a newline still counts', async () => {
    raw.handler = streamChunks([
      line('ADDED', rawPod('a', '1')),
      line('ADDED', rawPod('b', '2')).trimEnd(),
    ]);
    expect(types(await run())).toEqual(['ADDED', 'ADDED']);
  });

  it('maxLineBytes bounds lines below the default', async () => {
    raw.handler = streamChunks([
      line('ADDED', rawPod('a', '1')),
      line('ADDED', rawPod('b'.repeat(200), '2')),
    ]);
    expect(types(await run({ maxLineBytes: 150 }))).toEqual(['ADDED', 'ERROR:PARSE_ERROR']);
  });

  it('maxLineBytes bounds a last line without a newline too', async () => {
    raw.handler = streamChunks([line('ADDED', rawPod('a', '1')), 'x'.repeat(151)]);
    expect(types(await run({ maxLineBytes: 150 }))).toEqual(['ADDED', 'ERROR:PARSE_ERROR']);
    raw.handler = streamChunks([line('ADDED', rawPod('a', '1')), 'x'.repeat(150)]);
    expect(types(await run({ maxLineBytes: 150 }))).toEqual(['ADDED']);
  });

  it('a chunked body cut off mid-line gives SYSTEM_ERROR after the complete events', async () => {
    raw.handler = (req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write(line('ADDED', rawPod('a', '1')));
      res.write('{"type":"ADDED","obj');
      setTimeout(() => req.socket.destroy(), 20);
    };
    expect(types(await run())).toEqual(['ADDED', 'ERROR:SYSTEM_ERROR']);
  });

  it('a body shorter than its Content-Length gives SYSTEM_ERROR instead of waiting forever', async () => {
    raw.handler = (req, res) => {
      const body = line('ADDED', rawPod('a', '1'));
      res.writeHead(200, {
        'content-type': 'application/json',
        'content-length': String(body.length + 500),
      });
      res.write(body);
      setTimeout(() => req.socket.destroy(), 20);
    };
    expect(types(await run())).toEqual(['ADDED', 'ERROR:SYSTEM_ERROR']);
  });

  it('a bad chunk size gives SYSTEM_ERROR', async () => {
    raw.handler = (req) => {
      req.socket.write(
        'HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n',
      );
      const event = line('ADDED', rawPod('a', '1'));
      req.socket.write(`${Buffer.byteLength(event).toString(16)}\r\n${event}\r\n`);
      setTimeout(() => req.socket.write('ZZZ\r\nnope'), 20);
    };
    expect(types(await run())).toEqual(['ADDED', 'ERROR:SYSTEM_ERROR']);
  });

  it('after a consumer break on a streaming server, the socket is closed', async () => {
    raw.handler = (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      const timer = setInterval(() => res.write(line('MODIFIED', rawPod('a', '1'))), 5);
      res.on('close', () => clearInterval(timer));
    };
    let n = 0;
    for await (const event of watchResource(raw.kubeConfig(), pods)) {
      expect(event.type).toBe('MODIFIED');
      if (++n === 3) break;
    }
    await raw.waitForNoSockets(2000); // never without the close; roomy for a loaded CI machine
  });

  it('an abort before the response headers sends the close at once', async () => {
    raw.handler = () => {
      /* never answers */
    };
    const controller = new AbortController();
    const done = collect(watchResource(raw.kubeConfig(), pods, { signal: controller.signal }));
    while (raw.openSockets === 0) await sleep(2);
    controller.abort();
    expect(await done).toEqual([]);
    await raw.waitForNoSockets(2000); // never without the abort; roomy for a loaded CI machine
  });
});
