// The chaos run: 1 000 random creates, updates and deletes of pods in a few namespaces while
// random faults fire, against the resumed pipeline over real HTTP, starting from a list and from
// a watch-list. Whatever happened on the way, the events delivered, folded into a map, must
// equal the server's objects at the end, no change may have been delivered twice, and no
// socket may be left open.
//
// The choices (operations, faults, jitter) come from a seeded PRNG: KUBE_RX_SEED=<n> replays
// them (timing is real, so a replay is close to, not exactly, the same run). Every assertion
// carries the seed in its diff.
import { afterEach, describe, expect, it } from '@jest/globals';
import { pods } from '../../src/objects/resources.js';
import { FakeKubeApiServer } from '../../src/testing/fakeKubeApiServer/FakeKubeApiServer.js';
import { pod } from '../../src/testing/marbles/builders.js';
import type { KubernetesObject, WatchEvent } from '../../src/types.js';
import { resilientWatch } from '../../src/operators/resilientWatch.js';
import { PipelineRecording, keyOfEvent } from '../support/pipelineRecording.js';
import { sleep, until } from '../support/wait.js';
import { Dice, mulberry32, seedFromEnv } from '../support/seededRandom.js';

const OPERATIONS = 1000;
const NAMESPACES = ['alpha', 'beta', 'gamma'];
const NAMES_PER_NAMESPACE = 25;
const IDLE_TIMEOUT = 400;
const BOOKMARK_INTERVAL = 100;
/** Small enough that a client away for a second or so finds its version compacted. */
const HISTORY_SIZE = 150;
const QUIESCENCE_TIMEOUT = 10_000;

/** The delivered events folded into a map, as a consumer's cache would be. */
class Fold {
  readonly objects = new Map<string, KubernetesObject>();
  /** How often each (type, key, resourceVersion) was delivered; DELETED counted apart. */
  readonly seen = new Map<string, number>();
  private consumed = 0;

  update(events: readonly WatchEvent<KubernetesObject>[]): this {
    for (; this.consumed < events.length; this.consumed++) {
      const event = events[this.consumed];
      if (event.type === 'ERROR' || event.type === 'BOOKMARK') continue;
      const key = keyOfEvent(event);
      const version = event.resourceVersion ?? event.object.metadata?.resourceVersion;
      const pair = `${event.type === 'DELETED' ? 'DELETED' : 'ADDED/MODIFIED'} ${key}@${version}`;
      this.seen.set(pair, (this.seen.get(pair) ?? 0) + 1);
      if (event.type === 'DELETED') this.objects.delete(key);
      else this.objects.set(key, event.object);
    }
    return this;
  }

  versions(): Record<string, string | undefined> {
    return versionsByKey([...this.objects.values()]);
  }

  repeated(): string[] {
    return [...this.seen].filter(([, n]) => n > 1).map(([pair, n]) => `${pair} x${n}`);
  }
}

function keyOf(object: KubernetesObject): string {
  return `${object.metadata?.namespace}/${object.metadata?.name}`;
}

function versionsByKey(objects: KubernetesObject[]): Record<string, string | undefined> {
  const out: Record<string, string | undefined> = {};
  for (const object of [...objects].sort((a, b) => (keyOf(a) < keyOf(b) ? -1 : 1)))
    out[keyOf(object)] = object.metadata?.resourceVersion;
  return out;
}

function sameVersions(
  a: Record<string, string | undefined>,
  b: Record<string, string | undefined>,
) {
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length && keys.every((k) => k in b && a[k] === b[k]);
}

/** One random create, update or delete; returns what it did. */
function mutate(server: FakeKubeApiServer, dice: Dice, generation: number): string {
  const namespace = dice.pick(NAMESPACES);
  const name = `pod-${dice.int(0, NAMES_PER_NAMESPACE - 1)}`;
  const next = pod(name, '', {
    metadata: { namespace, labels: { generation: String(generation) } },
    status: { phase: dice.pick(['Pending', 'Running', 'Succeeded', 'Failed']) },
  });
  if (server.get(pods, namespace, name) === undefined) {
    server.create(pods, next);
    return 'create';
  }
  if (dice.chance(0.7)) {
    server.update(pods, next);
    return 'update';
  }
  server.delete(pods, namespace, name);
  return 'delete';
}

/** Arms (or fires) one random fault; returns its name. */
async function fault(server: FakeKubeApiServer, dice: Dice): Promise<string> {
  switch (dice.int(0, 9)) {
    case 0: {
      const events = dice.int(0, 4);
      server.faults.dropAfter(events);
      return `dropAfter(${events})`;
    }
    case 1: {
      const afterEvents = dice.int(0, 3);
      server.faults.cutLine({ afterEvents });
      return `cutLine(${afterEvents})`;
    }
    case 2: {
      const status = dice.pick([500, 503, 429]);
      const retryAfterSeconds = dice.pick([undefined, 0, 1]);
      const times = dice.int(1, 2);
      const match = dice.pick(['watch', 'list', 'any'] as const);
      server.faults.fail(status, { retryAfterSeconds, times, match });
      return `fail(${status}, retryAfter ${retryAfterSeconds}, x${times}, ${match})`;
    }
    case 3:
      server.expireHistory();
      return 'expireHistory';
    case 4: {
      const times = dice.int(1, 3);
      server.faults.closeImmediately({ times });
      return `closeImmediately(x${times})`;
    }
    case 5: {
      const ms = dice.int(50, IDLE_TIMEOUT / 2);
      server.faults.stall(ms);
      return `stall(${ms}) < idle`;
    }
    case 6: {
      const ms = dice.int(IDLE_TIMEOUT + 100, IDLE_TIMEOUT * 2);
      server.faults.stall(ms);
      return `stall(${ms}) > idle`;
    }
    case 7: {
      const ms = dice.int(50, 300);
      server.faults.delayHeaders(ms);
      return `delayHeaders(${ms})`;
    }
    case 8:
      // Every open connection drops at once, as when the API server restarts.
      await server.restart();
      return 'restart';
    default: {
      const events = dice.int(1, 10);
      server.faults.dropAfter(events, { times: 2 });
      return `dropAfter(${events}) x2`;
    }
  }
}

describe('resumeFromResourceVersion: convergence under chaos', () => {
  let server: FakeKubeApiServer | undefined;
  let recording: PipelineRecording | undefined;
  afterEach(async () => {
    recording?.unsubscribe();
    await server?.stop();
  });

  it.each(['list', 'watch-list'] as const)(
    `delivers exactly the server's changes through ${OPERATIONS} random operations and random faults (initialState %s)`,
    async (initialState) => {
      const seed = seedFromEnv();
      const dice = new Dice(mulberry32(seed));
      const jitter = mulberry32(seed ^ 0x5bd1e995);
      const s = (server = await FakeKubeApiServer.start({
        bookmarkIntervalMs: BOOKMARK_INTERVAL,
        historySize: HISTORY_SIZE,
      }));
      // A few objects exist before the pipeline starts, so the first list has something to say.
      for (let i = 0; i < 20; i++) mutate(s, dice, 0);

      const rec = (recording = new PipelineRecording());
      rec.subscribe(
        // timeoutSeconds: 1 makes the server end watches on its own too.
        resilientWatch<KubernetesObject>(
          s.kubeConfig(),
          pods,
          { timeoutSeconds: 1 },
          {
            bookmarks: { idleTimeout: IDLE_TIMEOUT },
            // Short backoffs (under 0.5% of each cap: 150 ms at most), drawn from the seed.
            random: () => jitter() * 0.005,
            initialState,
            onLifecycle: rec.onLifecycle,
          },
        ),
      );

      const operations: Record<string, number> = {};
      const faults: string[] = [];
      for (let done = 20; done < OPERATIONS;) {
        const batch = Math.min(OPERATIONS - done, dice.int(1, 19));
        for (let i = 0; i < batch; i++, done++) {
          const op = mutate(s, dice, done);
          operations[op] = (operations[op] ?? 0) + 1;
        }
        if (dice.chance(0.35)) faults.push(await fault(s, dice));
        await sleep(dice.int(10, 90));
      }
      s.faults.reset();

      const fold = new Fold();
      const expected = () => versionsByKey(s.objects(pods));
      await until(
        () => sameVersions(fold.update(rec.events).versions(), expected()) || rec.errored,
        'the delivered state to equal the server',
        QUIESCENCE_TIMEOUT,
      ).catch(() => undefined); // the assertions below say what differs

      const steps = rec.steps;
      if (process.env.KUBE_RX_VERBOSE) {
        console.log(
          JSON.stringify({
            initialState,
            seed,
            operations,
            faults,
            requests: s.requests.length,
            events: rec.events.length,
            relists: steps.filter((l) => l.startsWith('relist-end')).length,
            expired: steps.filter((l) => l === 'expired').length,
            backoffs: steps.filter((l) => l.startsWith('backoff')).length,
            disconnected: steps
              .filter((l) => l.startsWith('disconnected'))
              .reduce<Record<string, number>>((n, l) => ({ ...n, [l]: (n[l] ?? 0) + 1 }), {}),
            objects: s.objects(pods).length,
          }),
        );
      }
      const context = `${initialState}, seed ${seed} (replay with KUBE_RX_SEED=${seed}); faults: ${faults.join(', ')}`;

      expect({ context, errored: rec.errored, error: rec.error, completed: rec.completed }).toEqual(
        {
          context,
          errored: false,
          error: undefined,
          completed: false,
        },
      );
      const actual = fold.update(rec.events).versions();
      const wanted = expected();
      const missing = Object.keys(wanted).filter((k) => !(k in actual));
      const extra = Object.keys(actual).filter((k) => !(k in wanted));
      const stale = Object.keys(wanted)
        .filter((k) => k in actual && actual[k] !== wanted[k])
        .map((k) => `${k} delivered @${actual[k]}, server @${wanted[k]}`);
      expect({ context, missing, extra, stale }).toEqual({
        context,
        missing: [],
        extra: [],
        stale: [],
      });
      // Not only the versions: the very objects.
      expect({
        context,
        objects: [...fold.objects.values()].sort((a, b) => (keyOf(a) < keyOf(b) ? -1 : 1)),
      }).toEqual({
        context,
        objects: s.objects(pods).sort((a, b) => (keyOf(a) < keyOf(b) ? -1 : 1)),
      });
      expect({ context, repeated: fold.repeated() }).toEqual({ context, repeated: [] });
      expect({
        context,
        errorEventsDownstream: rec.events.filter((e) => e.type === 'ERROR').length,
      }).toEqual({
        context,
        errorEventsDownstream: 0,
      });

      rec.unsubscribe();
      await s.waitForConnections(0, 1000).catch(() => undefined);
      expect({ context, openConnections: s.openConnections, openWatches: s.openWatches }).toEqual({
        context,
        openConnections: 0,
        openWatches: 0,
      });
    },
    30_000,
  );
});
