import { defaultKey } from '../../src/objects/defaultKey.js';
import { resourceVersionOf } from '../../src/objects/resourceVersionOf.js';
import type { WatchEvent } from '../../src/types.js';

/**
 * Watches what the pipeline delivers: an ADDED or MODIFIED of a (source, key, resourceVersion)
 * already delivered is a duplicate; an object event older than the last one of its key is a
 * regression (a relist's DELETED carries the last known version, so equal is fine for DELETED).
 * With `remember: false` only the last version per key is kept (bounded memory, for long soaks):
 * a repeat right after itself still counts as a duplicate, a later one as a regression.
 */
export class DeliveryChecker {
  events = 0;
  duplicates = 0;
  regressions = 0;
  readonly samples: string[] = [];
  private readonly delivered = new Set<string>();
  private readonly last = new Map<string, number>();

  constructor(private readonly remember = true) {}

  record(event: WatchEvent & { source: string }): void {
    if (event.type === 'ERROR' || event.type === 'BOOKMARK') return;
    this.events++;
    const key = `${event.source}:${defaultKey(event.object)}`;
    const rv = Number(resourceVersionOf(event));
    if (event.type !== 'DELETED' && this.remember) {
      const id = `${key}@${rv}`;
      if (this.delivered.has(id)) {
        this.duplicates++;
        this.sample(`duplicate ${event.type} ${id}`);
      } else this.delivered.add(id);
    }
    const previous = this.last.get(key);
    if (!this.remember && previous === rv && event.type !== 'DELETED') {
      this.duplicates++;
      this.sample(`duplicate ${event.type} ${key}@${rv}`);
    } else if (
      previous !== undefined &&
      (rv < previous || (rv === previous && event.type !== 'DELETED'))
    ) {
      this.regressions++;
      this.sample(`regression ${event.type} ${key}@${rv} after @${previous}`);
    }
    this.last.set(key, rv);
  }

  private sample(text: string): void {
    if (this.samples.length < 10) this.samples.push(text);
  }
}
