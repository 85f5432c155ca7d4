import { fromEvent, lastValueFrom, takeUntil, tap, type Observable } from 'rxjs';
import { isInitialEventsEnd } from '../../operators/isInitialEventsEnd.js';
import type { WatchEvent, WatchOptions } from '../../types.js';
import { COMMON_OPTIONS, parseCommandArgs } from '../args.js';
import { CliError, describeFailure, type FailureContext } from '../errors.js';
import { WATCH_HELP } from '../help.js';
import type { CliIo } from '../io.js';
import { LifecycleReporter } from '../lifecycleReporter.js';
import { resolveResourceArg, type ResolvedResource } from '../resourceArg.js';
import { withClusterTarget } from '../withClusterTarget.js';
import { tableLayout } from './columns.js';
import { JsonLinesPrinter, NamePrinter, TablePrinter, type EventPrinter } from './printers.js';

const OPTIONS = {
  ...COMMON_OPTIONS,
  namespace: { type: 'string', short: 'n' },
  'all-namespaces': { type: 'boolean', short: 'A' },
  selector: { type: 'string', short: 'l' },
  'field-selector': { type: 'string' },
  output: { type: 'string', short: 'o' },
} as const;

const OUTPUTS = ['table', 'json', 'name'] as const;
type Output = (typeof OUTPUTS)[number];

/**
 * `kube-rx watch <resource> [flags]`: lists and watches through the resilient pipeline, printing
 * a table, JSON lines or names on stdout and connection trouble on stderr, until Ctrl-C
 * (resolves 0) or a failure retrying cannot fix (throws a {@link CliError}).
 *
 * @example
 * const code = await watchCommand(['pods', '-n', 'default', '-o', 'json'], io);
 */
export async function watchCommand(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommandArgs('watch', args, OPTIONS);
  if (values.help) {
    io.out(WATCH_HELP);
    return 0;
  }
  if (positionals.length !== 1) {
    throw new CliError(
      positionals.length === 0
        ? 'missing resource: kube-rx watch <plural | group/version/plural> (see: kube-rx watch --help)'
        : `one resource at a time, got: ${positionals.join(' ')} (see: kube-rx watch --help)`,
    );
  }
  const output = (values.output ?? 'table') as Output;
  if (!OUTPUTS.includes(output)) {
    throw new CliError(`bad --output "${values.output}": expected table, json or name`);
  }
  if (values.namespace !== undefined && values['all-namespaces']) {
    throw new CliError('give -n/--namespace or -A/--all-namespaces, not both');
  }
  const resource = resolveResourceArg(positionals[0]);
  return withClusterTarget(values, io, async (target) => {
    const allNamespaces = values['all-namespaces'] === true || !resource.namespaced;
    const options: WatchOptions = {
      ...(allNamespaces ? {} : { namespace: values.namespace ?? target.namespace }),
      ...(values.selector !== undefined && { labelSelector: values.selector }),
      ...(values['field-selector'] !== undefined && { fieldSelector: values['field-selector'] }),
    };
    const printer = makePrinter(
      output,
      resource,
      allNamespaces && resource.namespaced,
      io,
      options,
    );
    const reporter = new LifecycleReporter(resource.label);
    const { failFastWatch } = await import('./failFastWatch.js');
    const events = failFastWatch(target.cluster, resource.ref, options, {
      onLifecycle: (event) => {
        const line = reporter.observe(event);
        if (line) io.warn(`kube-rx: ${line}`);
      },
    });
    return print(events, printer, io, { what: resource.label, server: target.server });
  });
}

function makePrinter(
  output: Output,
  resource: ResolvedResource,
  namespaceColumn: boolean,
  io: CliIo,
  options: WatchOptions,
): EventPrinter {
  const writeLine = (line: string) => io.out(`${line}\n`);
  if (output === 'json') return new JsonLinesPrinter(writeLine);
  if (output === 'name') return new NamePrinter(resource.nameKind, writeLine);
  const { group, plural } = resource.ref;
  const where = options.namespace ? ` in ${options.namespace} namespace` : '';
  return new TablePrinter(tableLayout(plural, group, namespaceColumn), writeLine, Date.now, () =>
    io.warn(`No resources found${where} (yet); watching.`),
  );
}

/** Prints `events` until Ctrl-C (resolves 0) or a failure retrying cannot fix (rejects). */
async function print(
  events: Observable<WatchEvent>,
  printer: EventPrinter,
  io: CliIo,
  failure: FailureContext,
): Promise<number> {
  if (io.signal.aborted) return 0;
  const printed = events.pipe(
    takeUntil(fromEvent(io.signal, 'abort')),
    tap((event) => {
      if (event.type === 'ERROR') return; // resumed streams carry none; failures error instead
      if (event.type === 'BOOKMARK') {
        if (isInitialEventsEnd(event)) printer.synced();
        return;
      }
      printer.event(event);
    }),
  );
  try {
    await lastValueFrom(printed, { defaultValue: undefined });
  } catch (error) {
    throw new CliError(describeFailure(error, failure));
  }
  return 0;
}
