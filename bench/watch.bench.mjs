// Watch throughput and memory, kube-rx against its peers (issue 7). Not part of `npm test`.
//   npm run bench                  (builds dist/, then runs every bench/*.bench.*)
//   node bench/watch.bench.mjs [--rounds=7] [--events=60000] [--only=fromWatch,jsonParse]
//                              [--quick] [--pods=1000] [--chunk=batch]
//                              [--alt=<dist> --alt-label=<name>] [--stream=cycle] [--warmup=N]
// --warmup=N: each consumer process first reads N events (and waits until it is quiet) before
// the measured run: the steady state, without one-time costs (JIT and WebAssembly compilation).
// The HTTP/2 rows (consumers marked h2) read the same stream from an HTTP/2 server (TLS) on the
// server process's second port; they have no --alt row.
// Needs a build (`npm run build`): the kube-rx consumers import dist/.
//
// A loopback server (bench/watch/server.mjs, its own process) streams a pod watch of about 5 KB
// per event. Every consumer runs in a fresh child process (bench/watch/consumer.mjs), once per
// round; the order rotates each round, so drift on a shared machine hits every consumer alike.
// Reported: median events/s, the medians of the per-round ratios against client-node Watch and
// against JSON.parse alone, CPU time per event (of every thread, and of the main thread alone:
// the difference is mostly the garbage collector's helper threads), and median peak RSS (the
// child's maxRSS).
// Results also go to bench/results/latest.json.
import { execFile, fork } from 'node:child_process';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { resolve as resolvePath } from 'node:path';
import { cpus } from 'node:os';
import { URL, fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);
const here = (path) => fileURLToPath(new URL(path, import.meta.url));

const args = Object.fromEntries(
  process.argv.slice(2).map((arg) => {
    const [key, value = 'true'] = arg.replace(/^--/, '').split('=');
    return [key, value];
  }),
);
// --pods=N: how many distinct pods the stream cycles through (default 1000); every process of
// the run reads it from BENCH_PODS, so it is set before the stream's modules load.
if (args.pods) process.env.BENCH_PODS = args.pods;
// --stream=cycle: the second layout of issue 20 (each pod ADDED, 8x MODIFIED, DELETED; see
// watch/pods.mjs), by default about 100 pods in ~64 KiB chunks (--pods and --chunk still apply).
if (args.stream) process.env.BENCH_STREAM = args.stream;
if (args.stream === 'cycle') {
  process.env.BENCH_PODS ??= '100';
  args.chunk ??= 'batch';
}
const { consumers } = await import('./watch/consumers.mjs');
const { podTemplates } = await import('./watch/pods.mjs');
const quick = args.quick === 'true';
const ROUNDS = Number(args.rounds ?? (quick ? 3 : 7));
const EVENTS = Number(args.events ?? (quick ? 30_000 : 60_000));
// --alt=<dist dir>: also run every kube-rx consumer against that build, as `<name>@alt`, in the
// same rounds (how bench/proposals/ measure a change before/after).
const ALT = args.alt ? resolvePath(args.alt) : undefined;
const ALT_LABEL = args['alt-label'] ?? 'alt';
const baseNames = args.only ? args.only.split(',') : Object.keys(consumers);
for (const name of baseNames) if (!consumers[name]) throw new Error(`no consumer named ${name}`);
// --chunk=batch: the server sends ~64 KiB HTTP chunks instead of one chunk per event.
const CHUNK = args.chunk ?? 'event';
const WARMUP = Number(args.warmup ?? 0);
const names = baseNames.flatMap((name) =>
  ALT && consumers[name].kubeRx && !consumers[name].h2 ? [name, `${name}@alt`] : [name],
);
const H2 = names.some((name) => consumers[name.replace(/@alt$/, '')].h2);
const consumerOf = (name) => consumers[name.replace(/@alt$/, '')];
const labelOf = (name) => consumerOf(name).label + (name.endsWith('@alt') ? ` [${ALT_LABEL}]` : '');

const median = (values) => {
  const sorted = values.filter((v) => Number.isFinite(v)).sort((a, b) => a - b);
  if (sorted.length === 0) return NaN;
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};
const mb = (bytes) => `${(bytes / 2 ** 20).toFixed(0)} MB`;
const rate = (perSecond) =>
  Number.isFinite(perSecond) ? Math.round(perSecond).toLocaleString('en-US') : '-';
const times = (ratio) => (Number.isFinite(ratio) ? `${ratio.toFixed(2)}x` : '-');

async function startServer() {
  const child = fork(here('./watch/server.mjs'), [], {
    env: { ...process.env, EVENTS: String(EVENTS), CHUNK, H2: H2 ? '1' : '' },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const { port, h2Port } = await new Promise((resolve, reject) => {
    child.once('message', resolve);
    child.once('exit', (code) => reject(new Error(`the bench server exited (${code})`)));
  });
  return { child, url: `http://127.0.0.1:${port}`, h2Url: h2Port && `https://127.0.0.1:${h2Port}` };
}

async function runConsumer(name, server) {
  try {
    const { stdout } = await run(
      process.execPath,
      [here('./watch/consumer.mjs'), name.replace(/@alt$/, ''), server, String(EVENTS)],
      {
        timeout: 10 * 60_000,
        maxBuffer: 1 << 20,
        env: {
          ...process.env,
          BENCH_WARMUP: String(WARMUP),
          ...(name.endsWith('@alt') ? { KUBE_RX_DIST: ALT } : {}),
        },
      },
    );
    return JSON.parse(stdout.trim().split('\n').pop());
  } catch (error) {
    console.error(`  ${name} failed: ${(error.stderr || error.message).trim().split('\n')[0]}`);
    return { consumer: name, failed: true };
  }
}

async function machine() {
  const cpuinfo = await readFile('/proc/cpuinfo', 'utf8').catch(() => '');
  const model = /^model name\s*:\s*(.*)$/m.exec(cpuinfo)?.[1] ?? cpus()[0]?.model ?? 'unknown';
  const nproc = await run('nproc')
    .then(({ stdout }) => Number(stdout.trim()))
    .catch(() => cpus().length);
  return {
    nproc,
    cpu: model,
    node: process.version,
    platform: `${process.platform} ${process.arch}`,
  };
}

const templates = podTemplates();
const eventBytes = Math.round(
  templates.reduce((sum, t) => sum + t.json.length, 0) / templates.length + 30,
);
console.log(
  `watch bench: ${EVENTS.toLocaleString('en-US')} events of ~${eventBytes} bytes about ` +
    `${templates.length} pods per run (stream ${process.env.BENCH_STREAM ?? 'growing'}, chunks ` +
    `${CHUNK}), ${ROUNDS} interleaved rounds, consumers: ${names.join(', ')}`,
);

const server = await startServer();
const rounds = [];
try {
  for (let round = 0; round < ROUNDS; round++) {
    const order = names.map((_, i) => names[(i + round) % names.length]);
    const results = {};
    for (const name of order)
      results[name] = await runConsumer(name, consumerOf(name).h2 ? server.h2Url : server.url);
    rounds.push({ order, results });
    console.log(
      `  round ${round + 1}/${ROUNDS}: ` +
        order.map((name) => `${name} ${rate(results[name].eventsPerSecond)}/s`).join(', '),
    );
  }
} finally {
  server.child.kill();
}

/** The median over rounds of a per-round value. */
const perRound = (name, value) => median(rounds.map(({ results }) => value(results[name])));
/** Per-round ratios of `value(name) / value(reference)`, NaN where either failed. */
const ratios = (name, reference, value) =>
  rounds.map(({ results: all }) =>
    !all[name] || all[name].failed || !all[reference] || all[reference].failed
      ? NaN
      : value(all[name]) / value(all[reference]),
  );
const eventsPerSecondRatio = (name, reference) =>
  names.includes(reference) ? median(ratios(name, reference, (r) => r.eventsPerSecond)) : NaN;

const summary = names.map((name) => ({
  consumer: name,
  label: labelOf(name),
  eventsPerSecond: perRound(name, (r) => r.eventsPerSecond),
  minEventsPerSecond: Math.min(
    ...rounds.map(({ results }) => results[name].eventsPerSecond ?? Infinity),
  ),
  maxEventsPerSecond: Math.max(
    ...rounds.map(({ results }) => results[name].eventsPerSecond ?? -Infinity),
  ),
  vsClientNodeWatch: eventsPerSecondRatio(name, 'clientNodeWatch'),
  vsJsonParse: eventsPerSecondRatio(name, 'jsonParse'),
  cpuPerWall: perRound(name, (r) => r.cpuPerWall),
  cpuMicrosPerEvent: perRound(name, (r) => r.cpuMicrosPerEvent),
  mainThreadMicrosPerEvent: perRound(name, (r) => r.mainThreadMicrosPerEvent),
  peakRss: perRound(name, (r) => r.peakRss),
  loadedRss: perRound(name, (r) => r.loadedRss),
}));

const header = [
  'consumer',
  'events/s (median)',
  'min-max',
  'vs client-node Watch',
  'vs JSON.parse',
  'peak RSS',
  'RSS loaded',
  'CPU µs/event',
  'main thread',
  'CPU/wall',
];
const rows = summary.map((s) => [
  s.label,
  rate(s.eventsPerSecond),
  `${rate(s.minEventsPerSecond)}-${rate(s.maxEventsPerSecond)}`,
  times(s.vsClientNodeWatch),
  times(s.vsJsonParse),
  Number.isFinite(s.peakRss) ? mb(s.peakRss) : '-',
  Number.isFinite(s.loadedRss) ? mb(s.loadedRss) : '-',
  Number.isFinite(s.cpuMicrosPerEvent) ? s.cpuMicrosPerEvent.toFixed(1) : '-',
  Number.isFinite(s.mainThreadMicrosPerEvent) ? s.mainThreadMicrosPerEvent.toFixed(1) : '-',
  Number.isFinite(s.cpuPerWall) ? `${Math.round(s.cpuPerWall * 100)}%` : '-',
]);
const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
const line = (cells) =>
  `| ${cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join(' | ')} |`;
const table = [
  line(header),
  `|${widths.map((w, i) => (i === 0 ? `:${'-'.repeat(w + 1)}` : `${'-'.repeat(w + 1)}:`)).join('|')}|`,
  ...rows.map(line),
].join('\n');

/** The issue's targets (for the alternative build too); a target whose consumers did not run is skipped. */
const targets = ['', '@alt']
  .filter((suffix) => suffix === '' || ALT)
  .flatMap((suffix) => {
    const tag = suffix ? ` [${ALT_LABEL}]` : '';
    const fromWatch = `fromWatch${suffix}`;
    return [
      [`fromWatch${tag} events/s >= 1.15x client-node Watch`, fromWatch, 'clientNodeWatch', 1.15],
      [`fromWatch${tag} events/s >= 0.80x JSON.parse alone`, fromWatch, 'jsonParse', 0.8],
      [
        `resumed + toStore${tag} events/s >= 1.10x makeInformer`,
        `resumedStore${suffix}`,
        'clientNodeInformer',
        1.1,
      ],
      [
        `resumed + toStore${tag} events/s >= 1.25x makeInformer`,
        `resumedStore${suffix}`,
        'clientNodeInformer',
        1.25,
      ],
      [
        `resumed + toStore${tag} events/s >= 0.70x fromWatch`,
        `resumedStore${suffix}`,
        'fromWatch',
        0.7,
      ],
      [
        `resumed + toStore${tag} peak RSS <= makeInformer peak RSS`,
        `resumedStore${suffix}`,
        'clientNodeInformer',
        1,
        true,
      ],
      [
        `fromWatch${tag} peak RSS <= client-node Watch peak RSS`,
        fromWatch,
        'clientNodeWatch',
        1,
        true,
      ],
    ];
  })
  .filter(([, name, reference]) => names.includes(name) && names.includes(reference))
  .map(([target, name, reference, bound, memory]) => {
    // Every value is "higher is better": events/s over the reference's, CPU time per event of
    // the reference over this one's (the same comparison, less sensitive to waiting for a CPU),
    // and for memory the reference's peak RSS over this one's.
    const perRoundValues = memory
      ? ratios(reference, name, (r) => r.peakRss)
      : ratios(name, reference, (r) => r.eventsPerSecond);
    const value = median(perRoundValues);
    const cpuValue = memory ? NaN : median(ratios(reference, name, (r) => r.cpuMicrosPerEvent));
    const roundsMet = perRoundValues.filter((v) => v >= bound).length;
    return {
      target,
      value,
      cpuValue,
      bound,
      met: value >= bound,
      roundsMet,
      rounds: rounds.length,
    };
  });

const info = await machine();
console.log(
  `\n${info.nproc} x ${info.cpu}, Node ${info.node}; ${ROUNDS} rounds of ${EVENTS.toLocaleString('en-US')} events (~${eventBytes} B each) about ${templates.length} pods, ${CHUNK === 'batch' ? '~64 KiB chunks' : 'one chunk per event'}${WARMUP ? `, after a warm-up of ${WARMUP.toLocaleString('en-US')} events` : ', cold processes'}\n`,
);
console.log(table);
if (targets.length) console.log('\ntargets (medians of the per-round ratios):');
for (const { target, value, cpuValue, met, roundsMet, rounds: n } of targets) {
  const measured = target.includes('RSS')
    ? `${value.toFixed(2)} (theirs / ours)`
    : `${value.toFixed(2)}x (by CPU time per event: ${cpuValue.toFixed(2)}x)`;
  console.log(
    `  ${met ? 'met    ' : 'NOT MET'}  ${target}: ${measured}; met in ${roundsMet}/${n} rounds`,
  );
}

await mkdir(here('./results'), { recursive: true });
await writeFile(
  here('./results/latest.json'),
  JSON.stringify(
    {
      bench: 'watch',
      date: new Date().toISOString(),
      machine: info,
      config: {
        events: EVENTS,
        rounds: ROUNDS,
        eventBytes,
        pods: templates.length,
        alt: ALT ?? null,
        chunk: CHUNK,
        warmup: WARMUP,
      },
      summary,
      targets,
      rounds,
      table,
    },
    null,
    2,
  ) + '\n',
);
console.log('\nwritten to bench/results/latest.json');
// Targets are measurements, not assertions; a consumer that failed (wrong count, an error) is.
const failures = rounds.flatMap(({ results }) => Object.values(results).filter((r) => r.failed));
if (failures.length > 0) {
  console.error(`${failures.length} consumer run(s) failed`);
  process.exitCode = 1;
}
