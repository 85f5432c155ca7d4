import { Client } from 'undici';
const origin = 'http://127.0.0.1:43823';
const client = new Client(origin, { bodyTimeout: 0 });
let n = 0, bytes = 0; const t0 = performance.now(); const c0 = process.cpuUsage();
await new Promise((resolve) => client.dispatch({ origin, path: '/api/v1/pods?watch=true', method: 'GET' }, {
  onRequestStart() {}, onResponseStart() {},
  onResponseData(c, d) { n++; bytes += d.length; },
  onResponseEnd() { resolve(); }, onResponseError(c, e) { console.log(e); resolve(); },
}));
const cpu = process.cpuUsage(c0);
console.log({ n, bytes, ms: performance.now() - t0, cpuMs: (cpu.user + cpu.system) / 1000 });
await client.close();
