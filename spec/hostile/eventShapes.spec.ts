import { describe, expect, it } from '@jest/globals';
import { line, rawPod, streamChunks } from '../support/rawServer.js';
import { MB, expectClean, useRawServer, runHostile, types } from './support.js';

// Lines that are JSON but not watch events, in-stream Status objects of every wrong shape,
// hostile JSON (prototype keys, deep nesting, huge messages) and invalid UTF-8, through
// watchResource and fromWatch.
const named = (events: Awaited<ReturnType<typeof runHostile>>['generator']) =>
  events.map((e) =>
    e.type === 'ERROR'
      ? `ERROR:${e.error.statusCode}`
      : (e.object as { metadata: { name: string } }).metadata.name,
  );

describe('hostile watch lines', () => {
  const raw = useRawServer();

  const run = async (chunks: Array<string | Buffer>, options = {}) => {
    raw().handler = streamChunks(chunks);
    return runHostile(raw().kubeConfig(), options);
  };

  it('a type that is not one of the four strings is skipped and logged, whatever its JSON type', async () => {
    const object = rawPod('x', '1');
    const result = await run([
      JSON.stringify({ type: 1, object }) + '\n',
      JSON.stringify({ type: ['ADDED'], object }) + '\n',
      JSON.stringify({ type: { ADDED: true }, object }) + '\n',
      JSON.stringify({ type: null, object }) + '\n',
      JSON.stringify({ type: 'added', object }) + '\n',
      JSON.stringify({ type: 'ADDED ', object }) + '\n',
      line('ADDED', rawPod('ok', '2')),
    ]);
    expectClean(result, ['ADDED']);
    expect(result.warnings).toHaveLength(12);
    for (const warning of result.warnings) expect(warning).toMatch(/unknown event type/);
  });

  it.each([
    ['code 0', { kind: 'Status', code: 0 }],
    ['code a string', { kind: 'Status', code: '410', reason: 'Expired' }],
    ['code negative', { kind: 'Status', code: -410 }],
    ['code 999', { kind: 'Status', code: 999 }],
    ['an empty object', {}],
  ])(
    'an in-stream ERROR whose Status has %s is a 500 SYSTEM_ERROR and the stream goes on',
    async (_what, status) => {
      const result = await run([
        line('ADDED', rawPod('a', '1')),
        line('ERROR', status),
        line('MODIFIED', rawPod('a', '2')),
      ]);
      expectClean(result, ['ADDED', 'ERROR:SYSTEM_ERROR', 'MODIFIED']);
      expect(named(result.generator)).toEqual(['a', 'ERROR:500', 'a']);
      expect(named(result.observable)).toEqual(['a', 'ERROR:500', 'a']);
    },
  );

  it('an in-stream ERROR whose Status is an array, a string or null is skipped as no event', async () => {
    const result = await run([
      line('ERROR', [{ kind: 'Status', code: 410 }]),
      line('ERROR', 'Gone'),
      line('ERROR', null),
      line('ADDED', rawPod('a', '1')),
    ]);
    expectClean(result, ['ADDED']);
    expect(result.warnings).toHaveLength(6);
  });

  it('__proto__ and constructor keys in an event pollute no prototype', async () => {
    const hostile =
      '{"type":"ADDED","__proto__":{"polluted":"event"},"object":{"__proto__":{"polluted":"object"},' +
      '"constructor":{"prototype":{"polluted":"ctor"}},"metadata":{"name":"p","namespace":"default",' +
      '"resourceVersion":"1","__proto__":{"polluted":"metadata"}}}}\n';
    const result = await run([hostile]);
    expectClean(result, ['ADDED']);
    expect(({} as { polluted?: unknown }).polluted).toBeUndefined();
    expect(Object.prototype).not.toHaveProperty('polluted');
    expect(result.generator[0]).toMatchObject({ resourceVersion: '1' });
  });

  it('a resourceVersion that is not a string gives an event without one', async () => {
    const result = await run([
      line('ADDED', { metadata: { name: 'n', resourceVersion: 7 } }),
      line('ADDED', { metadata: { name: 'o', resourceVersion: { $gt: '' } } }),
      line('BOOKMARK', { metadata: { resourceVersion: ['9'] } }),
    ]);
    expectClean(result, ['ADDED', 'ADDED', 'BOOKMARK']);
    for (const e of [...result.generator, ...result.observable]) {
      expect(e.type !== 'ERROR' && e.resourceVersion).toBeUndefined();
    }
  });

  it('extremely deep nesting (200 000 levels) neither overflows the stack nor stops the stream', async () => {
    const depth = 200_000;
    const deep = `{"type":"ADDED","object":{"metadata":{"name":"deep"},"spec":${'['.repeat(depth)}${']'.repeat(depth)}}}\n`;
    const deepObjects = `{"type":"ADDED","object":{"metadata":{"name":"deeper"},"spec":${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}}}\n`;
    const result = await run([deep, deepObjects, line('ADDED', rawPod('after', '3'))]);
    // V8 parses deep JSON without recursion: delivered; were it refused, it would be skipped.
    expect(named(result.generator).slice(-1)).toEqual(['after']);
    expect(named(result.observable)).toEqual(named(result.generator));
    expect(result.timedOut).toEqual([]);
    expect(result.maxLagMs).toBeLessThan(1000);
  });

  it('an in-stream ERROR with an 8 MB message is one clean ERROR, and the stream goes on', async () => {
    const message = 'overloaded '.repeat((8 * MB) / 11);
    const result = await run([
      line('ERROR', { kind: 'Status', code: 503, reason: 'ServiceUnavailable', message }),
      line('ADDED', rawPod('a', '1')),
    ]);
    expectClean(result, ['ERROR:SYSTEM_ERROR', 'ADDED'], { arrayBuffers: 64 * MB });
    const error = result.generator[0].type === 'ERROR' ? result.generator[0].error : undefined;
    expect(error).toMatchObject({ statusCode: 503, reason: 'ServiceUnavailable' });
  });

  it('100 000 small events all arrive, in order, while the process stays responsive', async () => {
    const count = 100_000;
    const lines: string[] = [];
    for (let i = 0; i < count; i++) {
      lines.push(
        `{"type":"MODIFIED","object":{"metadata":{"name":"p","resourceVersion":"${i + 1}"}}}\n`,
      );
    }
    const body = lines.join('');
    raw().handler = (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(body);
    };
    const result = await runHostile(raw().kubeConfig());
    expect(result.timedOut).toEqual([]);
    for (const events of [result.generator, result.observable]) {
      expect(events).toHaveLength(count);
      expect(
        events.every((e, i) => e.type === 'MODIFIED' && e.resourceVersion === String(i + 1)),
      ).toBe(true);
    }
    expect(result.maxLagMs).toBeLessThan(1000);
    expect(result.arrayBuffersGrowth).toBeLessThan(64 * MB);
  });

  it('invalid UTF-8 inside a JSON string becomes U+FFFD; the event is delivered', async () => {
    const before = Buffer.from('{"type":"ADDED","object":{"metadata":{"name":"bad-');
    const after = Buffer.from('","resourceVersion":"1"}}}\n');
    const result = await run([
      Buffer.concat([before, Buffer.from([0xff, 0xc3, 0x28, 0xed, 0xa0, 0x80, 0xf0, 0x9f]), after]),
    ]);
    expectClean(result, ['ADDED']);
    const name = named(result.generator)[0];
    expect(name.startsWith('bad-')).toBe(true);
    expect(name).toContain('\ufffd');
  });

  it('invalid UTF-8 around and inside the JSON structure is skipped; good lines survive', async () => {
    const result = await run([
      Buffer.from([0xff, 0xfe, 0xfd, 0x0a]),
      Buffer.concat([Buffer.from([0xc0, 0xaf]), Buffer.from(line('ADDED', rawPod('a', '1')))]),
      Buffer.concat([
        Buffer.from('{"type":"ADD'),
        Buffer.from([0xe2, 0x82]),
        Buffer.from('ED","object":{}}\n'),
      ]),
      Buffer.from('\ufeff' + line('ADDED', rawPod('bom', '2'))),
      Buffer.from(line('ADDED', rawPod('b', '3'))),
    ]);
    expectClean(result, ['ADDED']);
    expect(named(result.generator)).toEqual(['b']);
    expect(result.warnings).toHaveLength(8);
  });

  it('a stream that ends in the middle of a multi-byte character skips that last line only', async () => {
    const last = Buffer.from(line('ADDED', rawPod('日本', '2')).trimEnd());
    const result = await run([
      line('ADDED', rawPod('a', '1')),
      last.subarray(0, last.length - 10 - 2),
    ]);
    expectClean(result, ['ADDED']);
  });

  it('raw control characters and NUL inside a JSON string make the line invalid, not the stream', async () => {
    const result = await run([
      '{"type":"ADDED","object":{"metadata":{"name":"a\u0000b\u0007"}}}\n',
      line('ADDED', rawPod('ok', '2')),
    ]);
    expectClean(result, ['ADDED']);
    expect(types(result.observable)).toEqual(['ADDED']);
  });
});
