// One consumer run in a fresh process (watch.bench.mjs spawns one per consumer per round):
//   node bench/watch/consumer.mjs <consumer> <server URL> <events>
// Prints one JSON line: events, seconds, events/s, CPU time per wall time, CPU time per event (of
// every thread, and of the main thread alone), RSS after loading and peak RSS, and what the
// garbage collector saw: bytes promoted to old space per event, peak heap, collections, pauses.
import { readFileSync, writeFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { GCProfiler } from 'node:v8';
import { consumers, sliceEnd } from './consumers.mjs';
import { gcSummary } from '../gcSummary.mjs';

const [name, server, eventsArg] = process.argv.slice(2);
const events = Number(eventsArg);
const consumer = consumers[name];
if (!consumer || !server || !(events > 0)) {
  console.error(`usage: consumer.mjs <${Object.keys(consumers).join('|')}> <server> <events>`);
  process.exit(2);
}

/**
 * CPU time of the main thread so far, in ns (Linux's schedstat; NaN elsewhere). The rest of the
 * process's CPU time is other threads': the garbage collector's helpers, mostly.
 */
function mainThreadNanos() {
  try {
    return Number(readFileSync(`/proc/self/task/${process.pid}/schedstat`, 'utf8').split(' ')[0]);
  } catch {
    return NaN;
  }
}

// BENCH_WARMUP=N (watch.bench.mjs --warmup=N): first read N events with a consumer of its own
// and wait until the process is quiet, so that what is measured is the steady state of a watch
// without what a process pays once: JIT compilation, above all V8 compiling undici's llhttp
// WebAssembly parser with TurboFan (about 0.3 s of CPU on helper threads and 30-40 MB of
// compiler memory, in the first seconds of the first HTTP/1.1 response of the process).
const warmup = Number(process.env.BENCH_WARMUP ?? 0);
if (warmup > 0) {
  const warm = await consumer.load({ server, events: warmup });
  (await warm()).check(consumer.expectedLast?.(warmup));
  await quiet();
}

/** Resolves once the process used under 2 ms of CPU in 100 ms (background compilers done), 10 s at most. */
async function quiet() {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const before = process.cpuUsage();
    await sleep(100);
    const used = process.cpuUsage(before);
    if (used.user + used.system < 2000 || Date.now() > deadline) return;
  }
}

// BENCH_SLICED_SERVER (watch.bench.mjs --slices=N): the measured run is one long watch of a
// gated port, read in slices the parent starts one at a time (bench/watch/sliced.mjs).
if (process.env.BENCH_SLICED_SERVER !== undefined && process.send) {
  const { runSliced } = await import('./sliced.mjs');
  await runSliced({
    consumer,
    name,
    events,
    server,
    slicedServer: process.env.BENCH_SLICED_SERVER,
    sliceEvents: Number(process.env.BENCH_SLICE_EVENTS),
    sliceEnd,
    quiet,
    mainThreadNanos,
    resetPeakRss,
  });
}

const run = await consumer.load({ server, events });
const loadedRss = process.memoryUsage.rss();
// The process's peak so far (the warm-up's one-time costs: llhttp's TurboFan compile on
// HTTP/1.1), then the kernel's high-water mark is reset, so `runPeakRss` is the measured run's
// own peak: the steady state DESIGN judges, with the one-time costs reported apart.
const warmupPeakRss = process.resourceUsage().maxRSS * 1024;
const peakReset = resetPeakRss();
// What the collector saw during the run (V8's GC profiler: heap statistics before and after each
// collection): the bytes scavenges moved into old space (what survived two of them; a long-lived
// keyed structure that deletes keys makes this the whole live set again and again: DESIGN, Known
// traps), and the largest heap a collection started from.
const profiler = new GCProfiler();
profiler.start();
const cpuBefore = process.cpuUsage();
const mainBefore = mainThreadNanos();
const started = performance.now();
const tally = await run();
const seconds = (performance.now() - started) / 1000;
const cpu = process.cpuUsage(cpuBefore);
const mainThread = mainThreadNanos() - mainBefore;
const gc = gcSummary(profiler.stop().statistics);
gc.peakHeap = Math.max(gc.peakHeap, process.memoryUsage().heapUsed);
// maxRSS is the process's true peak (kilobytes), sampled by the kernel: nothing is missed (the
// reset above lowered it to the RSS of that moment, so the warm-up's peak is taken apart).
const runPeakRss = peakReset ? process.resourceUsage().maxRSS * 1024 : NaN;
const peakRss = Math.max(warmupPeakRss, process.resourceUsage().maxRSS * 1024);
tally.check(consumer.expectedLast?.(events));

process.stdout.write(
  JSON.stringify({
    consumer: name,
    events: tally.count,
    seconds,
    eventsPerSecond: tally.count / seconds,
    // The share of the run this process spent on a CPU (all its threads, GC helpers included):
    // well under 1 means it waited, for the server or for a CPU on a busy machine.
    cpuPerWall: (cpu.user + cpu.system) / 1e6 / seconds,
    // CPU time per event in µs: less sensitive than events/s to waiting for a busy CPU.
    cpuMicrosPerEvent: (cpu.user + cpu.system) / tally.count,
    mainThreadMicrosPerEvent: mainThread / 1000 / tally.count,
    loadedRss,
    peakRss,
    runPeakRss,
    promotedBytesPerEvent: gc.promoted / tally.count,
    peakHeap: gc.peakHeap,
    scavenges: gc.scavenges,
    fullGcs: gc.fullGcs,
    gcPauseMs: gc.pauseMs,
  }) + '\n',
);
// Sockets of aborted watches may linger; the measurement is done.
process.exit(0);

/** Resets the kernel's peak RSS of this process to its RSS now (Linux's clear_refs); false elsewhere. */
function resetPeakRss() {
  try {
    writeFileSync('/proc/self/clear_refs', '5');
    return true;
  } catch {
    return false;
  }
}
