import type { KubernetesObject, WatchObjectEvent } from '../../types.js';
import { defaultKey } from '../../objects/defaultKey.js';
import type { TableLayout } from './columns.js';
import {
  escapeJsonControlCharacters,
  replaceControlCharacters,
} from '../../security/sanitizeText.js';

/** Turns watch events into output lines. */
export interface EventPrinter {
  /** An ADDED, MODIFIED or DELETED event, initial listing included. */
  event(event: WatchObjectEvent): void;
  /** The initial listing is complete (the store matches the server). */
  synced(): void;
}

/** Three spaces between columns, as kubectl. */
const GAP = '   ';

/** Options of a {@link TablePrinter}. */
export interface TablePrinterConfig {
  /** `--output-watch-events`: an EVENT column first (ADDED, MODIFIED, DELETED), as kubectl. */
  watchEvents?: boolean;
  /** The clock ages are computed against. */
  now?: () => number;
  /** Told when the initial listing is empty, e.g. to say "No resources found". */
  onEmpty?: () => void;
}

/**
 * kubectl-like table output. The rows of the initial listing are held until it is complete, then
 * printed sorted, under a header, with columns as wide as their widest cell; later events print
 * one row each at once, padded to those widths (never truncated). The layout may be given as a
 * function: it is asked for once, when the first row is printed, so that columns the server
 * sends with its first answer can decide it.
 *
 * @example
 * const printer = new TablePrinter(tableLayout('pods', ''), (line) => process.stdout.write(line + '\n'));
 */
export class TablePrinter implements EventPrinter {
  private pending: Array<WatchObjectEvent> | undefined = [];
  private widths: number[] = [];
  private chosenLayout: TableLayout | undefined;
  private readonly watchEvents: boolean;
  private readonly now: () => number;
  private readonly onEmpty: () => void;

  constructor(
    private readonly layoutSource: TableLayout | (() => TableLayout),
    private readonly writeLine: (line: string) => void,
    { watchEvents = false, now = Date.now, onEmpty = () => {} }: TablePrinterConfig = {},
  ) {
    this.watchEvents = watchEvents;
    this.now = now;
    this.onEmpty = onEmpty;
  }

  private get layout(): TableLayout {
    this.chosenLayout ??=
      typeof this.layoutSource === 'function' ? this.layoutSource() : this.layoutSource;
    return this.chosenLayout;
  }

  event(event: WatchObjectEvent): void {
    if (this.pending) this.pending.push(event);
    else this.writeLine(this.format(this.cells(event)));
  }

  synced(): void {
    const initial = this.pending;
    if (!initial) return;
    this.pending = undefined;
    // The initial listing may have relisted differences; only the last state of each object counts.
    const latest = new Map<string, WatchObjectEvent>();
    for (const e of initial) latest.set(defaultKey(e.object), e);
    const rows = [...latest]
      .filter(([, e]) => e.type !== 'DELETED')
      .sort(([a], [b]) => a.localeCompare(b))
      // Every object of the initial listing is news: kubectl calls them all ADDED.
      .map(([, e]) => this.cells({ ...e, type: 'ADDED' }));
    const headers = this.watchEvents ? ['EVENT', ...this.layout.headers] : this.layout.headers;
    // A loop, not Math.max(...cells): a spread of a big listing overflows the call stack.
    this.widths = headers.map((h) => h.length);
    // Later rows may say MODIFIED or DELETED: the EVENT column is as wide as the longest type.
    if (this.watchEvents) this.widths[0] = 'MODIFIED'.length;
    for (const row of rows) {
      row.forEach((cell, i) => (this.widths[i] = Math.max(this.widths[i], cell.length)));
    }
    this.writeLine(this.format(headers));
    for (const row of rows) this.writeLine(this.format(row));
    if (rows.length === 0) this.onEmpty();
  }

  /** The one place where a row's cells, the server's text, are made: before any is printed. */
  private cells(event: WatchObjectEvent): string[] {
    const cells = this.layout.cells(event.object, this.now()).map(replaceControlCharacters);
    if (this.watchEvents) return [event.type, ...cells];
    if (event.type === 'DELETED') cells[this.layout.deletedColumn] = this.layout.deletedText;
    return cells;
  }

  private format(cells: string[]): string {
    const last = cells.length - 1;
    return cells.map((cell, i) => (i === last ? cell : cell.padEnd(this.widths[i] ?? 0))).join(GAP);
  }
}

/** What a JSON or YAML printer writes for one event. */
export function document(event: WatchObjectEvent, watchEvents: boolean): unknown {
  return watchEvents ? { type: event.type, object: event.object } : event.object;
}

/**
 * `-o json`: one JSON line per event, the object (`{"type":"ADDED","object":{...}}` with
 * `--output-watch-events`).
 */
export class JsonLinesPrinter implements EventPrinter {
  constructor(
    private readonly writeLine: (line: string) => void,
    private readonly watchEvents = false,
  ) {}
  event(event: WatchObjectEvent): void {
    this.writeLine(escapeJsonControlCharacters(JSON.stringify(document(event, this.watchEvents))));
  }
  synced(): void {}
}

/**
 * `-o name`: `pod/web-1` per event (`deployment.apps/web` for a group's resource), after the
 * event type with `--output-watch-events`.
 */
export class NamePrinter implements EventPrinter {
  constructor(
    private readonly nameKind: string,
    private readonly writeLine: (line: string) => void,
    private readonly watchEvents = false,
  ) {}
  event(event: WatchObjectEvent): void {
    const name = `${this.nameKind}/${replaceControlCharacters(nameOf(event.object))}`;
    this.writeLine(this.watchEvents ? `${event.type} ${name}` : name);
  }
  synced(): void {}
}

function nameOf(object: KubernetesObject): string {
  return object.metadata?.name ?? '';
}
