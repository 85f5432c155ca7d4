// LeaseObservations: when this process first saw each record of the ring's Leases, and the
// candidates told of each new one (a sharder's claims, the members' election of the sharder).
import { describe, expect, it } from '@jest/globals';
import { firstValueFrom, of, toArray } from 'rxjs';
import type { LeaseObject } from '../../../src/controller/election/leaseApi.js';
import { LeaseObservations } from '../../../src/controller/sharding/LeaseObservations.js';
import { toStore } from '../../../src/operators/toStore.js';
import type { Store } from '../../../src/operators/store/Store.js';
import type { WatchEvent } from '../../../src/types.js';

const lease = (name: string, version: string, holder: string): LeaseObject => ({
  metadata: { name, namespace: 'ops', resourceVersion: version },
  spec: { holderIdentity: holder },
});

/** The store after each of `events`, as a watch of the ring's Leases hands them over. */
async function snapshots(...leases: LeaseObject[]): Promise<Store<LeaseObject, string>[]> {
  const events = leases.map((object): WatchEvent<LeaseObject> => ({ type: 'MODIFIED', object }));
  return firstValueFrom(of(...events).pipe(toStore(), toArray())) as Promise<
    Store<LeaseObject, string>[]
  >;
}

describe('LeaseObservations', () => {
  it('tells a watcher the record known now, then each new record as first seen, until stopped', async () => {
    let now = 0;
    const seen = new LeaseObservations(() => now);
    const [s1, s2, s3, s4] = await snapshots(
      lease('web.a', '1', 'a/1'),
      lease('web.b', '2', 'b/1'), // another Lease: not told
      lease('web.a', '3', 'a/1'), // a renewal
      lease('web.a', '4', ''), // released
    );
    now = 10;
    seen.update(s1!);
    const told: [string | undefined, string | undefined, number][] = [];
    const stop = seen.watch('ops/web.a', (l, at) =>
      told.push([l.metadata.resourceVersion, l.spec?.holderIdentity, at]),
    );
    expect(told).toEqual([['1', 'a/1', 10]]);
    now = 20;
    seen.update(s2!);
    seen.update(s2!); // the same snapshot again (the member and its sharder both hand it over)
    now = 30;
    seen.update(s3!);
    seen.update(s3!);
    expect(told).toEqual([
      ['1', 'a/1', 10],
      ['3', 'a/1', 30],
    ]);
    stop();
    now = 40;
    seen.update(s4!);
    expect(told).toHaveLength(2);
    // A watcher that comes later is told the record as first seen, at 40.
    const later: number[] = [];
    seen.watch('ops/web.a', (_, at) => later.push(at));
    expect(later).toEqual([40]);
  });
});
