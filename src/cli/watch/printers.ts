import type { WatchObjectEvent } from '../../types.js';
import { defaultKey } from '../../operators/internal/events.js';
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

/**
 * kubectl-like table output. The rows of the initial listing are held until it is complete, then
 * printed sorted, under a header, with columns as wide as their widest cell; later events print
 * one row each at once, padded to those widths (never truncated).
 *
 * @example
 * const printer = new TablePrinter(tableLayout('pods', '', false), (line) => process.stdout.write(line + '\n'));
 */
export class TablePrinter implements EventPrinter {
  private pending: Array<WatchObjectEvent> | undefined = [];
  private widths: number[] = [];

  constructor(
    private readonly layout: TableLayout,
    private readonly writeLine: (line: string) => void,
    private readonly now: () => number = Date.now,
    /** Told when the initial listing is empty, e.g. to say "No resources found". */
    private readonly onEmpty: () => void = () => {},
  ) {}

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
      .map(([, e]) => this.cells(e));
    const { headers } = this.layout;
    // A loop, not Math.max(...cells): a spread of a big listing overflows the call stack.
    this.widths = headers.map((h) => h.length);
    for (const row of rows) {
      row.forEach((cell, i) => (this.widths[i] = Math.max(this.widths[i], cell.length)));
    }
    this.writeLine(this.format(headers));
    for (const row of rows) this.writeLine(this.format(row));
    if (rows.length === 0) this.onEmpty();
  }

  private cells(event: WatchObjectEvent): string[] {
    // Names, statuses and reasons are the server's text: no control character reaches the terminal.
    const cells = this.layout.cells(event.object, this.now()).map(replaceControlCharacters);
    if (event.type === 'DELETED') cells[this.layout.deletedColumn] = this.layout.deletedText;
    return cells;
  }

  private format(cells: string[]): string {
    const last = cells.length - 1;
    return cells.map((cell, i) => (i === last ? cell : cell.padEnd(this.widths[i] ?? 0))).join(GAP);
  }
}

/** `-o json`: one JSON line per event, `{"type":"ADDED","object":{...}}`. */
export class JsonLinesPrinter implements EventPrinter {
  constructor(private readonly writeLine: (line: string) => void) {}
  event(event: WatchObjectEvent): void {
    // The same JSON, with the C1 controls JSON.stringify leaves raw escaped as \uXXXX too.
    this.writeLine(
      escapeJsonControlCharacters(JSON.stringify({ type: event.type, object: event.object })),
    );
  }
  synced(): void {}
}

/** `-o name`: `pod/web-1` per event (`deployment.apps/web` for a group's resource). */
export class NamePrinter implements EventPrinter {
  constructor(
    private readonly nameKind: string,
    private readonly writeLine: (line: string) => void,
  ) {}
  event(event: WatchObjectEvent): void {
    this.writeLine(
      `${this.nameKind}/${replaceControlCharacters(event.object.metadata?.name ?? '')}`,
    );
  }
  synced(): void {}
}
