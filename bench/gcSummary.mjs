// What V8's collector saw over a window of a benchmark, from a GCProfiler's statistics: the
// bytes scavenges promoted to old space (DESIGN, Known traps: the per-event paths' check), peak
// heap, collections and pauses. Used by the watch consumers and the pipeline benchmark.

/** The old generation's bytes (old space and large objects) in one GC's heap space statistics. */
function oldBytes(spaces) {
  let bytes = 0;
  for (const { spaceName, spaceUsedSize } of spaces) {
    if (spaceName === 'old_space' || spaceName === 'large_object_space') bytes += spaceUsedSize;
  }
  return bytes;
}

/**
 * Promoted bytes (each scavenge's growth of the old generation; a scavenge that also freed some
 * of it counts 0, not less), peak heap, scavenges, full collections and pause time (ms).
 */
export function gcSummary(statistics) {
  const summary = { promoted: 0, peakHeap: 0, scavenges: 0, fullGcs: 0, pauseMs: 0 };
  for (const { gcType, cost, beforeGC, afterGC } of statistics) {
    summary.pauseMs += cost / 1000;
    summary.peakHeap = Math.max(summary.peakHeap, beforeGC.heapStatistics.usedHeapSize);
    if (gcType === 'Scavenge') {
      summary.scavenges++;
      summary.promoted += Math.max(
        0,
        oldBytes(afterGC.heapSpaceStatistics) - oldBytes(beforeGC.heapSpaceStatistics),
      );
    } else if (gcType === 'MarkSweepCompact') summary.fullGcs++;
  }
  return summary;
}
