// The measured part of a consumer process in a sliced run (watch.bench.mjs --slices=N, the
// default): the parent starts the consumer's slices one at a time, alternating with the other
// consumers' processes, so that adjacent slices of two consumers meet the same machine state.
// Rationale (docs/performance.md, "Measuring on a drifting machine"): a host's speed drifts over
// seconds, so two consumers each run alone for seconds compare different machines.
//
// Protocol (IPC with the parent, which relays releases to the server):
//   parent -> { slice: i }   start slice i: measure, then { go: i } (the parent lets the gated
//                            watch send the slice's events), wait for them, wait until the
//                            process is quiet, then -> { result: { ...the slice's numbers } }
//   parent -> { end: true }  check the whole run (count, last version), -> { ended: true }, exit
// Consumers that cannot read a gated watch (in memory, many watches; `sliceByRuns`) instead run
// one whole fresh run of the slice's events per slice.
import { performance } from 'node:perf_hooks';
import { GCProfiler } from 'node:v8';
import { gcSummary } from '../gcSummary.mjs';

/** Runs the sliced protocol until { end }; never returns (the process exits). */
export async function runSliced(options) {
  const { consumer, name, events, server, slicedServer, sliceEvents } = options;
  const { sliceEnd, quiet, mainThreadNanos, resetPeakRss } = options;
  const byRuns = Boolean(consumer.sliceByRuns);
  const run = byRuns
    ? await consumer.load({ server, events: sliceEvents })
    : await consumer.load({ server: slicedServer, events });
  const loadedRss = process.memoryUsage.rss();
  const warmupPeakRss = process.resourceUsage().maxRSS * 1024;
  let failure;
  const fail = (error) => {
    failure ??= error;
    sliceEnd.reached();
  };
  /** The one long run on the gated watch (waits for its first release). */
  const whole = byRuns ? undefined : run();
  let tally;
  whole?.then((t) => ((tally = t), sliceEnd.reached()), fail);
  const send = (message) => new Promise((resolve) => process.send(message, resolve));

  const slice = async (index) => {
    const reached = new Promise((resolve) => (sliceEnd.reached = resolve));
    sliceEnd.at = byRuns ? -1 : (index + 1) * sliceEvents;
    const peakReset = resetPeakRss();
    const profiler = new GCProfiler();
    profiler.start();
    const cpuBefore = process.cpuUsage();
    const mainBefore = mainThreadNanos();
    const started = performance.now();
    if (byRuns) {
      (await run()).check(consumer.expectedLast?.(sliceEvents));
    } else {
      await send({ go: index });
      await reached;
      if (failure) throw failure;
    }
    const seconds = (performance.now() - started) / 1000;
    // Background work (concurrent marking, sweeping, compilers) ends before the next consumer's
    // slice starts, so it does not run on the CPU that slice is measured on; its CPU time is
    // this slice's (it is what the slice's events caused), so CPU is read after it, and the
    // collections it finished count too. (The quiet check itself costs well under 1 ms.)
    await quiet();
    const cpu = process.cpuUsage(cpuBefore);
    const mainThread = mainThreadNanos() - mainBefore;
    const gc = gcSummary(profiler.stop().statistics);
    gc.peakHeap = Math.max(gc.peakHeap, process.memoryUsage().heapUsed);
    const runPeakRss = peakReset ? process.resourceUsage().maxRSS * 1024 : NaN;
    return {
      events: sliceEvents,
      seconds,
      cpuMicros: cpu.user + cpu.system,
      mainThreadMicros: mainThread / 1000,
      loadedRss,
      warmupPeakRss,
      runPeakRss,
      promoted: gc.promoted,
      peakHeap: gc.peakHeap,
      scavenges: gc.scavenges,
      fullGcs: gc.fullGcs,
      gcPauseMs: gc.pauseMs,
    };
  };

  process.on('message', async (message) => {
    try {
      if (message.slice !== undefined) {
        await send({ result: await slice(message.slice) });
      } else if (message.end) {
        if (!byRuns) {
          await whole;
          tally.check(consumer.expectedLast?.(events));
        }
        await send({ ended: true });
        process.exit(0);
      }
    } catch (error) {
      await send({ failed: `${name}: ${error?.message ?? error}` });
      process.exit(1);
    }
  });
  await send({ ready: true });
  // The messages drive the rest; the process exits from the handler.
  await new Promise(() => {});
}
