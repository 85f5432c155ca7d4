import { WatchError } from '../WatchError.js';
import { redactSecrets } from '../security/redactSecrets.js';
import { replaceControlCharacters } from '../security/sanitizeText.js';

/**
 * A failure the command reports as one line on stderr before exiting with `exitCode`
 * (1 unless said otherwise): bad flags, bad kubeconfig, unknown resource, no access...
 *
 * @example
 * throw new CliError("unknown flag '--foo' (see kube-rx watch --help)");
 */
export class CliError extends Error {
  override readonly name = 'CliError';
  constructor(
    message: string,
    readonly exitCode = 1,
  ) {
    super(replaceControlCharacters(message)); // it goes to a terminal, and may quote a server
  }
}

/** Where the failure happened, to say it in the message. */
export interface FailureContext {
  /** What was asked for, e.g. `pods` or `apps/v1/deployments`. */
  what: string;
  /** The API server URL. */
  server: string;
}

/**
 * One line that tells a person what went wrong and what to do, for any error of a watch.
 * WatchError messages already carry the code, reason and path (never a query or a token).
 *
 * @example
 * describeFailure(forbidden, { what: 'pods', server: 'https://10.0.0.1:6443' });
 * // 'forbidden: you may not list and watch pods: 403 Forbidden: ... (/api/v1/pods)'
 */
export function describeFailure(error: unknown, ctx: FailureContext): string {
  // The server URL may carry a password, an unexpected error anything: redacted as a whole.
  return replaceControlCharacters(redactSecrets(failureLine(error, ctx), Infinity));
}

function failureLine(error: unknown, ctx: FailureContext): string {
  if (!(error instanceof WatchError)) {
    return `unexpected failure: ${error instanceof Error ? error.message : String(error)}`;
  }
  switch (error.errorType) {
    case 'NOT_FOUND':
      return `unknown resource "${ctx.what}": the server has no such resource (${error.message}); check the name or give it as group/version/plural`;
    case 'FORBIDDEN':
      return `forbidden: you may not list and watch ${ctx.what}: ${error.message}`;
    case 'UNAUTHORIZED_ERROR':
      return `unauthorized: the cluster at ${ctx.server} refused the kubeconfig's credentials: ${error.message}`;
    case 'BAD_REQUEST':
      return `bad request for ${ctx.what}: ${error.message}`;
    case 'SYSTEM_ERROR':
      if (error.statusCode === 0)
        return `cannot reach the cluster at ${ctx.server}: ${error.message}`;
      return `the cluster at ${ctx.server} failed: ${error.message}`;
    default:
      return `watching ${ctx.what} failed: ${error.message}`;
  }
}
