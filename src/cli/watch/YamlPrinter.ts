import { dump } from 'js-yaml';
import type { WatchObjectEvent } from '../../types.js';
import { document, type EventPrinter } from './printers.js';

// In a file of its own: the YAML library is loaded only for -o yaml.

/**
 * `-o yaml`: one YAML document per event, `---` between documents as kubectl writes them; the
 * object, or `type` and `object` with `--output-watch-events`. Control characters in the
 * server's strings are written escaped, in double quotes.
 */
export class YamlPrinter implements EventPrinter {
  private printed = 0;
  constructor(
    private readonly write: (text: string) => void,
    private readonly watchEvents = false,
  ) {}
  event(event: WatchObjectEvent): void {
    const text = dump(document(event, this.watchEvents), { noRefs: true, lineWidth: -1 });
    this.write(this.printed++ > 0 ? `---\n${text}` : text);
  }
  synced(): void {}
}
