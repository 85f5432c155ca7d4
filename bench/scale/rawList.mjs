// Reads a whole paged list the way a client would, but decodes nothing: what the server and the
// loopback transport alone cost, the floor under any client's time to list (not a test).
//   node bench/scale/rawList.mjs <server url> [limit] [metadata] [token]
// Pages of `limit` (500) over one HTTP/1.1 keep-alive connection; `metadata` asks for a
// PartialObjectMetadataList. Prints one JSON line { ms, bytes, pages }: ms from the first
// request to the last page's last byte. The continue token is read from the list metadata, which
// both benchmark servers write before the items.
// Also imported by client.mjs (its raw-list configurations): readList(target, limit, shape, token).
import http from 'node:http';
import { performance } from 'node:perf_hooks';
import { URLSearchParams, fileURLToPath } from 'node:url';

function page(target, agent, accept, limit, token, continueToken) {
  const query = new URLSearchParams({ limit });
  if (continueToken) query.set('continue', continueToken);
  return new Promise((resolve, reject) => {
    const req = http.get(
      `${target}/api/v1/pods?${query}`,
      { agent, headers: { accept, authorization: `Bearer ${token}` } },
      (res) => {
        if (res.statusCode !== 200) reject(new Error(`status ${res.statusCode}`));
        let bytes = 0;
        let head = '';
        res.on('data', (chunk) => {
          if (head.length < 4096) head += chunk.toString('latin1', 0, 4096);
          bytes += chunk.length;
        });
        res.on('end', () =>
          resolve({ bytes, next: /"continue":"([^"]*)"/.exec(head.slice(0, 4096))?.[1] }),
        );
        res.on('error', reject);
      },
    );
    req.on('error', reject);
  });
}

/** Reads every page of the pod list at `target`; resolves with { ms, bytes, pages }. */
export async function readList(target, limit = '500', shape = 'full', token = 'bench-token') {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const accept =
    shape === 'metadata'
      ? 'application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json'
      : 'application/json';
  const started = performance.now();
  let bytes = 0;
  let pages = 0;
  let next;
  do {
    const answer = await page(target, agent, accept, limit, token, next);
    bytes += answer.bytes;
    pages++;
    next = answer.next || undefined;
  } while (next);
  agent.destroy();
  return { ms: performance.now() - started, bytes, pages };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  console.log(JSON.stringify(await readList(...process.argv.slice(2))));
}
