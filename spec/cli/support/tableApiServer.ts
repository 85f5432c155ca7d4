import type http from 'node:http';
import { RawServer } from '../../support/rawServer.js';
import { coreV1, coreVersions, groupList, groupVersions } from './discoveryDocuments.js';

/** A column of a served Table and how a cell of it is read from an object. */
export interface ServedColumn {
  name: string;
  priority?: number;
  format?: string;
  cell(object: any): unknown;
}

interface Collection {
  columns: ServedColumn[];
  objects: Map<string, any>;
  /** Every change, so that a watch from a version misses none that came before it opened. */
  history: Array<{ type: string; object: any }>;
  watches: Set<Watch>;
}

interface Watch {
  res: http.ServerResponse;
  namespace?: string;
  table: boolean;
  sentColumns: boolean;
}

/**
 * A small API server for the command's end-to-end specs on what FakeKubeApiServer does not
 * serve yet: discovery (the documents of `discoveryDocuments.ts`), and lists and watches answered
 * as `meta.k8s.io/v1` Tables when asked (`tables`), for the collections registered with their
 * columns. `forbidApis` answers 403 on `/apis`. Every request is in `requests`.
 *
 * @example
 * const api = await TableApiServer.start();
 * api.serve('stable.example.com/v1/crontabs', columns);
 * api.put('stable.example.com/v1/crontabs', cronTab('nightly'));
 */
export class TableApiServer {
  tables = true;
  forbidApis = false;
  private readonly collections = new Map<string, Collection>();
  private version = 100;

  private constructor(readonly raw: RawServer) {}

  static async start(): Promise<TableApiServer> {
    const raw = await RawServer.start();
    const api = new TableApiServer(raw);
    raw.handler = (req, res) => api.handle(req, res);
    return api;
  }

  get requests() {
    return this.raw.requests;
  }

  kubeConfig() {
    return this.raw.kubeConfig();
  }

  /** Serves `groupVersion/plural` (`v1/pods`, `apps/v1/deployments`) with these columns. */
  serve(key: string, columns: ServedColumn[]): void {
    this.collections.set(key, { columns, objects: new Map(), history: [], watches: new Set() });
  }

  /** Adds or changes an object (ADDED or MODIFIED to every watch), stamping its version. */
  put(key: string, object: any, type: 'ADDED' | 'MODIFIED' = 'ADDED'): void {
    const collection = this.collections.get(key)!;
    const stamped = {
      ...object,
      metadata: { ...object.metadata, resourceVersion: String(++this.version) },
    };
    collection.objects.set(`${stamped.metadata.namespace ?? ''}/${stamped.metadata.name}`, stamped);
    collection.history.push({ type, object: stamped });
    for (const watch of collection.watches) this.send(collection, watch, type, stamped);
  }

  stop(): Promise<void> {
    return this.raw.stop();
  }

  private send(collection: Collection, watch: Watch, type: string, object: any): void {
    if (watch.namespace !== undefined && object.metadata.namespace !== watch.namespace) return;
    const sent = watch.table ? this.table(collection, [object], !watch.sentColumns) : object;
    watch.sentColumns = true;
    watch.res.write(JSON.stringify({ type, object: sent }) + '\n');
  }

  private table(collection: Collection, objects: any[], withColumns: boolean): object {
    return {
      kind: 'Table',
      apiVersion: 'meta.k8s.io/v1',
      metadata: { resourceVersion: String(this.version) },
      columnDefinitions: withColumns
        ? collection.columns.map((c) => ({
            name: c.name,
            type: 'string',
            format: c.format ?? '',
            description: '',
            priority: c.priority ?? 0,
          }))
        : null,
      rows: objects.map((o) => ({
        cells: collection.columns.map((c) => c.cell(o)),
        object: {
          kind: 'PartialObjectMetadata',
          apiVersion: 'meta.k8s.io/v1',
          metadata: o.metadata,
        },
      })),
    };
  }

  private handle(req: http.IncomingMessage, res: http.ServerResponse): void {
    const url = new URL(req.url ?? '/', 'http://x');
    const json = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    const status = (code: number, reason: string, message: string) =>
      json(code, { kind: 'Status', apiVersion: 'v1', status: 'Failure', reason, code, message });
    const path = url.pathname;
    if (path === '/api') return json(200, coreVersions);
    if (path === '/api/v1') return json(200, coreV1);
    if (path === '/apis') {
      if (this.forbidApis)
        return status(403, 'Forbidden', 'forbidden: User "dev" cannot get path "/apis"');
      return json(200, groupList);
    }
    const document = groupVersions[path.replace(/^\/apis\//, '')];
    if (document) return json(200, document);
    const match = /^\/(?:api|apis\/([^/]+))\/([^/]+)\/(?:namespaces\/([^/]+)\/)?([^/]+)$/.exec(
      path,
    );
    const key = match && `${match[1] ? `${match[1]}/` : ''}${match[2]}/${match[4]}`;
    const collection = key ? this.collections.get(key) : undefined;
    if (!collection)
      return status(404, 'NotFound', 'the server could not find the requested resource');
    const namespace = match![3];
    const table = this.tables && (req.headers.accept ?? '').includes('as=Table');
    if (url.searchParams.get('watch') === 'true') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.flushHeaders();
      const watch: Watch = { res, namespace, table, sentColumns: false };
      const from = Number(url.searchParams.get('resourceVersion') ?? this.version);
      for (const change of collection.history) {
        if (Number(change.object.metadata.resourceVersion) > from)
          this.send(collection, watch, change.type, change.object);
      }
      collection.watches.add(watch);
      res.on('close', () => collection.watches.delete(watch));
      return;
    }
    const objects = [...collection.objects.values()].filter(
      (o) => namespace === undefined || o.metadata.namespace === namespace,
    );
    if (table) return json(200, this.table(collection, objects, true));
    json(200, {
      kind: 'List',
      apiVersion: 'v1',
      metadata: { resourceVersion: String(this.version) },
      items: objects,
    });
  }
}
