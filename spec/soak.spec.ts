import { describe, expect, it } from '@jest/globals';
import {
  JUDGED_PERIODS,
  formatSoak,
  judgeSoak,
  judgedGrowth,
  memoryGrowth,
  slope,
  type SoakReport,
} from '../bench/soak/soak.js';

// The soak (npm run soak) is not part of npm test; its verdict is, so that a soak that passes
// means what it says.
describe('the verdict of the soak', () => {
  const passing = (): SoakReport => ({
    seed: 1,
    watches: 200,
    minutes: [],
    faults: {} as SoakReport['faults'],
    mutations: 100,
    duplicates: 0,
    regressions: 0,
    lost: 0,
    converged: true,
    pipelineErrors: [],
    openSockets: { server: 0, clientHandles: 0 },
    http2: { sessions: 2, streams: 400, openStreams: 0, resetByClient: 10 },
    slopePerHour: { rss: 0, heapUsed: 0 },
    growth: { rss: 0.02, heapUsed: -0.01 },
    failures: [],
  });

  it('passes a clean HTTP/2 run', () => {
    expect(judgeSoak(passing(), true)).toEqual([]);
  });

  it('fails a run that left HTTP/2 streams open, or that never used HTTP/2 when it should have', () => {
    const open = passing();
    open.http2.openStreams = 3;
    expect(judgeSoak(open, true)).toEqual(['3 HTTP/2 streams left open on the server']);
    const http1 = passing();
    http1.http2.streams = 0;
    expect(judgeSoak(http1, true)).toEqual(['no HTTP/2 stream: the run used HTTP/1.1']);
    expect(judgeSoak(http1, false)).toEqual([]);
  });

  it('fails on memory growth, lost or duplicated changes and sockets left open', () => {
    const report = passing();
    report.growth = { rss: 0.2, heapUsed: 0.05 };
    report.lost = 2;
    report.duplicates = 1;
    report.openSockets = { server: 1, clientHandles: 0 };
    expect(judgeSoak(report, true)).toEqual([
      'RSS grew +20.0 %',
      '2 lost changes',
      '1 duplicates',
      'sockets left open: 1 on the server, 0 client handles',
    ]);
  });

  const mb = 1e6;
  const periods = (heap: number[]) =>
    heap.map((h) => ({ rssBytes: 200 * mb, heapUsedBytes: h * mb }));
  // The 30-minute run's heap (MB per minute): a sawtooth in a 47-55 MB band, which the old
  // rule (last period against the second) judged +15 %.
  const sawtooth = [
    47.3, 47.2, 50.5, 53.5, 54.1, 54.5, 54.3, 48.6, 48.3, 49.2, 47.9, 51.6, 47.3, 50.9, 53.9, 55.0,
    54.0, 55.1, 51.4, 48.5, 53.3, 55.1, 54.3, 48.4, 50.1, 54.6, 55.1, 54.2, 53.8, 54.3,
  ];
  const leaking = (heap: number[]) => heap.map((h, i) => h + i * 0.5);

  it('judges growth by the crests of the first and last thirds, after the warm-up period', () => {
    const flat = memoryGrowth(periods(sawtooth))!;
    expect(flat.heapUsed).toBeCloseTo(55.1 / 54.5 - 1, 6);
    expect(flat.rss).toBe(0);
    // The same sawtooth on a leak of 0.5 MB a minute: every crest higher.
    const leak = memoryGrowth(periods(leaking(sawtooth)))!;
    expect(leak.heapUsed).toBeGreaterThan(0.1);
    // The warm-up period does not count, however high.
    expect(memoryGrowth(periods([90, 50, 50, 50]))!.heapUsed).toBe(0);
    expect(memoryGrowth(periods([50, 50]))).toBeUndefined();
  });

  it('judges memory from the number of periods that tells the recorded sawtooth from a 0.5 MB/min leak', () => {
    // Every stretch of the recording of `settled` periods after a warm-up one, as it is and on
    // the leak: the rule tells them apart when no stretch of the recording reads above 10 % and
    // every leaking stretch does.
    const tells = (settled: number) => {
      for (let start = 0; start + settled + 1 <= sawtooth.length; start++) {
        const stretch = sawtooth.slice(start, start + settled + 1);
        if (memoryGrowth(periods(stretch))!.heapUsed > 0.1) return false;
        if (memoryGrowth(periods(leaking(stretch)))!.heapUsed <= 0.1) return false;
      }
      return true;
    };
    // The least number from which every longer stretch of the recording is told apart too.
    const longest = sawtooth.length - 1;
    let least = longest;
    while (least > 2 && tells(least - 1)) least--;
    for (let n = least; n <= longest; n++) expect(tells(n)).toBe(true);
    expect(JUDGED_PERIODS).toBe(least);
    expect(tells(JUDGED_PERIODS - 1)).toBe(false);
    expect(judgedGrowth(periods(sawtooth.slice(0, JUDGED_PERIODS)))).toBeUndefined();
    expect(judgedGrowth(periods(sawtooth.slice(0, JUDGED_PERIODS + 1)))).toBeDefined();
  });

  it('does not judge the memory of a short run: four periods are judged on delivery alone', () => {
    // `--minutes 4`: four one-minute periods whose crests read +11.4 % heap, a slope of
    // +173.7 MB/h, and a clean delivery.
    const short = periods([60, 49.1, 52.0, 54.7]);
    expect(memoryGrowth(short)!.heapUsed).toBeCloseTo(0.114, 3);
    const report = passing();
    report.minutes = short.map(
      (f, i) => ({ ...f, minute: i + 1 }) as SoakReport['minutes'][number],
    );
    report.growth = judgedGrowth(short);
    report.slopePerHour = { rss: 0, heapUsed: 173.7 * mb };
    expect(report.growth).toBeUndefined();
    expect(judgeSoak(report, true)).toEqual([]);
    const lines = formatSoak(report);
    expect(lines).toContain(
      `memory: not judged (4 periods; run ${JUDGED_PERIODS + 1} minutes or more)`,
    );
    expect(lines.at(-1)).toBe('result PASS');
    // Delivery still decides it.
    report.lost = 2;
    report.failures = judgeSoak(report, true);
    expect(formatSoak(report).at(-1)).toBe('result FAIL: 2 lost changes');
  });

  it('measures the memory slope by least squares', () => {
    const points = [0, 1000, 2000, 3000].map((atMs) => ({ atMs, v: 5 + atMs * 0.25 }));
    expect(slope(points, (p) => p.v)).toBeCloseTo(0.25, 10);
    // Noise around a flat line: no slope.
    const flat = [10, 12, 12, 10].map((v, i) => ({ atMs: i * 1000, v }));
    expect(slope(flat, (p) => p.v)).toBe(0);
    expect(slope([{ atMs: 5, v: 1 }], (p) => p.v)).toBe(0);
  });
});
