import type { KubernetesObject } from '../../types.js';

/**
 * The Accept header of a request for server-side columns: a `meta.k8s.io/v1` Table, else plain
 * JSON (what a server, or an aggregated API, without Table support answers).
 */
export const TABLE_ACCEPT = 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json';

/** One column of a server-side Table (`columnDefinitions[i]`). */
export interface TableColumn {
  /** As the server names it (`Name`, `Ready`, `Age`); headers print it in upper case. */
  name: string;
  /** `string`, `integer`, `number`, `boolean`, `date`. */
  type: string;
  /** `name` for the column holding the object's name. */
  format: string;
  /** 0: shown by default; more: only with `-o wide`. */
  priority: number;
}

/** Where an object taken out of a Table row keeps its row's cells (not serialised). */
export const ROW_CELLS: unique symbol = Symbol('kube-rx.tableRowCells');

/** An object of a Table row (usually PartialObjectMetadata) with the row's cells. */
export type RowObject = KubernetesObject & { [ROW_CELLS]?: readonly unknown[] };

/** The server's columns, once an answer has brought them; shared by a source and its printer. */
export interface ServerColumns {
  columns?: TableColumn[];
}

/**
 * Whether `value` is a `meta.k8s.io` Table (rather than an object or a list).
 *
 * @example
 * isTable({ kind: 'Table', apiVersion: 'meta.k8s.io/v1', rows: [] }); // true
 */
export function isTable(
  value: unknown,
): value is { rows: unknown[]; columnDefinitions?: unknown; metadata?: any } {
  const v = value as { kind?: unknown; apiVersion?: unknown; rows?: unknown } | null;
  return (
    typeof v === 'object' &&
    v !== null &&
    v.kind === 'Table' &&
    typeof v.apiVersion === 'string' &&
    v.apiVersion.startsWith('meta.k8s.io/') &&
    (v.rows === undefined || v.rows === null || Array.isArray(v.rows))
  );
}

/**
 * The columns of a Table, or undefined when it has none (after the first event of a watch, the
 * API server leaves them out).
 *
 * @example
 * tableColumns({ columnDefinitions: [{ name: 'Name', type: 'string', format: 'name', priority: 0 }] });
 */
export function tableColumns(table: { columnDefinitions?: unknown }): TableColumn[] | undefined {
  const definitions = table.columnDefinitions;
  if (!Array.isArray(definitions) || definitions.length === 0) return undefined;
  return definitions.map((d: any) => ({
    name: typeof d?.name === 'string' ? d.name : '',
    type: typeof d?.type === 'string' ? d.type : 'string',
    format: typeof d?.format === 'string' ? d.format : '',
    priority: typeof d?.priority === 'number' ? d.priority : 0,
  }));
}

/**
 * The objects of a Table's rows, each carrying its row's cells under {@link ROW_CELLS}. A row
 * without an object (the server was asked for none) gets an empty one: its cells still print.
 *
 * @example
 * rowObjects(table).map((o) => o.metadata?.name);
 */
export function rowObjects(table: { rows?: unknown }): RowObject[] {
  const rows = Array.isArray(table.rows) ? table.rows : [];
  return rows.map((row: any) => {
    const object = typeof row?.object === 'object' && row.object !== null ? row.object : {};
    const cells = Array.isArray(row?.cells) ? row.cells : [];
    return { ...object, [ROW_CELLS]: cells };
  });
}

/**
 * A cell as kubectl prints it: text as it is, numbers and booleans written out, a missing value
 * as `<none>`, anything else as JSON.
 *
 * @example
 * cellText(3); // '3'
 */
export function cellText(cell: unknown): string {
  if (cell === null || cell === undefined) return '<none>';
  if (typeof cell === 'string') return cell;
  if (typeof cell === 'number' || typeof cell === 'boolean') return String(cell);
  return JSON.stringify(cell);
}
