/**
 * Values by string key, for sharing what many decoded objects repeat, with room for at most
 * `maxChars` characters of keys in all: a key that would pass it empties the table first. A
 * server sending ever new values then costs a bounded table, and starting again is cheaper than
 * evicting one entry at a time (what was shared before stays shared).
 *
 * @example
 * const table = new ResettingTable<string>(1024);
 * table.get('nginx') ?? table.set('nginx', 'nginx');
 */
export class ResettingTable<V> {
  private readonly entries = new Map<string, V>();
  private chars = 0;

  constructor(private readonly maxChars: number) {}

  get(key: string): V | undefined {
    return this.entries.get(key);
  }

  /** Keeps `value` under `key` (a key not kept yet) and gives it back. */
  set(key: string, value: V): V {
    if (this.chars + key.length > this.maxChars) {
      this.entries.clear();
      this.chars = 0;
    }
    this.entries.set(key, value);
    this.chars += key.length;
    return value;
  }

  get size(): number {
    return this.entries.size;
  }
}
