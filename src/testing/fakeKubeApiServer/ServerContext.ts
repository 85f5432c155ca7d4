import type { GarbageCollector } from './deletion/GarbageCollector.js';
import type { FaultInjector } from './FaultInjector.js';
import type { ObjectStore } from './ObjectStore.js';
import type { PodLogs } from './PodLogs.js';
import type { Request } from './protocol.js';
import type { ResourceTypes } from './ResourceTypes.js';
import type { RecordedRequest } from './types.js';
import type { ServedWatch } from './ServedWatch.js';

/** What the request handler shares with the server. */
export interface ServerContext {
  readonly objects: ObjectStore;
  readonly types: ResourceTypes;
  /** Collects dependents of deleted owners; `settled()` waits for it. */
  readonly gc: GarbageCollector;
  /** `127.0.0.1:PORT`, for discovery's serverAddressByClientCIDRs. */
  serverAddress(): string;
  readonly logs: PodLogs;
  readonly faults: FaultInjector;
  readonly watches: Set<ServedWatch>;
  readonly requests: RecordedRequest[];
  /** How many requests are kept. */
  readonly recordLimit: number;
  /** Timers of delayed requests, cleared by `stop()`. */
  readonly timers: Set<NodeJS.Timeout>;
  token: string | null;
  readonly clientCA: boolean;
  readonly bookmarkIntervalMs: number;
  readonly keepAlive: boolean;
  /** Answer CORS preflights and let loopback origins read answers. */
  readonly cors: boolean;
  connectionId(req: Request): number;
  /** Counts a request (`requests` is trimmed at `recordLimit`) and wakes `waitForRequests`. */
  requestArrived(): void;
}
