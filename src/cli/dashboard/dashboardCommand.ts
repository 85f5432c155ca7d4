import { COMMON_OPTIONS, parseCommandArgs, parsePort } from '../args.js';
import { CliError } from '../errors.js';
import { DASHBOARD_HELP } from '../help.js';
import { untilAborted, type CliIo } from '../io.js';
import { withClusterTarget } from '../withClusterTarget.js';

const OPTIONS = {
  ...COMMON_OPTIONS,
  port: { type: 'string' },
  namespace: { type: 'string', short: 'n' },
} as const;

/** The port when `--port` is not given. */
const DEFAULT_PORT = 8080;

/**
 * `kube-rx dashboard [flags]`: serves the live page on 127.0.0.1, prints its URL on stdout and
 * runs until Ctrl-C (resolves 0).
 *
 * @example
 * await dashboardCommand(['--port', '0', '--demo'], io);
 */
export async function dashboardCommand(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommandArgs('dashboard', args, OPTIONS);
  if (values.help) {
    io.out(DASHBOARD_HELP);
    return 0;
  }
  if (positionals.length > 0) {
    throw new CliError(`unexpected argument "${positionals[0]}" (see: kube-rx dashboard --help)`);
  }
  const port = parsePort(values.port, DEFAULT_PORT);
  const { startDashboard } = await import('./dashboardServer.js');
  // The demo's faults also go to the page's connection log, once the page exists.
  let noteOnPage = (_text: string) => {};
  const onDemoFault = (what: string) => noteOnPage(`demo fault: ${what}`);
  return withClusterTarget(
    values,
    io,
    async (target) => {
      const dashboard = await startDashboard({
        cluster: target.cluster,
        clusterName: target.contextName,
        server: target.server,
        demo: target.demo !== undefined,
        port,
        warn: io.warn,
        ...(values.namespace !== undefined && { namespace: values.namespace }),
      });
      noteOnPage = (text) => dashboard.feed.note(text);
      const where = values.namespace ? `namespace ${values.namespace}` : 'every namespace';
      io.warn(`kube-rx: dashboard of ${target.contextName} (${where}); Ctrl-C stops it`);
      io.out(`${dashboard.url}\n`);
      await untilAborted(io.signal);
      await dashboard.close();
      return 0;
    },
    onDemoFault,
  );
}
