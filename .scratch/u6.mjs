import net from 'node:net';
import { Client } from 'undici';
const origin = 'http://127.0.0.1:40559';
const mode = process.argv[2];
const connect = (opts, cb) => {
  const bufs = [Buffer.allocUnsafe(65536), Buffer.allocUnsafe(65536)];
  let i = 0;
  let socket;
  const onread = { buffer: () => (socket && socket.readableLength === 0 ? bufs[(i ^= 1)] : Buffer.allocUnsafe(65536)), callback: (n, buf) => { socket.push(buf.subarray(0, n)); return true; } };
  socket = net.connect({ host: '127.0.0.1', port: Number(opts.port), ...(mode === 'onread' ? { onread } : {}) });
  socket.once('connect', () => cb(null, socket));
  socket.once('error', (e) => cb(e, null));
};
const client = new Client(origin, { bodyTimeout: 0, connect });
let n = 0, bytes = 0, nl = 0; const t0 = performance.now(); const c0 = process.cpuUsage();
await new Promise((resolve) => client.dispatch({ origin, path: '/api/v1/pods?watch=true', method: 'GET' }, {
  onRequestStart() {}, onResponseStart() {},
  onResponseData(c, d) { n++; bytes += d.length; for (let at = d.indexOf(10); at !== -1; at = d.indexOf(10, at + 1)) nl++; },
  onResponseEnd() { resolve(); }, onResponseError(c, e) { console.log(e); resolve(); },
}));
const cpu = process.cpuUsage(c0);
console.log(mode, { n, bytes, nl, ms: Math.round(performance.now() - t0), cpuMs: Math.round((cpu.user + cpu.system) / 1000) });
await client.close();
