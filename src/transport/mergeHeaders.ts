// Node-free: the undici and node:http2 transport (exchange.ts), the fetch one (fetchExchange.ts)
// and the request core (src/client/request/openStream.ts) merge headers with this one function.
import { basicAuthorization } from '../security/basicAuthorization.js';

/**
 * Request headers as sent: each layer's names in lower case, later layers winning (the
 * connection's own headers come last, so its credentials win), `undefined`/`null` values left
 * out, and the user and password of `url`, when it has them, as Basic credentials unless a layer
 * gave an Authorization header.
 *
 * @example
 * mergeHeaders(new URL('https://u:p@host'), { Accept: 'application/json' }, connection.headers);
 * // { accept: 'application/json', authorization: 'Basic dTpw' }
 */
export function mergeHeaders(
  url: URL | undefined,
  ...layers: (Readonly<Record<string, string>> | undefined)[]
): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const layer of layers) {
    if (!layer) continue;
    for (const [key, value] of Object.entries(layer)) {
      if (value !== undefined && value !== null) headers[key.toLowerCase()] = String(value);
    }
  }
  if (url && (url.username || url.password) && headers.authorization === undefined) {
    const user = `${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`;
    headers.authorization = basicAuthorization(user);
  }
  return headers;
}
