import http from 'node:http';
import { Pool, Client } from 'undici';
const server = http.createServer((req, res) => { res.writeHead(200); res.write('{"a":'); });
let conns = 0;
server.on('connection', (s) => { conns++; console.log('server conn', conns); s.on('close', () => console.log('server close')); });
await new Promise((r) => server.listen(0, '127.0.0.1', r));
const origin = `http://127.0.0.1:${server.address().port}`;
const pool = new (process.argv[3]==="client"?Client:Pool)(origin, { keepAliveTimeout: 500, keepAliveMaxTimeout: 500 });
const mode = process.argv[2];
let ctl;
pool.dispatch({ origin, path: '/', method: 'GET' }, {
  onRequestStart(c) { ctl = c; },
  onResponseStart(c) { if (mode === 'pause') c.pause(); console.log('head'); },
  onResponseData(c, d) { console.log('data', d.length); },
  onResponseEnd() { console.log('end'); },
  onResponseError(c, e) { console.log('error', e.message); },
});
await new Promise((r) => setTimeout(r, 200));
if (mode === 'pause') ctl.resume();
await new Promise((r) => setTimeout(r, 100));
ctl.abort(new Error('bye'));
await new Promise((r) => setTimeout(r, 700));
console.log('stats', pool.stats);
server.close(); await pool.close();
