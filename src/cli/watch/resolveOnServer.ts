import { setMaxListeners } from 'node:events';
import type { Cluster } from '../../types.js';
import { CliError, describeFailure } from '../CliError.js';
import type { CliIo } from '../CliIo.js';
import { Discovery, DiscoveryUnavailableError } from '../kube/Discovery.js';
import {
  discoveryScope,
  resolveResourceArg,
  resolveWithoutDiscovery,
  type ResolvedResource,
  type ResourceArg,
} from '../resourceArg.js';

/** How long discovery may take before the command goes on with the built-in names. */
export const DISCOVERY_TIMEOUT_MS = 15_000;

/**
 * Resolves a parsed resource argument through the server's discovery (read once for the run).
 * When discovery cannot be read (403 on `/apis` under restricted RBAC, a server that does not
 * serve it, no network, no answer in time), the built-in names and `group/version/plural` still
 * resolve, quietly (refused credentials, 401, fail at once); any other name fails with a message that says why discovery failed (an
 * unreachable server is then reported by the watch itself). Undefined when `io.signal` aborted
 * meanwhile (Ctrl-C).
 *
 * @example
 * const resource = await resolveOnServer(parseResourceArg('deploy'), target.cluster, target.server, io);
 */
export async function resolveOnServer(
  parsed: ResourceArg,
  cluster: Cluster,
  server: string,
  io: CliIo,
): Promise<ResolvedResource | undefined> {
  const signal = AbortSignal.any([io.signal, AbortSignal.timeout(DISCOVERY_TIMEOUT_MS)]);
  // Every discovery request listens to it (dozens on a real cluster), for this run only.
  setMaxListeners(0, signal);
  const discovery = new Discovery(cluster, signal);
  try {
    const { resources, failed } = await discovery.resources(discoveryScope(parsed));
    return resolveResourceArg(parsed, resources, failed);
  } catch (error) {
    if (io.signal.aborted) return undefined;
    if (!(error instanceof DiscoveryUnavailableError)) throw error;
    // Refused credentials would fail the watch too: say so now.
    if (error.cause.errorType === 'UNAUTHORIZED_ERROR')
      throw new CliError(describeFailure(error.cause, { what: parsed.arg, server }));
    const why = signal.aborted ? `no answer in ${DISCOVERY_TIMEOUT_MS / 1000}s` : error.message;
    return resolveWithoutDiscovery(parsed, why);
  }
}
