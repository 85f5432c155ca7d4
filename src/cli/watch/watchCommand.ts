import { fromEvent, lastValueFrom, takeUntil, tap, type Observable } from 'rxjs';
import { isInitialEventsEnd } from '../../objects/isInitialEventsEnd.js';
import { metadataOnly } from '../../index.js';
import type { Cluster, ResourceRef, WatchEvent, WatchOptions } from '../../types.js';
import { COMMON_OPTIONS, parseCommandArgs } from '../args.js';
import { CliError, describeFailure, type FailureContext } from '../CliError.js';
import { WATCH_HELP } from '../help.js';
import type { CliIo } from '../CliIo.js';
import { LifecycleReporter } from '../LifecycleReporter.js';
import { parseResourceArg, type ResolvedResource } from '../resourceArg.js';
import { withClusterTarget } from '../withClusterTarget.js';
import { serverTableLayout, tableLayout } from './columns.js';
import { JsonLinesPrinter, NamePrinter, TablePrinter, type EventPrinter } from './printers.js';
import type { ServerColumns } from './serverTable.js';

const OPTIONS = {
  ...COMMON_OPTIONS,
  namespace: { type: 'string', short: 'n' },
  'all-namespaces': { type: 'boolean', short: 'A' },
  selector: { type: 'string', short: 'l' },
  'field-selector': { type: 'string' },
  output: { type: 'string', short: 'o' },
  'metadata-only': { type: 'boolean' },
  'output-watch-events': { type: 'boolean' },
} as const;

const OUTPUTS = ['table', 'wide', 'json', 'yaml', 'name'] as const;
type Output = (typeof OUTPUTS)[number];

/** What decides the printer: the flags, and what the command learnt of the resource. */
interface PrintConfig {
  output: Output;
  watchEvents: boolean;
  /** A NAMESPACE column: a namespaced resource watched in every namespace. */
  namespaceColumn: boolean;
  /** Where the server's Table columns arrive (table and wide output). */
  serverColumns: ServerColumns;
}

/**
 * `kube-rx watch <resource> [flags]`: resolves the resource through the server's discovery as
 * kubectl does, lists and watches it through the resilient pipeline (asking for the server's
 * Table columns for table output), printing a table, JSON lines, YAML documents or names on
 * stdout and connection trouble on stderr, until Ctrl-C (resolves 0) or a failure retrying
 * cannot fix (throws a {@link CliError}).
 *
 * @example
 * const code = await watchCommand(['deploy', '-n', 'default', '-o', 'wide'], io);
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
        ? 'missing resource: kube-rx watch <resource> (see: kube-rx watch --help)'
        : `one resource at a time, got: ${positionals.join(' ')} (see: kube-rx watch --help)`,
    );
  }
  const metadata = values['metadata-only'] === true;
  const output = (values.output ?? (metadata ? 'name' : 'table')) as Output;
  if (!OUTPUTS.includes(output)) {
    throw new CliError(`bad --output "${values.output}": expected ${OUTPUTS.join(', ')}`);
  }
  if (metadata && output === 'table') {
    throw new CliError('--metadata-only prints -o name or -o json (a table needs whole objects)');
  }
  if (values.namespace !== undefined && values['all-namespaces']) {
    throw new CliError('give -n/--namespace or -A/--all-namespaces, not both');
  }
  const parsed = parseResourceArg(positionals[0]);
  return withClusterTarget(values, io, async (target) => {
    // Loaded only now, like the watch pipeline: --help and a mistyped flag should not wait.
    const { resolveOnServer } = await import('./resolveOnServer.js');
    const resource = await resolveOnServer(parsed, target.cluster, target.server, io);
    if (resource === undefined) return 0; // interrupted while reading discovery
    const allNamespaces = values['all-namespaces'] === true || !resource.namespaced;
    const options: WatchOptions = {
      ...(allNamespaces ? {} : { namespace: values.namespace ?? target.namespace }),
      ...(values.selector !== undefined && { labelSelector: values.selector }),
      ...(values['field-selector'] !== undefined && { fieldSelector: values['field-selector'] }),
    };
    const config: PrintConfig = {
      output,
      watchEvents: values['output-watch-events'] === true,
      namespaceColumn: allNamespaces && resource.namespaced,
      serverColumns: {},
    };
    const printer = await makePrinter(config, resource, io, options);
    const reporter = new LifecycleReporter(resource.label);
    const { failFastWatch } = await import('./failFastWatch.js');
    const { tableWatchSource } = await import('./tableWatchSource.js');
    const tables = output === 'table' || output === 'wide';
    const ref = metadata ? metadataOnly(resource.ref) : resource.ref;
    const events = failFastWatch(target.cluster, ref, options, {
      onLifecycle: (event) => {
        const line = reporter.observe(event);
        if (line) io.warn(`kube-rx: ${line}`);
      },
      // Tables only for table output: json, yaml and name want the whole objects.
      ...(tables && {
        source: (cluster: Cluster, ref: ResourceRef<any>, watchOptions: WatchOptions) =>
          tableWatchSource(cluster, ref, watchOptions, config.serverColumns),
      }),
    });
    return print(events, printer, io, { what: resource.label, server: target.server });
  });
}

async function makePrinter(
  config: PrintConfig,
  resource: ResolvedResource,
  io: CliIo,
  options: WatchOptions,
): Promise<EventPrinter> {
  const { output, watchEvents, namespaceColumn, serverColumns } = config;
  const writeLine = (line: string) => io.out(`${line}\n`);
  if (output === 'json') return new JsonLinesPrinter(writeLine, watchEvents);
  if (output === 'yaml') {
    const { YamlPrinter } = await import('./YamlPrinter.js');
    return new YamlPrinter((text) => io.out(text), watchEvents);
  }
  if (output === 'name') return new NamePrinter(resource.nameKind, writeLine, watchEvents);
  const { group, plural } = resource.ref;
  const where = options.namespace ? ` in ${options.namespace} namespace` : '';
  const layoutConfig = { wide: output === 'wide', allNamespaces: namespaceColumn };
  // Chosen at the first rows: by then the list has answered, with the server's columns or not.
  const layout = () =>
    serverColumns.columns
      ? serverTableLayout(serverColumns.columns, layoutConfig)
      : tableLayout(plural, group, layoutConfig);
  return new TablePrinter(layout, writeLine, {
    watchEvents,
    onEmpty: () => io.warn(`No resources found${where} (yet); watching.`),
  });
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
