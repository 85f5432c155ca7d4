// The API server of the scale benchmark, in its own process (fork it with an IPC channel; it
// sends { port } once listening). BENCH_PODS pods of about 5 KB (bench/watch/pods.mjs: labels,
// annotations, ownerReferences, managedFields, two containers, status), pod i at resourceVersion
// FIRST_VERSION + 1 + i; the collection is at LIST_VERSION. On 127.0.0.1 only, HTTP/1.1:
//   GET /api/v1/pods[?limit&continue]       -> a PodList page (every pod without limit)
//   GET /api/v1/pods?watch=true&sendInitialEvents=true -> every pod ADDED, then the
//       initial-events-end BOOKMARK, then held open
//   GET /api/v1/pods?watch=true&resourceVersion=... -> held open (nothing changes)
// It reads Accept as kube-apiserver does: as=PartialObjectMetadataList (lists) and
// as=PartialObjectMetadata (watches) get { apiVersion: meta.k8s.io/v1, kind:
// PartialObjectMetadata, metadata }. Everything is serialised once at start, so the server
// only copies bytes and keeps ahead of every client.
//
// BENCH_SERVER=fake serves the same pods from FakeKubeApiServer (dist/testing, token bench-token)
// instead: the test kit's own list, watch-list and metadata answers.
import http from 'node:http';
import http2 from 'node:http2';
import { URL } from 'node:url';
import { readList } from './rawList.mjs';
import { FIRST_VERSION, PODS, VERSION_DIGITS, podTemplates, versionOf } from '../watch/pods.mjs';

if (process.env.BENCH_SERVER === 'fake') {
  const testing = new URL('../../dist/testing/index.js', import.meta.url).href;
  const { FakeKubeApiServer } = await import(testing);
  const { pods } = await import(new URL('../../dist/index.js', import.meta.url).href);
  const fake = await FakeKubeApiServer.start({
    tls: process.env.BENCH_TLS === '1',
    token: 'bench-token',
    historySize: 0,
    bookmarkIntervalMs: 0,
  });
  for (const { json } of podTemplates()) {
    const pod = JSON.parse(json.toString('utf8'));
    delete pod.metadata.resourceVersion;
    fake.create(pods, pod);
  }
  // One list first, as a server that has served before: each object's bytes are encoded on the
  // first list that sends it, and no client should pay for that.
  if (process.env.BENCH_TLS !== '1') {
    await readList(fake.url, '500', 'full');
    await readList(fake.url, '500', 'metadata');
  }
  process.send?.({ port: Number(new URL(fake.url).port) });
  process.on('disconnect', () => process.exit(0));
} else {
  await startPreserialised();
}

/** An HTTP/2 server over TLS that accepts HTTP/1.1 too (a throwaway certificate from dist/testing). */
async function tlsServer(handle) {
  const tlsModule = new URL('../../dist/testing/fakeKubeApiServer/tls.js', import.meta.url).href;
  const { makeTlsMaterial } = await import(tlsModule);
  const { server } = makeTlsMaterial(false);
  const h2 = http2.createSecureServer(
    { cert: server.cert, key: server.key, allowHTTP1: true },
    handle,
  );
  h2.on('sessionError', () => {});
  return h2;
}

async function startPreserialised() {
  const LIST_VERSION = String(FIRST_VERSION + PODS + 1);
  const WRITE_BYTES = 64 * 1024;

  const full = [];
  const partial = [];
  for (const [i, { json, versionAt }] of podTemplates().entries()) {
    const pod = Buffer.from(json);
    pod.write(versionOf(i), versionAt, VERSION_DIGITS, 'latin1');
    full.push(pod);
    const { metadata } = JSON.parse(pod.toString('utf8'));
    partial.push(
      Buffer.from(
        JSON.stringify({ apiVersion: 'meta.k8s.io/v1', kind: 'PartialObjectMetadata', metadata }),
      ),
    );
  }

  const comma = Buffer.from(',');
  const asPartial = (req, as) => (req.headers.accept ?? '').split(',')[0].includes(`as=${as};`);

  function list(req, res, query) {
    const partialList = asPartial(req, 'PartialObjectMetadataList');
    const objects = partialList ? partial : full;
    const limit = Number(query.get('limit') ?? 0) || PODS;
    const from = Number(query.get('continue') ?? 0);
    const to = Math.min(PODS, from + limit);
    const metadata = {
      resourceVersion: LIST_VERSION,
      ...(to < PODS ? { continue: String(to) } : {}),
    };
    const head = JSON.stringify({
      apiVersion: partialList ? 'meta.k8s.io/v1' : 'v1',
      kind: partialList ? 'PartialObjectMetadataList' : 'PodList',
      metadata,
    });
    const parts = [Buffer.from(`${head.slice(0, -1)},"items":[`)];
    for (let i = from; i < to; i++) {
      if (i > from) parts.push(comma);
      parts.push(objects[i]);
    }
    parts.push(Buffer.from(']}'));
    const body = Buffer.concat(parts);
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': body.length });
    res.end(body);
  }

  async function watchList(req, res) {
    const objects = asPartial(req, 'PartialObjectMetadata') ? partial : full;
    const added = Buffer.from('{"type":"ADDED","object":');
    const end = Buffer.from('}\n');
    res.writeHead(200, chunkedHeaders(req));
    let batch = [];
    let size = 0;
    for (let i = 0; i < PODS && !closed(res); i++) {
      batch.push(added, objects[i], end);
      size += added.length + objects[i].length + end.length;
      if (size >= WRITE_BYTES) {
        const ok = res.write(Buffer.concat(batch, size));
        batch = [];
        size = 0;
        if (!ok) {
          await new Promise((resolve) => {
            const done = () => {
              res.off('drain', done).off('close', done);
              resolve();
            };
            res.on('drain', done).on('close', done);
          });
        }
      }
    }
    const bookmark = JSON.stringify({
      type: 'BOOKMARK',
      object: {
        kind: 'Pod',
        apiVersion: 'v1',
        metadata: {
          resourceVersion: LIST_VERSION,
          annotations: { 'k8s.io/initial-events-end': 'true' },
        },
      },
    });
    batch.push(Buffer.from(bookmark + '\n'));
    if (!closed(res)) res.write(Buffer.concat(batch));
  }

  /** Chunked on HTTP/1.1; HTTP/2 has no Transfer-Encoding (a connection-specific header). */
  const chunkedHeaders = (req) => ({
    'content-type': 'application/json',
    ...(req.httpVersionMajor === 1 ? { 'transfer-encoding': 'chunked' } : {}),
  });
  /** Whether the client went: an HTTP/2 response has no `destroyed`, its stream has. */
  const closed = (res) => res.destroyed ?? res.stream?.destroyed ?? false;

  // BENCH_TLS=1 (the real-cluster mode): TLS offering h2 and http/1.1 by ALPN, as kube-apiserver
  // does; each client speaks what it would speak to a cluster (the same handler serves both).
  const handle = (req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    if (url.pathname !== '/api/v1/pods' || req.method !== 'GET') {
      res.writeHead(404).end();
      return;
    }
    if (url.searchParams.get('watch') !== 'true' && url.searchParams.get('watch') !== '1')
      return list(req, res, url.searchParams);
    if (url.searchParams.get('sendInitialEvents') === 'true') return void watchList(req, res);
    res.writeHead(200, chunkedHeaders(req));
    res.flushHeaders?.();
    // Held open: nothing changes in this cluster.
  };
  const server =
    process.env.BENCH_TLS === '1' ? await tlsServer(handle) : http.createServer(handle);
  server.keepAliveTimeout = 30_000;
  server.listen(0, '127.0.0.1', () => process.send?.({ port: server.address().port }));
  process.on('disconnect', () => process.exit(0));
}
