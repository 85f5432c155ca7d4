import { describe, expect, it } from '@jest/globals';
import type { V1Pod } from '@kubernetes/client-node';
import { formatAge, humanDuration } from '../../src/cli/format/age.js';
import { summarizePod } from '../../src/cli/format/summarizePod.js';
import { tableLayout } from '../../src/cli/watch/columns.js';
import { TablePrinter } from '../../src/cli/watch/printers.js';
import { added, deleted, modified, pod } from '../../src/testing/marbles/builders.js';

describe('ages, as kubectl prints them', () => {
  it.each([
    [0, '0s'],
    [119_999, '119s'],
    [125_000, '2m5s'],
    [600_000, '10m'],
    [3 * 3_600_000 + 5 * 60_000, '3h5m'],
    [10 * 3_600_000, '10h'],
    [3 * 86_400_000 + 2 * 3_600_000, '3d2h'],
    [40 * 86_400_000, '40d'],
    [800 * 86_400_000, '2y'],
  ])('%d ms -> %s', (ms, text) => expect(humanDuration(ms)).toBe(text));

  it('reads timestamps, and says <unknown> without one', () => {
    expect(formatAge('2024-01-01T00:00:00Z', Date.parse('2024-01-01T00:03:12Z'))).toBe('3m12s');
    expect(formatAge(undefined)).toBe('<unknown>');
    expect(formatAge('not a date')).toBe('<unknown>');
  });
});

describe('pod status, as kubectl summarises it', () => {
  const withContainers = (
    statuses: NonNullable<V1Pod['status']>['containerStatuses'],
    extra: Partial<V1Pod> = {},
  ) =>
    ({
      ...pod('p', '1'),
      ...extra,
      status: { phase: 'Running', containerStatuses: statuses },
    }) as V1Pod;
  const container = (state: object, ready = false, restartCount = 0) => ({
    name: 'c',
    image: 'i',
    imageID: '',
    ready,
    restartCount,
    state,
  });

  it('prefers a waiting reason over the phase, and sums restarts', () => {
    expect(
      summarizePod(
        withContainers([container({ waiting: { reason: 'CrashLoopBackOff' } }, false, 4)]),
      ),
    ).toEqual({
      status: 'CrashLoopBackOff',
      ready: '0/1',
      allReady: false,
      restarts: 4,
    });
  });

  it('shows Running and the ready count for a healthy pod', () => {
    expect(summarizePod(withContainers([container({ running: {} }, true, 1)]))).toMatchObject({
      status: 'Running',
      ready: '1/1',
      allReady: true,
    });
  });

  it('shows a terminated reason, exit codes and signals, and Terminating above all', () => {
    expect(
      summarizePod(withContainers([container({ terminated: { exitCode: 1, reason: 'Error' } })]))
        .status,
    ).toBe('Error');
    expect(
      summarizePod(withContainers([container({ terminated: { exitCode: 137 } })])).status,
    ).toBe('ExitCode:137');
    expect(
      summarizePod(withContainers([container({ terminated: { exitCode: 0, signal: 9 } })])).status,
    ).toBe('Signal:9');
    const deleting = withContainers([container({ running: {} }, true)], {
      metadata: { name: 'p', deletionTimestamp: new Date() },
    });
    expect(summarizePod(deleting).status).toBe('Terminating');
  });

  it('shows init containers that have not finished', () => {
    const p = withContainers([container({ waiting: { reason: 'PodInitializing' } })]);
    p.spec!.initContainers = [{ name: 'init' }, { name: 'init2' }];
    p.status!.initContainerStatuses = [
      { ...container({ terminated: { exitCode: 0 } }), name: 'init' },
      { ...container({ running: {} }), name: 'init2' },
    ];
    expect(summarizePod(p).status).toBe('Init:1/2');
  });
});

describe('TablePrinter', () => {
  const now = Date.parse('2024-01-01T01:00:00Z');
  const created = { creationTimestamp: '2024-01-01T00:00:00Z' as unknown as Date };
  const print = () => {
    const lines: string[] = [];
    const empty: string[] = [];
    const printer = new TablePrinter(tableLayout('pods', ''), (l) => lines.push(l), {
      now: () => now,
      onEmpty: () => empty.push('empty'),
    });
    return { printer, lines, empty };
  };

  it('holds the initial listing, then prints it sorted under a header, columns as wide as their cells', () => {
    const { printer, lines } = print();
    printer.event(added(pod('web-10', '2', { metadata: created })));
    printer.event(added(pod('db', '1', { metadata: created })));
    expect(lines).toEqual([]);
    printer.synced();
    expect(lines).toEqual([
      'NAME     READY   STATUS    RESTARTS   AGE',
      'db       0/1     Running   0          60m',
      'web-10   0/1     Running   0          60m',
    ]);
  });

  it('prints each later change as one row, deletions marked', () => {
    const { printer, lines } = print();
    printer.synced();
    printer.event(modified(pod('db', '3', { metadata: created, status: { phase: 'Pending' } })));
    printer.event(deleted(pod('db', '4', { metadata: created })));
    expect(lines.slice(1)).toEqual([
      'db     0/1     Pending   0          60m',
      'db     0/1     Deleted   0          60m',
    ]);
  });

  it('says when the initial listing is empty', () => {
    const { printer, lines, empty } = print();
    printer.synced();
    expect(lines).toEqual(['NAME   READY   STATUS   RESTARTS   AGE']);
    expect(empty).toEqual(['empty']);
  });

  it('marks a deleted object other than a pod with <deleted> as its AGE, NAMESPACE column included', () => {
    const lines: string[] = [];
    const printer = new TablePrinter(
      tableLayout('configmaps', '', { allNamespaces: true }),
      (l) => lines.push(l),
      { now: () => now },
    );
    const settings = { ...pod('settings', '1', { metadata: created }), kind: 'ConfigMap' };
    printer.event(added(settings));
    printer.synced();
    printer.event(deleted(settings));
    expect(lines).toEqual([
      'NAMESPACE   NAME       AGE',
      'default     settings   60m',
      'default     settings   <deleted>',
    ]);
  });

  it('prints an initial listing too big to spread into Math.max', () => {
    const lines: string[] = [];
    const printer = new TablePrinter(tableLayout('configmaps', ''), (l) => lines.push(l));
    for (let i = 0; i < 150_000; i++) printer.event(added(pod(`cm-${i}`, '1')));
    expect(() => printer.synced()).not.toThrow();
    expect(lines).toHaveLength(150_001);
  });

  it('uses NAME and AGE for other resources, NAMESPACE first for every namespace', () => {
    expect(tableLayout('configmaps', '', { allNamespaces: true }).headers).toEqual([
      'NAMESPACE',
      'NAME',
      'AGE',
    ]);
    expect(tableLayout('deployments', 'apps').headers).toEqual([
      'NAME',
      'READY',
      'UP-TO-DATE',
      'AVAILABLE',
      'AGE',
    ]);
  });
});
