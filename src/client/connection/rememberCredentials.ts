import { rememberSecret as remember } from '../../security/redactSecrets.js';

/**
 * Keeps credentials out of every message, log line and error kube-rx makes. Patterns catch the
 * usual phrasings ("Bearer x", "token=x"); beyond them, kube-rx knows the exact values it sent
 * (it resolved them), so it remembers the latest few and removes them wherever they appear:
 * a 401 body that echoes the Authorization header, a credential plugin that prints the token it
 * issued before, a password in the server URL.
 */

/**
 * Remembers the credential values of a request about to be sent: the Authorization header's
 * credentials (and a Basic password), and a user or password in the server URL.
 */
export function rememberCredentials(server: string, headers: Record<string, string>): void {
  const authorization = headers.authorization;
  if (authorization) {
    const space = authorization.indexOf(' ');
    const credentials = space === -1 ? authorization : authorization.slice(space + 1).trim();
    remember(credentials);
    if (/^basic$/i.test(authorization.slice(0, space))) {
      const decoded = decodeBase64(credentials);
      if (decoded !== undefined) {
        remember(decoded);
        remember(decoded.slice(decoded.indexOf(':') + 1));
      }
    }
  }
  try {
    const url = new URL(server);
    remember(decodeURIComponent(url.password));
    remember(url.password);
  } catch {
    // Not a URL: nothing to remember.
  }
}

/** Base64 to UTF-8 text with what Node and browsers both have; undefined when it is not base64. */
function decodeBase64(text: string): string | undefined {
  try {
    const binary = atob(text);
    const bytes = new Uint8Array(binary.length);
    for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
    return new TextDecoder().decode(bytes);
  } catch {
    return undefined;
  }
}
