import { rowKey, type DashboardRow } from './dashboardRows.js';

/** What changed between two sets of rows: rows to set (new or changed) and keys to remove. */
export interface RowDiff {
  set: DashboardRow[];
  remove: string[];
}

/**
 * Keeps the rows last sent to the browsers and tells what changed, so each update carries only
 * the rows that did (a few hundred bytes per change instead of the whole cluster). Rows are
 * compared by identity, then by their JSON.
 *
 * @example
 * const differ = new RowDiffer();
 * differ.update(rows);      // { set: [...all], remove: [] }
 * differ.update(rows2);     // { set: [changed], remove: ['pod:shop/web-1'] }
 * differ.rows();            // what a new browser gets first
 */
export class RowDiffer {
  private current = new Map<string, { row: DashboardRow; json: string }>();

  /** Takes the new rows; returns the difference from the previous ones. */
  update(rows: readonly DashboardRow[]): RowDiff {
    const next = new Map<string, { row: DashboardRow; json: string }>();
    const set: DashboardRow[] = [];
    for (const row of rows) {
      const key = rowKey(row);
      const previous = this.current.get(key);
      // Rows are never changed once made: the same object needs no serialising to compare.
      if (previous?.row === row) {
        next.set(key, previous);
        continue;
      }
      const json = JSON.stringify(row);
      next.set(key, { row, json });
      if (previous?.json !== json) set.push(row);
    }
    const remove = [...this.current.keys()].filter((key) => !next.has(key));
    this.current = next;
    return { set, remove };
  }

  /** Every row currently known. */
  rows(): DashboardRow[] {
    return [...this.current.values()].map((entry) => entry.row);
  }
}
