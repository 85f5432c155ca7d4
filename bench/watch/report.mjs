// The report of watch.bench.mjs (and bench/targets.mjs): medians, same-round ratios, the table
// and the targets of DESIGN "Performance and reliability", from rounds of consumer results.

/** What each mode is, as the reports title it. */
export const MODE_LABELS = {
  tls: 'real-cluster mode: TLS, h2 offered by ALPN (kube-rx speaks HTTP/2, client-node HTTPS/1.1)',
  http: 'plain http:// (HTTP/1.1)',
};

export const median = (values) => {
  const sorted = values.filter((v) => Number.isFinite(v)).sort((a, b) => a - b);
  if (sorted.length === 0) return NaN;
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};
export const mb = (bytes) => (Number.isFinite(bytes) ? `${(bytes / 2 ** 20).toFixed(0)} MB` : '-');
export const rate = (perSecond) =>
  Number.isFinite(perSecond) ? Math.round(perSecond).toLocaleString('en-US') : '-';
export const times = (ratio) => (Number.isFinite(ratio) ? `${ratio.toFixed(2)}x` : '-');

/** The median over rounds of a per-round value. */
export const perRound = (rounds, name, value) =>
  median(rounds.map(({ results }) => (results[name] ? value(results[name]) : NaN)));

/**
 * A sliced round's ratios of `value(name) / value(reference)`, one per slice of `name`: each
 * slice against the nearest slice of `reference` in the order they ran (against the mean of the
 * two when one ran as near before as the other after: a linear drift cancels).
 */
export function pairedRatios(slices, name, reference, value) {
  const out = [];
  slices.forEach((slice, i) => {
    if (slice.consumer !== name) return;
    let nearest = Infinity;
    let sum = 0;
    let count = 0;
    slices.forEach((other, j) => {
      if (other.consumer !== reference) return;
      const distance = Math.abs(j - i);
      if (distance < nearest) [nearest, sum, count] = [distance, 0, 0];
      if (distance === nearest) [sum, count] = [sum + value(other), count + 1];
    });
    if (count > 0) out.push(value(slice) / (sum / count));
  });
  return out;
}

/**
 * Per-round ratios of `value(name) / value(reference)`, NaN where either failed or is missing.
 * With `paired`, a sliced round's ratio is the median of its paired slice ratios (pairedRatios);
 * rounds without slices (--slices=0), and values slices do not carry (RSS), compare the whole
 * round's results.
 */
export const ratios = (rounds, name, reference, value, paired = false) =>
  rounds.map(({ results: all, slices }) =>
    !all[name] || all[name].failed || !all[reference] || all[reference].failed
      ? NaN
      : paired && slices
        ? median(pairedRatios(slices, name, reference, value))
        : value(all[name]) / value(all[reference]),
  );

/** Every paired slice ratio of the sliced rounds (none without slices). */
const allPairs = (rounds, name, reference, value) =>
  rounds.flatMap(({ results: all, slices }) =>
    slices && all[name] && !all[name].failed && all[reference] && !all[reference].failed
      ? pairedRatios(slices, name, reference, value)
      : [],
  );

/** The `q` quantile (0..1) of `values`, by linear interpolation. */
export const quantile = (values, q) => {
  const sorted = values.filter((v) => Number.isFinite(v)).sort((a, b) => a - b);
  if (sorted.length === 0) return NaN;
  const at = (sorted.length - 1) * q;
  const low = Math.floor(at);
  return sorted[low] + (sorted[Math.ceil(at)] - sorted[low]) * (at - low);
};

/**
 * `reference`'s lowest CPU time per event over the rounds divided by `name`'s: each consumer's
 * best round, the estimator least hurt by a noisy neighbour (interference only adds time).
 */
export const bestRoundsRatio = (rounds, name, reference) => {
  const best = (consumer) =>
    Math.min(
      ...rounds
        .map(({ results }) => results[consumer])
        .filter((r) => r && !r.failed && Number.isFinite(r.cpuMicrosPerEvent))
        .map((r) => r.cpuMicrosPerEvent),
    );
  return best(reference) / best(name);
};

/** The spread of per-round values: `min-max`. */
export const spread = (values, format = (v) => v.toFixed(2)) => {
  const finite = values.filter((v) => Number.isFinite(v));
  return finite.length ? `${format(Math.min(...finite))}-${format(Math.max(...finite))}` : '-';
};

/** One row per consumer: medians over the rounds. */
export function summarize(rounds, names, labelOf) {
  const eventsPerSecondRatio = (name, reference) =>
    names.includes(reference)
      ? median(ratios(rounds, name, reference, (r) => r.eventsPerSecond, true))
      : NaN;
  return names.map((name) => {
    const rates = rounds.map(({ results }) => results[name]?.eventsPerSecond ?? NaN);
    return {
      consumer: name,
      label: labelOf(name),
      eventsPerSecond: perRound(rounds, name, (r) => r.eventsPerSecond),
      spread: spread(rates, rate),
      vsClientNodeWatch: eventsPerSecondRatio(name, 'clientNodeWatch'),
      vsJsonParse: eventsPerSecondRatio(name, 'jsonParse'),
      cpuPerWall: perRound(rounds, name, (r) => r.cpuPerWall),
      cpuMicrosPerEvent: perRound(rounds, name, (r) => r.cpuMicrosPerEvent),
      mainThreadMicrosPerEvent: perRound(rounds, name, (r) => r.mainThreadMicrosPerEvent),
      peakRss: perRound(rounds, name, (r) => r.peakRss),
      runPeakRss: perRound(rounds, name, (r) => r.runPeakRss),
      loadedRss: perRound(rounds, name, (r) => r.loadedRss),
      promotedBytesPerEvent: perRound(rounds, name, (r) => r.promotedBytesPerEvent),
      promotedSpread: spread(
        rounds.map(({ results }) => results[name]?.promotedBytesPerEvent ?? NaN),
        (v) => v.toFixed(0),
      ),
      peakHeap: perRound(rounds, name, (r) => r.peakHeap),
    };
  });
}

/** A markdown table: first column left-aligned, the others right-aligned. */
export function markdownTable(header, rows) {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells) =>
    `| ${cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join(' | ')} |`;
  return [
    line(header),
    `|${widths.map((w, i) => (i === 0 ? `:${'-'.repeat(w + 1)}` : `${'-'.repeat(w + 1)}:`)).join('|')}|`,
    ...rows.map(line),
  ].join('\n');
}

const fixed = (value, digits) => (Number.isFinite(value) ? value.toFixed(digits) : '-');

/** The table of a summary. */
export function summaryTable(summary) {
  return markdownTable(
    [
      'consumer',
      'events/s (median)',
      'min-max',
      'vs client-node Watch',
      'vs JSON.parse',
      'peak RSS',
      'run peak RSS',
      'peak heap',
      'promoted B/event',
      'CPU µs/event',
      'main thread',
      'CPU/wall',
    ],
    summary.map((s) => [
      s.label,
      rate(s.eventsPerSecond),
      s.spread,
      times(s.vsClientNodeWatch),
      times(s.vsJsonParse),
      mb(s.peakRss),
      mb(s.runPeakRss),
      mb(s.peakHeap),
      fixed(s.promotedBytesPerEvent, 0),
      fixed(s.cpuMicrosPerEvent, 1),
      fixed(s.mainThreadMicrosPerEvent, 1),
      Number.isFinite(s.cpuPerWall) ? `${Math.round(s.cpuPerWall * 100)}%` : '-',
    ]),
  );
}

/**
 * DESIGN's targets in `mode` ('tls': the real-cluster mode; 'http'), for the consumers present:
 * [text, consumer, reference, bound, memory?]. Every value is "higher is better": events/s over
 * the reference's, and for memory the reference's peak RSS over this one's (`memory` names the
 * field: runPeakRss, the measured run's own peak after the warm-up, or peakRss, the process's).
 */
export function targetsOf(mode, suffix = '', tag = '') {
  const tls = mode === 'tls';
  const fromWatch = `fromWatch${suffix}`;
  const resumed = `resumedStore${suffix}`;
  return [
    [
      `fromWatch${tag} events/s >= ${tls ? '1.20' : '1.10'}x client-node Watch`,
      fromWatch,
      'clientNodeWatch',
      tls ? 1.2 : 1.1,
    ],
    [`resumed + toStore${tag} events/s >= 0.92x fromWatch`, resumed, fromWatch, 0.92],
    // What the 0.92x stands for (DESIGN: the informer's own ratio to its Watch), measured in the
    // same rounds: a cache's cost depends on the layout, so read the target beside it.
    ...(suffix
      ? []
      : [['makeInformer events/s vs client-node Watch', 'clientNodeInformer', 'clientNodeWatch']]),
    [
      `resumed + toStore${tag} events/s >= ${tls ? '1.10' : '1.05'}x makeInformer`,
      resumed,
      'clientNodeInformer',
      tls ? 1.1 : 1.05,
    ],
    [
      `resumed + toStore${tag} peak RSS of the run <= 1.1x makeInformer's`,
      resumed,
      'clientNodeInformer',
      1 / 1.1,
      'runPeakRss',
    ],
    [
      `resumed + toStore${tag} peak RSS of the process (warm-up included) <= 1.1x makeInformer's`,
      resumed,
      'clientNodeInformer',
      1 / 1.1,
      'peakRss',
    ],
    // With the `+liftoff` row (watch.bench.mjs): the same without llhttp's TurboFan compile (its
    // ~10 MB left resident), which client-node, on Node's native parser, never pays. A reference.
    [
      `resumed + toStore${tag} --liftoff-only, peak RSS of the run vs makeInformer's`,
      `resumedStore+liftoff${suffix}`,
      'clientNodeInformer',
      undefined,
      'runPeakRss',
    ],
  ];
}

/** Each target measured on `rounds`: the median of the per-round ratios, their spread, how often met. */
export function measureTargets(rounds, names, targets) {
  return targets
    .filter(([, name, reference]) => names.includes(name) && names.includes(reference))
    .map(([target, name, reference, bound, memory]) => {
      // The run's own peak where the platform can tell it (Linux), else the process's.
      const rss = (r) =>
        memory === 'runPeakRss' && Number.isFinite(r.runPeakRss) ? r.runPeakRss : r.peakRss;
      const perRoundValues = memory
        ? ratios(rounds, reference, name, rss)
        : ratios(rounds, name, reference, (r) => r.eventsPerSecond, true);
      const value = median(perRoundValues);
      const cpuValue = memory
        ? NaN
        : median(ratios(rounds, reference, name, (r) => r.cpuMicrosPerEvent, true));
      // The spread of the single slice pairs (their quartiles), where the rounds were sliced.
      const pairs = memory ? [] : allPairs(rounds, name, reference, (r) => r.eventsPerSecond);
      const bestCpuValue = memory ? NaN : bestRoundsRatio(rounds, name, reference);
      return {
        target,
        value,
        spread: spread(perRoundValues),
        cpuValue,
        bestCpuValue,
        bound,
        // A reference (no bound) is measured like a target and never judged.
        reference: bound === undefined,
        met: value >= bound,
        roundsMet: perRoundValues.filter((v) => v >= bound).length,
        rounds: rounds.length,
        memory: Boolean(memory),
        pairs: pairs.length,
        pairQuartiles: pairs.length ? [0.25, 0.5, 0.75].map((q) => quantile(pairs, q)) : undefined,
      };
    });
}

/** One line per target. */
export function targetLines(measured) {
  return measured.map(
    ({
      target,
      value,
      spread: range,
      cpuValue,
      bestCpuValue,
      met,
      roundsMet,
      rounds,
      memory,
      reference,
      pairs,
      pairQuartiles,
    }) => {
      const sliced = pairQuartiles
        ? `; ${pairs} slice pairs, quartiles ${pairQuartiles.map((q) => q.toFixed(2)).join('/')}`
        : '';
      const shown = memory
        ? `${value.toFixed(2)} (theirs / ours; rounds ${range})`
        : `${value.toFixed(2)}x (rounds ${range}${sliced}; by CPU time per event: ${cpuValue.toFixed(2)}x, best rounds ${times(bestCpuValue)})`;
      if (reference) return `  ref      ${target}: ${shown}`;
      return `  ${met ? 'met    ' : 'NOT MET'}  ${target}: ${shown}; met in ${roundsMet}/${rounds} rounds`;
    },
  );
}
