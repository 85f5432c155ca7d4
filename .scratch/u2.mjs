import http from 'node:http';
import { Client } from 'undici';
const server = http.createServer((req, res) => { res.writeContinue(); res.writeEarlyHints({ link: '</style.css>; rel=preload' }); res.writeHead(200); res.end('{"a":1}\n'); });
await new Promise((r) => server.listen(0, '127.0.0.1', r));
const origin = `http://127.0.0.1:${server.address().port}`;
const client = new Client(origin);
client.dispatch({ origin, path: '/', method: 'GET' }, {
  onRequestStart(c) { },
  onResponseStart(c, s) { console.log('head', s); },
  onResponseData(c, d) { console.log('data', d.length); },
  onResponseEnd() { console.log('end'); },
  onResponseError(c, e) { console.log('error', e); },
});
await new Promise((r) => setTimeout(r, 300));
server.close(); await client.close();
