import { objectDecoder } from '../shapes/objectDecoder.js';
import { METADATA_WATCH_ACCEPT } from '../shapes/metadataOnly.js';
import type { ResourceRef, WatchOptions } from '../types.js';
import type { WatchPayload } from '../client/watch/openWatch.js';
import { requestArgumentsError } from '../objects/argumentChecks.js';

/**
 * What a watch of `resource` asks for and how it decodes each object: PartialObjectMetadata for
 * a `metadataOnly` resource (reduced on decode too), then the options' `transform`. The same for
 * `watchResource` and `fromWatch`, so both make exactly the same request.
 *
 * @example
 * openWatch(kc, pods, options, watchPayload(pods, options), signal, consumer);
 */
export function watchPayload(resource: ResourceRef<unknown>, options: WatchOptions): WatchPayload {
  // Called before the request is validated: arguments that are not objects get the plain
  // payload, and the request answers them with its one BAD_REQUEST.
  if (requestArgumentsError(resource, options) !== undefined) return {};
  return {
    accept: resource.shape === 'metadata' ? METADATA_WATCH_ACCEPT : undefined,
    decodeObject: objectDecoder(resource, options.transform),
  };
}
