// Reading a registry's text exposition in specs: the value of one series, and every series.
import type { Registry } from 'prom-client';

/** Every sample line of the exposition: `name{labels}` -> value. */
export async function scrape(registry: Registry): Promise<Map<string, number>> {
  const text = await registry.metrics();
  const samples = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const at = line.lastIndexOf(' ');
    samples.set(line.slice(0, at), Number(line.slice(at + 1)));
  }
  return samples;
}

/** The series name of `name` with `labels`, as prom-client writes it (labels in given order). */
export function series(name: string, labels: Record<string, string> = {}): string {
  const pairs = Object.entries(labels).map(([k, v]) => `${k}="${v}"`);
  return pairs.length === 0 ? name : `${name}{${pairs.join(',')}}`;
}
