/**
 * The value of an `Authorization` (or `Proxy-Authorization`) header for Basic credentials:
 * `Basic ` and the base64 of the UTF-8 `user:password` (RFC 7617). With one argument, `user` is
 * the `user:password` pair as it stands (Node's `auth` request option, what client-node's
 * `applyToHTTPSOptions` sets for a kubeconfig's username and password). Node-free: the fetch
 * transport uses it in browsers too.
 *
 * @example
 * basicAuthorization('u', 'p'); // 'Basic dTpw'
 * basicAuthorization('u:p'); // 'Basic dTpw'
 */
export function basicAuthorization(user: string, password?: string): string {
  const pair = password === undefined ? user : `${user}:${password}`;
  let binary = '';
  for (const byte of new TextEncoder().encode(pair)) binary += String.fromCharCode(byte);
  return `Basic ${btoa(binary)}`;
}
