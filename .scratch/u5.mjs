import net from 'node:net';
const port = Number(process.argv[2]);
const s = net.connect(port, '127.0.0.1');
let reads = 0, bytes = 0; const t0 = performance.now(); const c0 = process.cpuUsage();
s.write('GET /api/v1/pods?watch=true HTTP/1.1\r\nhost: x\r\n\r\n');
s.on('readable', () => { let c; while ((c = s.read()) !== null) { reads++; bytes += c.length; } });
s.on('end', () => { const cpu = process.cpuUsage(c0); console.log({ reads, bytes, ms: performance.now() - t0, cpuMs: (cpu.user + cpu.system) / 1000 }); });
