import { requestJson } from '../../client/request/requestJson.js';
import { isValidSegment } from '../../objects/resourcePath.js';
import type { Cluster } from '../../types.js';
import { redactSecrets } from '../../security/redactSecrets.js';
import { CliError, describeFailure } from '../CliError.js';
import { checkCrd, type Crd } from './crd.js';

/** How long reading one CRD may take. */
const READ_TIMEOUT_MS = 30_000;

/**
 * Reads the CustomResourceDefinition `name` (`plural.group`) from the cluster and checks it as
 * a file's would be. A missing CRD, no permission or no answer is a {@link CliError}.
 *
 * @example
 * const crd = await readClusterCrd(target.cluster, target.server, 'crontabs.stable.example.com', signal);
 */
export async function readClusterCrd(
  cluster: Cluster,
  server: string,
  name: string,
  signal: AbortSignal,
): Promise<Crd> {
  if (!isValidSegment('name', name))
    throw new CliError(
      `"${name}": neither a file nor a CRD name (plural.group, e.g. crontabs.stable.example.com)`,
    );
  const path = `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${name}`;
  const read = () =>
    requestJson(cluster, {
      method: 'GET',
      path,
      signal: AbortSignal.any([signal, AbortSignal.timeout(READ_TIMEOUT_MS)]),
    });
  let got = await read();
  // A GET is safe to send again: a kept-alive connection the server closed meanwhile fails
  // with a reset (as client-go does, retried once).
  if (!got.ok && got.error.statusCode === 0 && !signal.aborted) got = await read();
  if (!got.ok) {
    const error = got.error;
    if (error.errorType === 'NOT_FOUND')
      throw new CliError(
        `no CustomResourceDefinition named "${name}" on the cluster at ${redactSecrets(server, Infinity)} (kubectl get crd lists them)`,
      );
    throw new CliError(
      describeFailure(error, { what: `customresourcedefinitions/${name}`, server }),
    );
  }
  return checkCrd(got.value, `customresourcedefinitions/${name}`);
}
