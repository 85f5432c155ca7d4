import { COMMON_OPTIONS, parseCommandArgs, parsePort } from '../args.js';
import { CliError } from '../CliError.js';
import { DASHBOARD_HELP } from '../help.js';
import { untilAborted, type CliIo } from '../CliIo.js';
import { withClusterTarget } from '../withClusterTarget.js';

const OPTIONS = {
  ...COMMON_OPTIONS,
  // Several contexts: several clusters on one page.
  context: { type: 'string', multiple: true },
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
  const contexts = [...new Set(values.context ?? [])];
  if (contexts.length > 1) {
    if (values.demo) throw new CliError('--demo shows one simulated cluster: drop --context');
    return multiClusterDashboard(contexts, values, port, io);
  }
  const { startDashboard } = await import('./startDashboard.js');
  // The demo's faults also go to the page's connection log, once the page exists.
  let noteOnPage = (_text: string) => {};
  const onDemoFault = (what: string) => noteOnPage(`demo fault: ${what}`);
  return withClusterTarget(
    { ...values, context: contexts[0] },
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

/**
 * The dashboard of several contexts: one feed and one view per cluster, on one page. A context
 * that cannot be resolved (missing from the kubeconfig) fails the command before anything
 * starts; a cluster that fails later (unreachable, 403) shows that in its own view only.
 */
async function multiClusterDashboard(
  contexts: string[],
  values: { kubeconfig?: string | undefined; namespace?: string | undefined },
  port: number,
  io: CliIo,
): Promise<number> {
  const { resolveClusterTarget } = await import('../clusterTarget.js');
  const { startDashboard } = await import('./startDashboard.js');
  const targets = [];
  try {
    for (const context of contexts) {
      targets.push(
        await resolveClusterTarget({
          kubeconfig: values.kubeconfig,
          context,
          env: io.env,
          warn: io.warn,
        }),
      );
    }
    const dashboard = await startDashboard({
      port,
      warn: io.warn,
      clusters: targets.map((target) => ({
        cluster: target.cluster,
        clusterName: target.contextName,
        server: target.server,
        warn: (line: string) =>
          io.warn(line.replace(/^kube-rx: /, `kube-rx: ${target.contextName}: `)),
        ...(values.namespace !== undefined && { namespace: values.namespace }),
      })),
    });
    io.warn(`kube-rx: dashboard of ${contexts.join(', ')}; Ctrl-C stops it`);
    io.out(`${dashboard.url}\n`);
    await untilAborted(io.signal);
    await dashboard.close();
    return 0;
  } finally {
    for (const target of targets) await target.close();
  }
}
