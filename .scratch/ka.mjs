import http from 'node:http';
const server = http.createServer((_req, res) => { res.writeHead(200, { 'content-type': 'application/json' }); res.end(JSON.stringify({ metadata: { resourceVersion: '1' }, items: [] })); });
server.listen(0, '127.0.0.1', () => console.log(server.address().port));
setTimeout(() => process.exit(0), 60000);
