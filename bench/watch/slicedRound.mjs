// One round of watch.bench.mjs in slices (--slices=N, the default): every consumer of the round
// is started in its own process (one after another, each warmed up and quiet before the next
// starts), opens one long watch on a gated port of the server, and then the consumers read that
// watch in turns: slice 1 of each in the round's order, then slice 2 of each, ... Each slice is
// EVENTS / N events; only one process runs at a time. A consumer's round result sums its slices;
// `slices` keeps every slice in the order they ran, so a ratio can pair each slice with its
// reference's neighbouring slices (report.mjs, pairedRatios), a fraction of a second apart.
import { fork } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { URL, fileURLToPath } from 'node:url';

const here = (path) => fileURLToPath(new URL(path, import.meta.url));

/** The next IPC message of `child` that `match` accepts (rejects if it exits first). */
function nextMessage(child, match) {
  return new Promise((resolve, reject) => {
    const onMessage = (message) => {
      if (message.failed) return done(reject, new Error(message.failed));
      if (match(message)) done(resolve, message);
    };
    const onExit = (code) => done(reject, new Error(`the process exited (${code})`));
    const done = (settle, value) => {
      child.off('message', onMessage);
      child.off('exit', onExit);
      settle(value);
    };
    child.on('message', onMessage);
    child.once('exit', onExit);
  });
}

/** Starts `name` (warm-up included) on a gated port of `server`; resolves once it is ready. */
async function startConsumer({ name, id, server, urlOf, events, sliceEvents, env, argv }) {
  server.child.send({ open: id });
  const ports = await nextMessage(server.child, (m) => m.opened === id);
  const gated = urlOf(name, {
    url: `http://127.0.0.1:${ports.port}`,
    h2Url: ports.h2Port && `https://127.0.0.1:${ports.h2Port}`,
  });
  const watching = nextMessage(server.child, (m) => m.watching === id);
  watching.catch(() => {});
  const child = fork(here('./consumer.mjs'), [argv.consumer, urlOf(name, server), String(events)], {
    execArgv: argv.execArgv,
    env: { ...env, BENCH_SLICED_SERVER: gated, BENCH_SLICE_EVENTS: String(sliceEvents) },
    stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
  });
  let stderr = '';
  child.stderr.on('data', (data) => (stderr += data));
  try {
    await nextMessage(child, (m) => m.ready);
  } catch (error) {
    throw new Error(`${error.message}: ${stderr.trim().split('\n')[0] ?? ''}`);
  }
  return { name, id, child, watching, stderr: () => stderr };
}

/** Sums a consumer's slices into one round result (the fields of a whole-run result). */
function sumSlices(name, slices) {
  const sum = (field) => slices.reduce((total, s) => total + s[field], 0);
  const max = (field) => Math.max(...slices.map((s) => s[field]));
  const events = sum('events');
  const seconds = sum('seconds');
  return {
    consumer: name,
    events,
    seconds,
    eventsPerSecond: events / seconds,
    cpuPerWall: sum('cpuMicros') / 1e6 / seconds,
    cpuMicrosPerEvent: sum('cpuMicros') / events,
    mainThreadMicrosPerEvent: sum('mainThreadMicros') / events,
    loadedRss: slices[0].loadedRss,
    runPeakRss: max('runPeakRss'),
    peakRss: Math.max(slices[0].warmupPeakRss, max('runPeakRss')),
    promotedBytesPerEvent: sum('promoted') / events,
    peakHeap: max('peakHeap'),
    scavenges: sum('scavenges'),
    fullGcs: sum('fullGcs'),
    gcPauseMs: sum('gcPauseMs'),
  };
}

let nextId = 0;

/**
 * Runs one sliced round: `order` (consumer names) each read `events` events in `slices` slices.
 * `urlOf(name, { url, h2Url })` picks the URL a consumer reads; `envOf(name)` its environment,
 * `consumerName(name)` its consumer (bench/watch/consumers.mjs), `execArgvOf(name)` its V8 flags.
 * Resolves with { order, results, slices: [{ consumer, index, eventsPerSecond, ... }] }; a
 * consumer that fails is { failed: true } in results and has no further slices.
 */
export async function runSlicedRound(options) {
  const { server, order, urlOf, envOf, consumerName, execArgvOf, events, slices: count } = options;
  const sliceEvents = Math.floor(events / count);
  const total = sliceEvents * count;
  const running = [];
  const results = {};
  const slices = [];
  const perConsumer = Object.fromEntries(order.map((name) => [name, []]));
  const failed = (name, error) => {
    console.error(`  ${name} failed: ${error.message.split('\n')[0]}`);
    results[name] = { consumer: name, failed: true };
  };
  try {
    for (const name of order) {
      const id = `c${nextId++}`;
      try {
        const started = await startConsumer({
          name,
          id,
          server,
          urlOf,
          events: total,
          sliceEvents,
          env: envOf(name),
          argv: { consumer: consumerName(name), execArgv: execArgvOf(name) },
        });
        running.push(started);
      } catch (error) {
        failed(name, error);
      }
    }
    // Every gated watch has arrived (its list and connection are done) before slice 1.
    await Promise.all(
      running.map(({ name, watching, child }) =>
        name && !child.killed ? Promise.race([watching, sleep(3000)]) : undefined,
      ),
    );
    for (let index = 0; index < count; index++) {
      for (const consumer of running) {
        if (results[consumer.name]?.failed) continue;
        const { name, id, child } = consumer;
        try {
          const result = nextMessage(child, (m) => m.result);
          const go = nextMessage(child, (m) => m.go === index);
          go.catch(() => {});
          child.send({ slice: index });
          // In-memory consumers run the slice without a gate and send no { go }.
          await Promise.race([
            go.then(() => server.child.send({ release: id, events: sliceEvents })),
            result,
          ]);
          const slice = (await result).result;
          perConsumer[name].push(slice);
          slices.push({
            consumer: name,
            index,
            eventsPerSecond: slice.events / slice.seconds,
            cpuMicrosPerEvent: slice.cpuMicros / slice.events,
            mainThreadMicrosPerEvent: slice.mainThreadMicros / slice.events,
            promotedBytesPerEvent: slice.promoted / slice.events,
          });
        } catch (error) {
          failed(
            name,
            new Error(`${error.message} ${consumer.stderr().trim().split('\n')[0] ?? ''}`),
          );
        }
      }
    }
    for (const { name, child } of running) {
      if (results[name]?.failed) continue;
      try {
        child.send({ end: true });
        await nextMessage(child, (m) => m.ended);
        results[name] = sumSlices(name, perConsumer[name]);
      } catch (error) {
        failed(name, error);
      }
    }
  } finally {
    for (const { child } of running) if (child.exitCode === null) child.kill();
  }
  return { order, results, slices };
}
