// The browser entry's platform (see platform.ts): the same exports and types, nothing of Node.
// The bundle of the browser entry (scripts/browserBundle.mjs) puts this module in place of
// platform.ts; spec/browser/platform.spec.ts checks that both have the same shape.
import type { KubeConfig } from '@kubernetes/client-node';
import type { ResolveContext, ResolvedConnection } from '../types.js';

export { exchange } from './fetchExchange.js';
/** A whole answer's bytes as text: UTF-8 (TextDecoder; Node has a faster path for ASCII). */
export { utf8Text as bodyText } from '../sources/bytes.js';

/**
 * The browser decodes content encodings itself (and fetchExchange leaves `content-encoding`
 * out of the head): bodies come back as they are.
 *
 * @example
 * await decompress(bytes, undefined, limit); // bytes
 */
export async function decompress(
  bytes: Uint8Array,
  _encoding: string | undefined,
  _limit: number,
): Promise<Uint8Array> {
  return bytes;
}

/**
 * A page has no KubeConfig (no files, exec plugins or client certificates): refused, saying what
 * to pass instead.
 *
 * @example
 * fromWatch({ resolve: async () => ({ server: location.origin + '/k8s' }) }, pods);
 */
export async function resolveKubeConfig(
  _kubeConfig: KubeConfig,
  _context?: ResolveContext,
): Promise<ResolvedConnection> {
  throw new Error(
    'a KubeConfig needs Node: in a browser, pass a ClusterConnection resolving { server, headers }',
  );
}
