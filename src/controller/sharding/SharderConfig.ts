import type { SchedulerLike } from 'rxjs';
import type { Informers } from '../../operators/createInformers.js';
import type { Cluster, Logger, ResourceRef, WatchOptions } from '../../types.js';
import type { ElectionSettings } from '../election/electionSettings.js';
import type { LeaseObservations } from './LeaseObservations.js';
import type { ShardNames } from './shardNames.js';

/** A watched resource and its watch options (namespace, the user's selectors). */
export interface SharderSource {
  resource: ResourceRef<any>;
  options: WatchOptions;
}

/** What the sharder needs: the ring, the primary resource and where its Leases live. */
export interface SharderConfig {
  cluster: Cluster;
  informers: Informers;
  names: ShardNames;
  namespace: string;
  /** The primary resource and its watch options (namespace, the user's selectors). */
  resource: ResourceRef<any>;
  options: WatchOptions;
  /** The owned resources: each object follows its controller owner's assignment. */
  owned: SharderSource[];
  /** The Elector settings of the sharder's claims on members' Leases (its holder identity). */
  settings: ElectionSettings;
  /** This member's observations of the ring's Leases since it started: its claims start from them. */
  observations?: LeaseObservations;
  /** Label writes in flight at once (`ShardingConfig.writeConcurrency`). */
  writeConcurrency: number;
  scheduler: SchedulerLike;
  logger?: Logger | undefined;
}
