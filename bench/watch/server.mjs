// A minimal loopback "API server" for watch.bench.mjs, run in its own process (fork it with an
// IPC channel; it sends { port } once listening). It answers, on 127.0.0.1 only:
//   GET /api/v1/pods?watch=true...  -> EVENTS watch events (see pods.mjs), then ends the response
//   GET /api/v1/pods (no watch)     -> an empty PodList at resourceVersion FIRST_VERSION
//   anything else                   -> 404
// Deliberately not FakeKubeApiServer: this one does nothing per event but copy pre-built bytes
// and patch a fixed-width resourceVersion into them, so it outruns every client.
//
// Wire format: HTTP/1.1 chunked, one chunk per event as kube-apiserver does (it encodes and
// flushes each event), `Connection: close`. The chunks are batched into socket writes of about
// WRITE_BYTES, and writes wait for 'drain', so the server streams as fast as the client reads.
//
// With CHUNK=batch, each socket write is instead one chunk of many whole events (about 64 KiB):
// fewer, larger body pieces for the client's HTTP parser, to measure what per-event chunks cost.
//
// With H2=1 it also serves the same watch over TLS on a second port, as kube-apiserver does: ALPN
// offers h2 and http/1.1, and each client speaks what it would speak to a cluster (the
// real-cluster mode of watch.bench.mjs; a self-signed certificate from dist/testing). HTTP/2
// has no chunk framing: one DATA frame per event (CHUNK=event, what an API server that flushes
// every event sends) or writes of about 64 KiB (CHUNK=batch). HTTP/1.1 over TLS gets the very
// bytes of the plain port. A watch of namespace `bench-N` streams N events instead of EVENTS
// (the many-watches rows). It sends { port, h2Port }.
//
// Sliced runs (watch.bench.mjs --slices=N): the parent sends { open: id } and gets back
// { opened: id, port, h2Port }, two more ports (plain, and TLS with h2 offered) whose watches are
// gated: the stream stops after the events released so far ({ release: id, events: n }) and
// holds the connection open until the next release, so one long watch per consumer is read in
// slices, its process idle in between. { watching: id } tells the parent the gated watch came.
//
// Environment: EVENTS (default 100000), CHUNK (event | batch; default event), BENCH_PODS and
// BENCH_STREAM (growing | cycle: the event types; see pods.mjs), H2 (1 to serve HTTP/2 too).
import http2 from 'node:http2';
import net from 'node:net';
import { URL } from 'node:url';
import {
  FIRST_VERSION,
  PODS,
  VERSION_DIGITS,
  eventTypeOf,
  podTemplates,
  versionOf,
} from './pods.mjs';

const EVENTS = Number(process.env.EVENTS ?? 100_000);
const BATCH_CHUNKS = process.env.CHUNK === 'batch';
const WRITE_BYTES = 64 * 1024;

const templates = podTemplates();
const added = Buffer.from('{"type":"ADDED","object":');
const modified = Buffer.from('{"type":"MODIFIED","object":');
const prefixes = {
  ADDED: added,
  MODIFIED: modified,
  DELETED: Buffer.from('{"type":"DELETED","object":'),
};
const lineEnd = Buffer.from('}\n\r\n');
const largestEvent =
  Math.max(...templates.map((t) => t.json.length)) + modified.length + lineEnd.length + 16;

/**
 * A sliced watch's gate: how many events the stream may send so far, and the pump to call when
 * more are released (set while the stream waits for a release).
 */
class Gate {
  allowed = 0;
  waiting = undefined;
  constructor(id) {
    this.id = id;
  }
  /** Lets `events` more events through. */
  release(events) {
    this.allowed += events;
    const pump = this.waiting;
    this.waiting = undefined;
    pump?.();
  }
  /** How many events from `next` may go now (all of `limit` without a gate). */
  static open(gate, next, limit) {
    return gate ? Math.min(limit, gate.allowed) > next : limit > next;
  }
}

/** Streams the watch: EVENTS chunked events, then the last chunk; stops if the client goes. */
function streamWatch(socket, gate) {
  socket.write(
    'HTTP/1.1 200 OK\r\ncontent-type: application/json\r\n' +
      'transfer-encoding: chunked\r\nconnection: close\r\n\r\n',
  );
  let next = 0;
  let closed = false;
  socket.once('close', () => (closed = true));
  const pump = () => {
    while (!closed && Gate.open(gate, next, EVENTS)) {
      const batch = Buffer.allocUnsafe(WRITE_BYTES + largestEvent + 16);
      // In batch mode one chunk header, of fixed width, is written over these bytes at the end.
      let at = BATCH_CHUNKS ? 10 : 0;
      while (at < WRITE_BYTES && Gate.open(gate, next, EVENTS)) {
        const { json, versionAt } = templates[next % PODS];
        const prefix = prefixes[eventTypeOf(next)];
        const size = prefix.length + json.length + 2; // + '}\n'
        if (!BATCH_CHUNKS) at += batch.write(`${size.toString(16)}\r\n`, at, 'latin1');
        at += prefix.copy(batch, at);
        const objectAt = at;
        at += json.copy(batch, at);
        batch.write(versionOf(next), objectAt + versionAt, VERSION_DIGITS, 'latin1');
        at += lineEnd.copy(batch, at, 0, BATCH_CHUNKS ? 2 : lineEnd.length);
        next++;
      }
      if (BATCH_CHUNKS) {
        batch.write(`${(at - 10).toString(16).padStart(8, '0')}\r\n`, 0, 'latin1');
        at += batch.write('\r\n', at, 'latin1');
      }
      if (!socket.write(batch.subarray(0, at))) return void socket.once('drain', pump);
    }
    if (!closed && next < EVENTS) gate.waiting = pump;
    else if (!closed) socket.end('0\r\n\r\n');
  };
  pump();
}

function respond(socket, status, body) {
  socket.end(
    `HTTP/1.1 ${status}\r\ncontent-type: application/json\r\n` +
      `content-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
  );
}

const emptyList = JSON.stringify({
  kind: 'PodList',
  apiVersion: 'v1',
  metadata: { resourceVersion: String(FIRST_VERSION) },
  items: [],
});

/** The plain HTTP/1.1 server; its watches pass `gate` (none: the whole stream at once). */
const plainServer = (gate) =>
  net.createServer((socket) => {
    socket.setNoDelay(true);
    socket.on('error', () => {});
    let head = '';
    const onData = (data) => {
      head += data.toString('latin1');
      const end = head.indexOf('\r\n\r\n');
      if (end === -1) {
        if (head.length > 64 * 1024) socket.destroy();
        return;
      }
      socket.off('data', onData);
      const [method, target] = head.slice(0, head.indexOf('\r\n')).split(' ');
      const url = new URL(target, 'http://127.0.0.1');
      if (method !== 'GET' || !/^\/api\/v1\/(namespaces\/[^/]+\/)?pods$/.test(url.pathname)) {
        respond(socket, '404 Not Found', '{"kind":"Status","status":"Failure","code":404}');
      } else if (url.searchParams.get('watch') === 'true') {
        watching(gate);
        streamWatch(socket, gate);
      } else {
        respond(socket, '200 OK', emptyList);
      }
    };
    socket.on('data', onData);
  });

/** Tells the parent a gated watch arrived. */
function watching(gate) {
  if (gate && process.send) process.send({ watching: gate.id });
}

/** Events of a watch of `pathname`: N for namespace `bench-N`, else EVENTS. */
function eventsOf(pathname) {
  const match = /^\/api\/v1\/namespaces\/bench-(\d+)\/pods$/.exec(pathname);
  return match ? Number(match[1]) : EVENTS;
}

/** Streams a watch on an HTTP/2 stream: `events` events in writes of ~64 KiB, then the end. */
function streamWatchH2(stream, events, gate) {
  stream.respond({ ':status': 200, 'content-type': 'application/json' });
  let next = 0;
  const pump = () => {
    while (!stream.destroyed && Gate.open(gate, next, events)) {
      const batch = Buffer.allocUnsafe(WRITE_BYTES + largestEvent + 16);
      let at = 0;
      let ok = true;
      while (at < WRITE_BYTES && Gate.open(gate, next, events)) {
        const { json, versionAt } = templates[next % PODS];
        const prefix = prefixes[eventTypeOf(next)];
        const eventAt = at;
        at += prefix.copy(batch, at);
        const objectAt = at;
        at += json.copy(batch, at);
        batch.write(versionOf(next), objectAt + versionAt, VERSION_DIGITS, 'latin1');
        at += lineEnd.copy(batch, at, 0, 2);
        next++;
        // One DATA frame per event; the batch buffer is never reused, so no copy is needed.
        if (!BATCH_CHUNKS) ok = stream.write(batch.subarray(eventAt, at)) && ok;
      }
      if (BATCH_CHUNKS) ok = stream.write(batch.subarray(0, at));
      if (!ok) return void stream.once('drain', pump);
    }
    if (!stream.destroyed && next < events) gate.waiting = pump;
    else if (!stream.destroyed) stream.end();
  };
  pump();
}

let tlsMaterial;
async function startH2(gate) {
  const { makeTlsMaterial } = await import('../../dist/testing/fakeKubeApiServer/tls.js');
  const tls = (tlsMaterial ??= makeTlsMaterial(false));
  const h2 = http2.createSecureServer({
    cert: tls.server.cert,
    key: tls.server.key,
    allowHTTP1: true,
    settings: { maxConcurrentStreams: 100 },
  });
  // HTTP/1.1 over TLS (client-node, node-fetch): the plain port's handler, on the TLS socket.
  h2.on('request', (request) => {
    if (request.httpVersionMajor !== 1) return; // HTTP/2: the 'stream' listener answers
    const { socket } = request;
    const url = new URL(request.url, 'https://127.0.0.1');
    if (!/^\/api\/v1\/(namespaces\/[^/]+\/)?pods$/.test(url.pathname)) {
      respond(socket, '404 Not Found', '{"kind":"Status","status":"Failure","code":404}');
    } else if (url.searchParams.get('watch') === 'true') {
      watching(gate);
      streamWatch(socket, gate);
    } else respond(socket, '200 OK', emptyList);
  });
  h2.on('stream', (stream, headers) => {
    stream.on('error', () => {});
    const url = new URL(headers[':path'], 'https://127.0.0.1');
    if (url.searchParams.get('watch') === 'true') {
      watching(gate);
      return streamWatchH2(stream, eventsOf(url.pathname), gate);
    }
    stream.respond({ ':status': 200, 'content-type': 'application/json' });
    stream.end(emptyList);
  });
  h2.on('sessionError', () => {});
  await new Promise((resolve) => h2.listen(0, '127.0.0.1', resolve));
  return h2.address().port;
}

/** Listens on a plain port and (with H2=1) a TLS one, both passing `gate`. */
async function listen(gate) {
  const server = plainServer(gate);
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const h2Port = process.env.H2 === '1' ? await startH2(gate) : undefined;
  return { port: server.address().port, h2Port };
}

const gates = new Map();
process.on('message', async (message) => {
  if (message.open !== undefined) {
    const gate = new Gate(message.open);
    gates.set(message.open, gate);
    process.send({ opened: message.open, ...(await listen(gate)) });
  } else if (message.release !== undefined) {
    gates.get(message.release).release(message.events);
  }
});

const { port, h2Port } = await listen(undefined);
if (process.send) process.send({ port, h2Port });
else console.log(`listening on http://127.0.0.1:${port}` + (h2Port ? `, h2 on ${h2Port}` : ''));
// The parent going away (or closing the channel) ends this process.
process.on('disconnect', () => process.exit(0));
