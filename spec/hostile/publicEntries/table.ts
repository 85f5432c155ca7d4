import type { KubeConfig } from '@kubernetes/client-node';
import type { FakeKubeApiServer } from '../../../src/testing/fakeKubeApiServer/FakeKubeApiServer.js';
import type { WatchErrorType } from '../../../src/WatchError.js';
import type { Bad } from './badValues.js';

/**
 * How an entry answers a bad argument, as its JSDoc and DESIGN say:
 * - `error-event`: the primitive's way (`watchResource`, `fromWatch`): one ERROR event of this
 *   type, then the end; never a throw.
 * - `error-notification`: an Observable that errors with a WatchError of this type.
 * - `throws`: at call time, before anything runs (configuration, references made up front).
 * - `rejects`: a promise rejected with this error (every method of a `resourceApi`).
 */
export type Contract =
  | { answer: 'error-event'; errorType: WatchErrorType }
  | { answer: 'error-notification'; errorType: WatchErrorType }
  | { answer: 'throws'; error: 'TypeError' | 'RangeError' | 'LabelSelectorError' | WatchErrorType }
  | { answer: 'rejects'; error: 'TypeError' | 'RangeError' | WatchErrorType };

/** What a row's calls get: the test server and a KubeConfig pointing at it. */
export interface Kit {
  server: FakeKubeApiServer;
  kc: KubeConfig;
}

/** One argument of one entry: the bad values it meets and how each call answers them. */
export interface ArgumentCase {
  /** The argument, as the answer's message must name it (e.g. `options.namespace`). */
  argument: string;
  /** What the message must contain to name the argument. */
  names: RegExp;
  bads: Bad[];
  contract: Contract;
  /** Calls the entry with `bad` in this argument's place and valid values elsewhere. */
  call: (bad: unknown, kit: Kit) => unknown;
}

/** A public entry point: a row of the table. A new entry is covered by adding one. */
export interface EntryRow {
  entry: string;
  arguments: ArgumentCase[];
}

/** A case, written `argument(name, bads, contract, call)` in the rows. */
export function argument(
  name: string,
  bads: Bad[],
  contract: Contract,
  call: (bad: unknown, kit: Kit) => unknown,
  names: RegExp = new RegExp(`\\b${name.split(/[. ]/).pop()!.replace(/\[\]$/, '')}\\b`),
): ArgumentCase {
  return { argument: name, names, bads, contract, call };
}
