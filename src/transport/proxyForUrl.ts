/**
 * Which proxy a request goes through, as kubectl (client-go) decides it: the kubeconfig's
 * `proxy-url` when the cluster has one, else the environment read as Go's
 * `httpproxy.FromEnvironment().ProxyFunc()` reads it (what `http.ProxyFromEnvironment` uses).
 */

/** Where {@link proxyForUrl} reads the proxy settings, e.g. `process.env`. */
export type ProxyEnvironment = Readonly<Record<string, string | undefined>>;

/** Options of {@link proxyForUrl}. */
export interface ProxyForUrlConfig {
  /** The cluster's `proxy-url` in the kubeconfig: when set, every request goes through it. */
  proxyUrl?: string;
  /** `HTTPS_PROXY`, `HTTP_PROXY`, `NO_PROXY` (or their lower-case forms), e.g. `process.env`. */
  env: ProxyEnvironment;
}

/** An IP address: 4 bytes for IPv4 (IPv4-mapped IPv6 included, as Go's To4), 16 for IPv6. */
type Ip = number[];

interface NoProxyRule {
  /** Whether this rule exempts `host` (lower case, no brackets) at `port`. */
  matches(host: string, port: string, ip: Ip | undefined): boolean;
}

const DEFAULT_PORTS: Record<string, string> = { 'http:': '80', 'https:': '443' };
const PROXY_SCHEMES = ['http:', 'https:', 'socks5:'];

/**
 * The proxy URL for a request to `target`, or `undefined` to connect directly.
 *
 * - The kubeconfig's `proxy-url` wins: used for every request, loopback included (as client-go's
 *   `http.ProxyURL`); one that is not an http, https or socks5 URL throws, as kubectl refuses it.
 * - Else `https://` targets use `HTTPS_PROXY` (or `https_proxy`) and `http://` targets
 *   `HTTP_PROXY` (or `http_proxy`), the upper-case name first; no fallback from one to the other.
 *   A value without a scheme (`proxy:3128`) means `http://`; one that cannot be read is ignored.
 * - Never for `localhost` or a loopback IP (127.0.0.0/8, ::1).
 * - Never for a host `NO_PROXY` (or `no_proxy`) names: comma-separated `*` (everything), IPs,
 *   CIDRs (`10.0.0.0/8`, `fd00::/8`), host names that match themselves and their subdomains
 *   (`example.com`), names with a leading `.` or `*.` that match subdomains only
 *   (`.example.com`); IPs and names may carry a port (`10.0.0.1:6443`, `[::2]:443`,
 *   `example.com:443`) to exempt that port only.
 *
 * ```
 * target:  https://10.0.0.1:6443   env: HTTPS_PROXY=proxy:3128  NO_PROXY=.svc,10.0.0.0/8
 * result:  undefined                (10.0.0.1 is in 10.0.0.0/8)
 * target:  https://api.example.com  same env
 * result:  'http://proxy:3128/'
 * ```
 *
 * @example
 * const proxy = proxyForUrl(server, { proxyUrl: cluster.proxyUrl, env: process.env });
 * const dispatcher = proxy ? new ProxyAgent(proxy) : agent;
 */
export function proxyForUrl(
  target: string | URL,
  { proxyUrl, env }: ProxyForUrlConfig,
): string | undefined {
  if (proxyUrl) return kubeconfigProxy(proxyUrl);
  const url = new URL(target);
  const fromEnv =
    url.protocol === 'https:'
      ? firstSet(env, 'HTTPS_PROXY', 'https_proxy')
      : url.protocol === 'http:'
        ? firstSet(env, 'HTTP_PROXY', 'http_proxy')
        : undefined;
  const proxy = fromEnv === undefined ? undefined : envProxy(fromEnv);
  if (proxy === undefined) return undefined;
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  const port = url.port || DEFAULT_PORTS[url.protocol];
  return useProxy(host, port, firstSet(env, 'NO_PROXY', 'no_proxy') ?? '') ? proxy : undefined;
}

function firstSet(env: ProxyEnvironment, ...names: string[]): string | undefined {
  for (const name of names) if (env[name]) return env[name];
  return undefined;
}

function kubeconfigProxy(proxyUrl: string): string {
  const parsed = parseUrl(proxyUrl);
  if (!parsed || !PROXY_SCHEMES.includes(parsed.protocol) || !parsed.host)
    throw new TypeError(`the kubeconfig's proxy-url is not an http, https or socks5 URL`);
  return parsed.href;
}

/** As Go's parseProxy: a URL of a proxy scheme, else the value read as `http://value`. */
function envProxy(value: string): string | undefined {
  const parsed = parseUrl(value);
  if (parsed && PROXY_SCHEMES.includes(parsed.protocol) && parsed.host) return parsed.href;
  const withScheme = parseUrl(`http://${value}`);
  return withScheme?.host ? withScheme.href : undefined;
}

function parseUrl(text: string): URL | undefined {
  try {
    return new URL(text);
  } catch {
    return undefined;
  }
}

function useProxy(host: string, port: string, noProxy: string): boolean {
  if (host === 'localhost') return false;
  const ip = parseIp(host);
  if (ip && isLoopback(ip)) return false;
  const rules = noProxyRules(noProxy);
  return !rules.some((rule) => rule.matches(host.trim().toLowerCase(), port, ip));
}

function isLoopback(ip: Ip): boolean {
  return ip.length === 4 ? ip[0] === 127 : ip.every((b, i) => b === (i === 15 ? 1 : 0));
}

const EVERYTHING: NoProxyRule = { matches: () => true };

/** The rules of a `NO_PROXY` value, read as Go reads it (best effort, bad entries skipped). */
function noProxyRules(noProxy: string): NoProxyRule[] {
  const rules: NoProxyRule[] = [];
  for (const raw of noProxy.split(',')) {
    const entry = raw.trim().toLowerCase();
    if (entry === '') continue;
    if (entry === '*') return [EVERYTHING];
    const cidr = parseCidr(entry);
    if (cidr) {
      rules.push({ matches: (_h, _p, ip) => ip !== undefined && cidrContains(cidr, ip) });
      continue;
    }
    const split = splitHostPort(entry);
    let host = split ? split.host : entry;
    const rulePort = split ? split.port : '';
    if (split && host === '') continue;
    const ruleIp = parseIp(host);
    if (ruleIp) {
      rules.push({
        matches: (_h, port, ip) =>
          ip !== undefined && sameIp(ruleIp, ip) && (rulePort === '' || rulePort === port),
      });
      continue;
    }
    if (host === '') continue;
    if (host.startsWith('*.')) host = host.slice(1);
    const matchesItself = !host.startsWith('.');
    const suffix = matchesItself ? `.${host}` : host;
    const asciiSuffix = toAsciiHost(suffix);
    rules.push({
      matches: (h, port) =>
        (h.endsWith(asciiSuffix) || (matchesItself && h === asciiSuffix.slice(1))) &&
        (rulePort === '' || rulePort === port),
    });
  }
  return rules;
}

/** A name in the form URL hosts have (punycode for non-ASCII labels), as Go's idna.Lookup. */
function toAsciiHost(name: string): string {
  // eslint-disable-next-line no-control-regex
  if (/^[\u0000-\u007f]*$/.test(name)) return name;
  const leadingDot = name.startsWith('.');
  const host = parseUrl(`http://${leadingDot ? name.slice(1) : name}`)?.hostname;
  return host === undefined ? name : `${leadingDot ? '.' : ''}${host}`;
}

/** Go's net.SplitHostPort: `host:port` or `[host]:port` (port may be empty), else undefined. */
function splitHostPort(text: string): { host: string; port: string } | undefined {
  const colon = text.lastIndexOf(':');
  if (colon < 0) return undefined;
  let host: string;
  let hostStart = 0;
  let portFrom = 0;
  if (text.startsWith('[')) {
    const end = text.indexOf(']');
    if (end < 0 || end + 1 !== colon) return undefined;
    host = text.slice(1, end);
    hostStart = 1;
    portFrom = end + 1;
  } else {
    host = text.slice(0, colon);
    if (host.includes(':')) return undefined;
  }
  if (text.slice(hostStart).includes('[') || text.slice(portFrom).includes(']')) return undefined;
  return { host, port: text.slice(colon + 1) };
}

/** Go's net.ParseIP: dotted IPv4 (no leading zeros) or IPv6 (no zone); IPv4-mapped become 4 bytes. */
function parseIp(text: string): Ip | undefined {
  const v4 = parseIpv4(text);
  if (v4) return v4;
  const v6 = parseIpv6(text);
  if (!v6) return undefined;
  const mapped = v6.slice(0, 10).every((b) => b === 0) && v6[10] === 0xff && v6[11] === 0xff;
  return mapped ? v6.slice(12) : v6;
}

function parseIpv4(text: string): Ip | undefined {
  const parts = text.split('.');
  if (parts.length !== 4) return undefined;
  const bytes = parts.map((part) =>
    /^(0|[1-9]\d{0,2})$/.test(part) && Number(part) <= 255 ? Number(part) : NaN,
  );
  return bytes.some(Number.isNaN) ? undefined : bytes;
}

function parseIpv6(text: string): Ip | undefined {
  const halves = text.split('::');
  if (halves.length > 2) return undefined;
  const groups = (half: string): Ip | undefined => {
    if (half === '') return [];
    const bytes: Ip = [];
    const pieces = half.split(':');
    for (const [i, piece] of pieces.entries()) {
      if (i === pieces.length - 1 && piece.includes('.')) {
        const v4 = parseIpv4(piece);
        if (!v4) return undefined;
        bytes.push(...v4);
      } else if (/^[0-9a-f]{1,4}$/i.test(piece)) {
        const value = parseInt(piece, 16);
        bytes.push(value >> 8, value & 0xff);
      } else return undefined;
    }
    return bytes;
  };
  const head = groups(halves[0]);
  const tail = halves.length === 2 ? groups(halves[1]) : [];
  if (!head || !tail) return undefined;
  if (halves.length === 1) return head.length === 16 ? head : undefined;
  // '::' stands for at least one group of zeros. An embedded IPv4 may only end the address.
  if (head.length + tail.length > 14 || halves[0].includes('.')) return undefined;
  return [...head, ...new Array<number>(16 - head.length - tail.length).fill(0), ...tail];
}

interface Cidr {
  network: Ip;
  prefix: number;
}

/**
 * Go's net.ParseCIDR. An IPv4-mapped network of prefix 96 or more is read as IPv4 (as Go's
 * IPNet.Contains does); a shorter one keeps 16 bytes and so matches IPv6 addresses only.
 */
function parseCidr(text: string): Cidr | undefined {
  const slash = text.indexOf('/');
  if (slash < 0 || !/^\d{1,3}$/.test(text.slice(slash + 1))) return undefined;
  const address = text.slice(0, slash);
  const prefix = Number(text.slice(slash + 1));
  const v4 = parseIpv4(address);
  const ip = v4 ?? parseIpv6(address);
  if (!ip || prefix > ip.length * 8) return undefined;
  const mapped = v4 ? undefined : parseIp(address);
  if (mapped?.length === 4 && prefix >= 96) return { network: mapped, prefix: prefix - 96 };
  return { network: ip, prefix };
}

function cidrContains({ network, prefix }: Cidr, ip: Ip): boolean {
  if (ip.length !== network.length) return false;
  for (let bit = 0; bit < prefix; bit++) {
    const mask = 0x80 >> (bit % 8);
    if ((ip[bit >> 3] & mask) !== (network[bit >> 3] & mask)) return false;
  }
  return true;
}

function sameIp(a: Ip, b: Ip): boolean {
  return a.length === b.length && a.every((byte, i) => byte === b[i]);
}
