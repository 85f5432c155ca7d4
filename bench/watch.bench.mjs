// Watch throughput and memory, kube-rx against its peers (issue 7). Not part of `npm test`.
//   npm run bench                  (builds dist/, then runs every bench/*.bench.*)
//   node bench/watch.bench.mjs [--rounds=7] [--events=60000] [--only=fromWatch,jsonParse]
//                              [--quick] [--pods=1000] [--chunk=batch]
//                              [--alt=<dist> --alt-label=<name>] [--stream=cycle] [--warmup=N]
//                              [--modes=tls,http] [--round-offset=N] [--out=<file>]
//                              [--slices=10]
// --slices=N (default 10; 0: the former runs): in every round and mode, all consumers' processes
// are started (each warmed up, then idle) and read one long watch each in N slices of EVENTS / N
// events, taking turns (slice 1 of each consumer in the round's order, then slice 2, ...), one
// process running at a time (bench/watch/slicedRound.mjs). A ratio pairs each slice with the
// nearest slices of its reference, a fraction of a second apart: a host whose speed drifts over
// seconds then meets both consumers alike. --slices=0: every consumer reads EVENTS events in a
// fresh process of its own, one after another (each alone for seconds).
// --modes: the real-cluster mode first (`tls`: every consumer reads the stream from a TLS port
// that offers h2 and http/1.1 by ALPN, as kube-apiserver does, and speaks what it would speak to
// a cluster: kube-rx negotiates HTTP/2, client-node and node-fetch speak HTTPS/1.1), then plain
// `http://` (`http`); both by default, interleaved in every round. In the http mode the HTTP/2
// rows (consumers marked h2) read the TLS port; they have no --alt row.
// --warmup=N: each consumer process first reads N events (and waits until it is quiet) before
// the measured run: the steady state, without one-time costs (JIT and WebAssembly compilation).
// --round-offset=N: rotate the order as round N would (bench/targets.mjs runs one round a time).
// Needs a build (`npm run build`): the kube-rx consumers import dist/.
//
// A loopback server (bench/watch/server.mjs, its own process) streams a pod watch of about 5 KB
// per event. Every consumer runs in a fresh child process (bench/watch/consumer.mjs), once per
// round and mode; the order rotates each round, so drift on a shared machine hits every consumer
// alike. Reported per mode: median events/s and their spread, the medians of the per-round
// ratios against client-node Watch and against JSON.parse alone, CPU time per event (of every
// thread, and of the main thread alone: the difference is mostly the garbage collector's helper
// threads), median peak RSS (the child's maxRSS), and what the collector saw in the consumer
// (V8's GC profiler): the peak heap and the bytes promoted to old space per event.
// Results also go to bench/results/latest.json (or --out=<file>).
import { execFile, fork } from 'node:child_process';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { resolve as resolvePath } from 'node:path';
import { cpus } from 'node:os';
import { dirname } from 'node:path';
import { URL, fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { benchArgs } from './args.mjs';
import { runSlicedRound } from './watch/slicedRound.mjs';

const run = promisify(execFile);
const here = (path) => fileURLToPath(new URL(path, import.meta.url));

const args = benchArgs();
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
// A name may end in `+liftoff` (before any @alt): that consumer's process runs with V8's
// --liftoff-only, so WebAssembly is never compiled by TurboFan. What it is for: undici's llhttp
// (kube-rx's HTTP/1.1 parser) is WebAssembly, and its TurboFan compile in the first seconds of a
// process peaks at 25-30 MB and leaves about 10 MB resident after it (docs/performance.md,
// "Peak RSS and llhttp's compile"); client-node's parser is native code. `resumedStore+liftoff`
// beside `resumedStore` shows that one-time cost apart, in the same rounds.
const consumerName = (name) => name.replace(/@alt$/, '').replace(/\+liftoff$/, '');
const consumerOf = (name) => consumers[consumerName(name)];
/** The V8 flags of a consumer's process. */
const execArgvOf = (name) => (name.includes('+liftoff') ? ['--liftoff-only'] : []);
const report = await import('./watch/report.mjs');
const { podTemplates } = await import('./watch/pods.mjs');
const quick = args.quick === 'true';
const ROUNDS = Number(args.rounds ?? (quick ? 3 : 7));
const EVENTS = Number(args.events ?? (quick ? 30_000 : 60_000));
// --alt=<dist dir>: also run every kube-rx consumer against that build, as `<name>@alt`, in the
// same rounds (how bench/proposals/ measure a change before/after).
const ALT = args.alt ? resolvePath(args.alt) : undefined;
const ALT_LABEL = args['alt-label'] ?? 'alt';
const baseNames = args.only ? args.only.split(',') : Object.keys(consumers);
for (const name of baseNames) {
  if (!consumers[consumerName(name)]) throw new Error(`no consumer named ${name}`);
}
const MODES = (args.modes ?? 'tls,http').split(',');
for (const mode of MODES) if (!report.MODE_LABELS[mode]) throw new Error(`no mode named ${mode}`);
const ROUND_OFFSET = Number(args['round-offset'] ?? 0);
const OUT = resolvePath(args.out ?? here('./results/latest.json'));
// --chunk=batch: the server sends ~64 KiB HTTP chunks instead of one chunk per event.
const CHUNK = args.chunk ?? 'event';
const WARMUP = Number(args.warmup ?? 0);
const SLICES = Number(args.slices ?? 10);
const names = baseNames.flatMap((name) =>
  ALT && consumerOf(name).kubeRx && !consumerOf(name).h2 ? [name, `${name}@alt`] : [name],
);
const labelOf = (name) =>
  consumerOf(name).label +
  (name.includes('+liftoff') ? ' (--liftoff-only)' : '') +
  (name.endsWith('@alt') ? ` [${ALT_LABEL}]` : '');
/** A mode's consumers: in the real-cluster mode all are on TLS, so the h2-marked rows are dropped. */
const namesOf = (mode) =>
  mode === 'tls'
    ? names.filter((name) => !consumerOf(name).h2 && !consumerOf(name).plainOnly)
    : names;
const H2 = MODES.includes('tls') || names.some((name) => consumerOf(name).h2);
const { rate } = report;

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

/** The environment of a consumer process: the warm-up, and the build it imports. */
const envOf = (name) => ({
  ...process.env,
  BENCH_WARMUP: String(WARMUP),
  ...(name.endsWith('@alt') ? { KUBE_RX_DIST: ALT } : {}),
});

async function runConsumer(name, server) {
  try {
    const { stdout } = await run(
      process.execPath,
      [
        ...execArgvOf(name),
        here('./watch/consumer.mjs'),
        consumerName(name),
        server,
        String(EVENTS),
      ],
      {
        timeout: 10 * 60_000,
        maxBuffer: 1 << 20,
        env: envOf(name),
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
    // V8 flags change what is measured (a larger young generation: docs/performance.md).
    nodeOptions: process.env.NODE_OPTIONS || undefined,
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
/** Per mode, the rounds: { order, results: { [consumer]: result } }. */
const roundsOf = Object.fromEntries(MODES.map((mode) => [mode, []]));
try {
  for (let round = 0; round < ROUNDS; round++) {
    for (const mode of MODES) {
      const modeNames = namesOf(mode);
      const turn = round + ROUND_OFFSET;
      const order = modeNames.map((_, i) => modeNames[(i + turn) % modeNames.length]);
      const urlOf = (name, { url, h2Url }) => (mode === 'tls' || consumerOf(name).h2 ? h2Url : url);
      let roundResult;
      if (SLICES > 0) {
        roundResult = await runSlicedRound({
          server,
          order,
          urlOf,
          envOf,
          consumerName,
          execArgvOf,
          events: EVENTS,
          slices: SLICES,
        });
      } else {
        const results = {};
        for (const name of order) results[name] = await runConsumer(name, urlOf(name, server));
        roundResult = { order, results };
      }
      const { results } = roundResult;
      roundsOf[mode].push(roundResult);
      console.log(
        `  round ${round + 1}/${ROUNDS} ${mode}: ` +
          order.map((name) => `${name} ${rate(results[name].eventsPerSecond)}/s`).join(', '),
      );
    }
  }
} finally {
  server.child.kill();
}

const reports = Object.fromEntries(
  MODES.map((mode) => {
    const rounds = roundsOf[mode];
    const modeNames = namesOf(mode);
    const summary = report.summarize(rounds, modeNames, labelOf);
    const targets = report.measureTargets(rounds, modeNames, [
      ...report.targetsOf(mode),
      ...(ALT ? report.targetsOf(mode, '@alt', ` [${ALT_LABEL}]`) : []),
    ]);
    return [
      mode,
      {
        label: report.MODE_LABELS[mode],
        summary,
        targets,
        rounds,
        table: report.summaryTable(summary),
      },
    ];
  }),
);

const info = await machine();
console.log(
  `\n${info.nproc} x ${info.cpu}, Node ${info.node}${info.nodeOptions ? ` (NODE_OPTIONS=${info.nodeOptions})` : ''}; ${ROUNDS} rounds of ${EVENTS.toLocaleString('en-US')} events${SLICES > 0 ? ` in ${SLICES} interleaved slices` : ''} (~${eventBytes} B each) about ${templates.length} pods, ${CHUNK === 'batch' ? '~64 KiB chunks' : 'one chunk per event'}${WARMUP ? `, after a warm-up of ${WARMUP.toLocaleString('en-US')} events` : ', cold processes'}`,
);
for (const mode of MODES) {
  const { label, table, targets } = reports[mode];
  console.log(`\n${label}:\n\n${table}`);
  if (targets.length) console.log('\ntargets (medians of the per-round ratios):');
  for (const line of report.targetLines(targets)) console.log(line);
}

await mkdir(dirname(OUT), { recursive: true });
await writeFile(
  OUT,
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
        stream: process.env.BENCH_STREAM ?? 'growing',
        modes: MODES,
        slices: SLICES,
      },
      modes: reports,
    },
    null,
    2,
  ) + '\n',
);
console.log(`\nwritten to ${OUT}`);
// Targets are measurements, not assertions; a consumer that failed (wrong count, an error) is.
const failures = Object.values(roundsOf).flatMap((rounds) =>
  rounds.flatMap(({ results }) => Object.values(results).filter((r) => r.failed)),
);
if (failures.length > 0) {
  console.error(`${failures.length} consumer run(s) failed`);
  process.exitCode = 1;
}
