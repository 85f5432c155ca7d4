import { afterEach, describe, expect, it } from '@jest/globals';
import { listPages, type ListPagesRequest } from '../../../src/client/request/listPages.js';
import { RawServer } from '../../support/rawServer.js';

// The one list loop (fromList, the relists, the command's Table lists) with a page decoder of
// its own, on loopback: paging, the page ahead, the restart on an expired token, failures.
let server: RawServer | undefined;
afterEach(() => server?.stop());

/** A list of `names` in pages of one, continue tokens `t1`, `t2`...; 410 for tokens in `expired`. */
async function serve(names: string[], expired: () => string[] = () => []) {
  server = await RawServer.start((req, res) => {
    const token = new URL(req.url ?? '/', 'http://x').searchParams.get('continue');
    if (token === 't1' && expired().includes(token)) {
      res.writeHead(410, { 'content-type': 'application/json' });
      return res.end(
        JSON.stringify({ kind: 'Status', code: 410, reason: 'Expired', message: 'too old' }),
      );
    }
    const at = token ? Number(token.slice(1)) : 0;
    const next = at + 1 < names.length ? `t${at + 1}` : undefined;
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(
      JSON.stringify({
        metadata: { resourceVersion: '7', ...(next && { continue: next }) },
        entries: [names[at]],
      }),
    );
  });
  return server;
}

/** A request whose pages keep their names in `entries` (not a Kubernetes list's `items`). */
function request(
  onDecode: (requestsSoFar: number) => void = () => undefined,
  warnings: string[] = [],
) {
  const config: ListPagesRequest<string> = {
    path: '/apis/example.com/v1/things',
    options: { logger: { warn: (line) => warnings.push(line) } },
    limit: 1,
    maxPageBytes: 1 << 20,
    decodePage: (page, _token, items) => {
      onDecode(server!.requests.length);
      if (page.entries.includes('bad')) throw new Error('a bad page');
      items.push(...page.entries);
      return { resourceVersion: page.metadata.resourceVersion, continue: page.metadata.continue };
    },
  };
  return config;
}

describe('listPages', () => {
  it("follows continue tokens with the page decoder, at the first page's resourceVersion", async () => {
    await serve(['a', 'b', 'c']);
    const result = await listPages(server!.kubeConfig(), request(), new AbortController().signal);
    expect(result).toEqual({ items: ['a', 'b', 'c'], resourceVersion: '7' });
    expect(server!.requests.map((r) => r.rawQuery)).toEqual([
      'limit=1',
      'limit=1&continue=t1',
      'limit=1&continue=t2',
    ]);
  });

  it('lists again from the start once when a continue token expired, with a warning', async () => {
    let refused = 0;
    // The first request with t1 is refused (410), later ones are answered.
    await serve(['a', 'b'], () => (refused++ === 0 ? ['t1'] : []));
    const warnings: string[] = [];
    const listed = await listPages(
      server!.kubeConfig(),
      request(() => undefined, warnings),
      new AbortController().signal,
    );
    expect(listed).toEqual({ items: ['a', 'b'], resourceVersion: '7' });
    expect(warnings).toEqual([
      'the continue token of a list of /apis/example.com/v1/things expired; listing again from the start',
    ]);
  });

  it("fails with GONE when the token expires again, and with the decoder's error", async () => {
    await serve(['a', 'b'], () => ['t1']);
    const gone = await listPages(
      server!.kubeConfig(),
      request(),
      new AbortController().signal,
    ).catch((e) => e);
    expect([gone.errorType, gone.statusCode]).toEqual(['GONE', 410]);
    await server!.stop();
    await serve(['bad', 'b']);
    const bad = await listPages(
      server!.kubeConfig(),
      request(),
      new AbortController().signal,
    ).catch((e) => e);
    expect(bad.message).toBe('a bad page');
  });

  it('fails with PARSE_ERROR on a page that is not JSON', async () => {
    server = await RawServer.start((_req, res) => res.end('{not json'));
    const failure = await listPages(
      server.kubeConfig(),
      request(),
      new AbortController().signal,
    ).catch((e) => e);
    expect([failure.errorType, failure.statusCode]).toEqual(['PARSE_ERROR', 0]);
  });
});
