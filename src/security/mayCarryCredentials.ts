/**
 * Whether a request to `server` (through `proxy`, when set) may carry credentials from a
 * KubeConfig: always over TLS (`https://`), and over plain HTTP only when nothing of it leaves
 * the machine: the server's host is loopback as written in the URL (`127.0.0.0/8`, `::1`,
 * `localhost`: `kubectl proxy`, a test server, a local API server), and the proxy, if any, is
 * reached over TLS or on a loopback host too (a plain-HTTP proxy elsewhere would see the token
 * in clear, whether it forwards the request or tunnels it). kubectl attaches a kubeconfig's
 * credentials to TLS connections only; a name that merely resolves to 127.0.0.1 is not loopback
 * here, since what it resolves to is not ours to trust.
 *
 * ```
 * server                      proxy                       may carry credentials
 * https://kube.example:6443   -                           yes
 * http://127.0.0.1:8001       -                           yes
 * http://kube.example:8080    -                           no
 * http://localhost:8001       http://proxy.example:3128   no
 * http://localhost:8001       https://proxy.example:3128  yes
 * ```
 *
 * @example
 * if (!mayCarryCredentials(cluster.server, proxy)) headers = {};
 */
export function mayCarryCredentials(server: string, proxy?: string): boolean {
  const target = parse(server);
  if (target?.protocol === 'https:') return true;
  if (target?.protocol !== 'http:' || !isLoopback(target.hostname)) return false;
  if (proxy === undefined) return true;
  const via = parse(proxy);
  return via !== undefined && (via.protocol === 'https:' || isLoopback(via.hostname));
}

function parse(url: string): URL | undefined {
  try {
    return new URL(url);
  } catch {
    return undefined;
  }
}

/**
 * `localhost`, an IPv4 address in 127.0.0.0/8 or `[::1]`, as the URL parser writes hostnames
 * (lower case, IPv4 in dotted decimal, IPv6 in brackets and compressed).
 */
function isLoopback(hostname: string): boolean {
  return (
    hostname === 'localhost' ||
    hostname === '[::1]' ||
    /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(hostname)
  );
}
