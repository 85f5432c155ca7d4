/**
 * A time as kube-apiserver writes a `metav1.MicroTime` (a Lease's renewTime, an Event's
 * eventTime): RFC 3339 in UTC with six fractional digits. JavaScript clocks hold milliseconds,
 * so the last three are zeros.
 *
 * @example
 * microTime(Date.UTC(2026, 11, 2, 12, 0, 0, 250)); // '2026-12-02T12:00:00.250000Z'
 */
export function microTime(ms: number): string {
  return new Date(Math.floor(ms)).toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
}
