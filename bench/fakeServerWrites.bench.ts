// FakeKubeApiServer's CPU per write (not a test): the label merge patches of a sharded
// controller's rebalance, the server in a process of its own as bench/shardingServer.ts runs it.
//   node --import ./bench/register.mjs bench/fakeServerWrites.bench.ts \
//     [--patches=1000] [--inflight=64] [--watches=3] [--rounds=5] [--alt=<checkout>] \
//     [--profile=<dir>]
// Each round sends `patches` merge patches of one label (`shard`, a or b by round) on as many
// ConfigMaps, `inflight` at a time over HTTP/1.1 keep-alive, while `watches` watches are open
// (the first one on every object, the others on `shard=a` / `shard=b`, so objects enter and leave
// them as a sharder's label moves do). A round ends when the first watch has seen every change.
// Reported per round: the server's CPU µs per patch (process.cpuUsage over IPC) and the
// client's wall time. With --alt, a second server runs from that checkout's
// bench/shardingServer.ts and the rounds alternate between the two (same minutes, same load):
// the medians and their ratio. With --profile, one more round per server under the inspector's
// profiler, written to <dir>/<name>.cpuprofile.
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { Agent, request } from 'node:http';
import { resolve } from 'node:path';

// `--key=value` options, as bench/args.mjs reads them.
const args: Record<string, string | undefined> = Object.fromEntries(
  process.argv.slice(2).map((arg) => {
    const [key, value = 'true'] = arg.replace(/^--/, '').split('=');
    return [key, value];
  }),
);
const patches = Number(args.patches ?? 1000);
const inflight = Number(args.inflight ?? 64);
const watches = Number(args.watches ?? 3);
const rounds = Number(args.rounds ?? 5);
const alt = args.alt;
const profileDir = args.profile;

interface Server {
  name: string;
  child: ChildProcess;
  url: URL;
  token: string;
  agent: Agent;
  cpu: number[];
  wall: number[];
}

async function startServer(name: string, root: string): Promise<Server> {
  const child = spawn(
    process.execPath,
    ['--import', './bench/register.mjs', 'bench/shardingServer.ts', `--objects=${patches}`],
    { cwd: root, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] },
  );
  const [message] = (await once(child, 'message')) as [{ kubeconfig: string }];
  const kc = JSON.parse(message.kubeconfig) as {
    clusters: { cluster: { server: string } }[];
    users: { user: { token: string } }[];
  };
  return {
    name,
    child,
    url: new URL(kc.clusters[0].cluster.server),
    token: kc.users[0].user.token,
    agent: new Agent({ keepAlive: true, maxSockets: inflight }),
    cpu: [],
    wall: [],
  };
}

function ask<T>(server: Server, message: unknown, key: string): Promise<T> {
  return new Promise((done) => {
    const onMessage = (m: Record<string, unknown>) => {
      if (m[key] === undefined) return;
      server.child.off('message', onMessage);
      done(m[key] as T);
    };
    server.child.on('message', onMessage);
    server.child.send(message as string);
  });
}

const base = '/api/v1/namespaces/app/configmaps';

/** A watch from `rv`; calls `onLine` per event line. Returns its request, to abort. */
function watch(server: Server, query: string, rv: string, onLine: () => void) {
  const req = request(
    new URL(`${base}?watch=true&resourceVersion=${rv}${query}`, server.url),
    { headers: { authorization: `Bearer ${server.token}` } },
    (res) => {
      res.on('data', (chunk: Buffer) => {
        for (const byte of chunk) if (byte === 10) onLine();
      });
      res.on('error', () => {});
    },
  );
  req.on('error', () => {});
  req.end();
  return req;
}

function send(server: Server, method: string, path: string, body?: string): Promise<string> {
  return new Promise((done, fail) => {
    const req = request(
      new URL(path, server.url),
      {
        method,
        agent: server.agent,
        headers: {
          authorization: `Bearer ${server.token}`,
          ...(body !== undefined ? { 'content-type': 'application/merge-patch+json' } : {}),
        },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (s: string) => (text += s));
        res.on('end', () =>
          res.statusCode === 200 ? done(text) : fail(new Error(`${res.statusCode}: ${text}`)),
        );
      },
    );
    req.on('error', fail);
    req.end(body);
  });
}

async function round(server: Server, value: string, profileTo?: string): Promise<void> {
  const list = JSON.parse(await send(server, 'GET', base)) as {
    metadata: { resourceVersion: string };
  };
  let seen = 0;
  let allSeen!: () => void;
  const everyChange = new Promise<void>((r) => (allSeen = r));
  const open = [];
  for (let w = 0; w < watches; w++) {
    const query = w === 0 ? '' : `&labelSelector=shard%3D${w % 2 === 1 ? 'a' : 'b'}`;
    open.push(
      watch(
        server,
        query,
        list.metadata.resourceVersion,
        w === 0 ? () => ++seen === patches && allSeen() : () => {},
      ),
    );
  }
  await new Promise((r) => setTimeout(r, 100));
  if (profileTo !== undefined) {
    // Unanswered: the profiler is on once the message is handled, before the 'cpu' below.
    server.child.send({ profile: 'start' });
  }
  const cpu0 = await ask<number>(server, 'cpu', 'cpuMs');
  const t0 = performance.now();
  let next = 0;
  const body = JSON.stringify({ metadata: { labels: { shard: value } } });
  const worker = async () => {
    while (next < patches) {
      const i = next++;
      await send(server, 'PATCH', `${base}/cm-${i}?fieldManager=sharder`, body);
    }
  };
  await Promise.all(Array.from({ length: inflight }, worker));
  await everyChange;
  const wall = performance.now() - t0;
  const cpu1 = await ask<number>(server, 'cpu', 'cpuMs');
  if (profileTo !== undefined) await ask(server, { profile: 'stop', to: profileTo }, 'profiled');
  for (const req of open) req.destroy();
  server.cpu.push(((cpu1 - cpu0) * 1000) / patches);
  server.wall.push(wall);
}

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 === 1 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

const servers = [await startServer('this build', process.cwd())];
if (alt !== undefined) servers.push(await startServer(alt, resolve(alt)));
console.log(
  `${patches} label merge patches, ${inflight} in flight, ${watches} watches, HTTP/1.1; load ${(
    await import('node:os')
  )
    .loadavg()
    .map((l) => l.toFixed(1))
    .join(' ')}`,
);
// A warm-up round each (JIT, first sockets), not counted.
for (const s of servers) {
  await round(s, 'w');
  s.cpu.length = 0;
  s.wall.length = 0;
}
for (let r = 0; r < rounds; r++) {
  const order = r % 2 === 0 ? servers : [...servers].reverse();
  for (const s of order) {
    await round(s, r % 2 === 0 ? 'a' : 'b');
    console.log(
      `round ${r + 1} ${s.name}: ${s.cpu.at(-1)!.toFixed(1)} µs server CPU per patch, ${s.wall.at(-1)!.toFixed(0)} ms wall`,
    );
  }
}
for (const s of servers) {
  console.log(
    `${s.name}: median ${median(s.cpu).toFixed(1)} µs/patch (${Math.min(...s.cpu).toFixed(1)}-${Math.max(...s.cpu).toFixed(1)}), wall ${median(s.wall).toFixed(0)} ms`,
  );
}
if (servers.length === 2) {
  const ratios = servers[0].cpu.map((c, i) => c / servers[1].cpu[i]);
  console.log(
    `CPU per patch, this build / ${alt}: median of same-round ratios ${median(ratios).toFixed(3)} (${Math.min(...ratios).toFixed(3)}-${Math.max(...ratios).toFixed(3)})`,
  );
}
if (profileDir !== undefined) {
  for (const s of servers) {
    const to = resolve(profileDir, `${s.name.replace(/\W+/g, '_')}.cpuprofile`);
    await round(s, 'p', to);
    console.log(`profile of ${s.name}: ${to}`);
  }
}
for (const s of servers) {
  const exited = once(s.child, 'exit');
  s.child.send('stop');
  await exited;
  s.agent.destroy();
}
