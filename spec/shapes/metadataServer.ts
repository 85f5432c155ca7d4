import type http from 'node:http';
import { INITIAL_EVENTS_END_ANNOTATION } from '../../src/objects/endBookmark.js';
import type { V1PartialObjectMetadata } from '../../src/types.js';
import { RawServer } from '../support/rawServer.js';

/** A full pod as the API server stores it: spec, status and managedFields. */
export function fullPod(i: number, resourceVersion: string): Record<string, unknown> {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: `pod-${i}`,
      namespace: 'default',
      uid: `uid-${i}`,
      resourceVersion,
      labels: { app: 'web' },
      managedFields: [{ manager: 'kubelet', operation: 'Update', fieldsV1: { 'f:status': {} } }],
    },
    spec: { containers: [{ name: 'main', image: 'nginx:1.27' }] },
    status: { phase: 'Running' },
  };
}

const partial = (object: Record<string, unknown>): V1PartialObjectMetadata => ({
  apiVersion: 'meta.k8s.io/v1',
  kind: 'PartialObjectMetadata',
  metadata: object.metadata as V1PartialObjectMetadata['metadata'],
});

/** Exactly what the API server's PartialObjectMetadata of {@link fullPod} `i` is. */
export const partialPod = (i: number, resourceVersion: string): V1PartialObjectMetadata =>
  partial(fullPod(i, resourceVersion));

/**
 * A loopback server of `count` pods at resourceVersion 100 that answers lists (paged by
 * `limit`/`continue`) and watches (a watch-list's initial events and end bookmark, and one
 * MODIFIED of pod-0 at 101 after that or after resourceVersion 100, then held open). With `honour`, it reads
 * the Accept header as kube-apiserver does: `as=PartialObjectMetadataList` (lists) and
 * `as=PartialObjectMetadata` (watches) get metadata only; otherwise full objects always.
 */
export async function startMetadataServer(count: number, honour: boolean): Promise<RawServer> {
  const pods = Array.from({ length: count }, (_, i) => fullPod(i, String(i + 1)));
  const wantsPartial = (req: http.IncomingMessage, as: string) =>
    honour && (req.headers.accept ?? '').split(',')[0].includes(`as=${as};`);
  return RawServer.start((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const query = url.searchParams;
    res.writeHead(200, { 'content-type': 'application/json' });
    if (query.get('watch') !== 'true') {
      const limit = Number(query.get('limit') ?? count) || count;
      const from = Number(query.get('continue') ?? 0);
      const page = pods.slice(from, from + limit);
      const more = from + limit < count;
      const asPartial = wantsPartial(req, 'PartialObjectMetadataList');
      res.end(
        JSON.stringify({
          apiVersion: asPartial ? 'meta.k8s.io/v1' : 'v1',
          kind: asPartial ? 'PartialObjectMetadataList' : 'PodList',
          metadata: { resourceVersion: '100', ...(more ? { continue: String(from + limit) } : {}) },
          items: asPartial ? page.map(partial) : page,
        }),
      );
      return;
    }
    const asPartial = wantsPartial(req, 'PartialObjectMetadata');
    const send = (type: string, object: Record<string, unknown>) =>
      res.write(JSON.stringify({ type, object: asPartial ? partial(object) : object }) + '\n');
    if (query.get('sendInitialEvents') === 'true') {
      for (const pod of pods) send('ADDED', pod);
      res.write(
        JSON.stringify({
          type: 'BOOKMARK',
          object: {
            kind: asPartial ? 'PartialObjectMetadata' : 'Pod',
            apiVersion: asPartial ? 'meta.k8s.io/v1' : 'v1',
            metadata: {
              resourceVersion: '100',
              annotations: { [INITIAL_EVENTS_END_ANNOTATION]: 'true' },
            },
          },
        }) + '\n',
      );
    }
    if (query.get('resourceVersion') === '100' || query.get('sendInitialEvents') === 'true')
      send('MODIFIED', fullPod(0, '101'));
    // Held open, as a real watch is, until the client goes.
  });
}
