import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { delimiter, join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { kubeConfigConnection } from '../client/connection/kubeConfigConnection.js';
import type { ClusterConnection } from '../types.js';
import { DemoCluster } from './demo/DemoCluster.js';
import { CliError } from './CliError.js';

/** Where a command connects, resolved from the flags and the environment. */
export interface ClusterTarget {
  /** The connection every watch uses (credentials resolved afresh per request). */
  cluster: ClusterConnection;
  /** The API server URL, for messages. */
  server: string;
  /** The kubeconfig context, or `kube-rx-demo`. */
  contextName: string;
  /** The namespace of the context (`default` when it has none). */
  namespace: string;
  /** The embedded simulated cluster, when that is what this is. */
  demo?: DemoCluster;
  /** Stops the demo cluster, if any. */
  close(): Promise<void>;
}

/** What decides the target: the flags, the environment, and where to say what happens. */
export interface TargetOptions {
  kubeconfig?: string;
  context?: string;
  demo?: boolean;
  env?: NodeJS.ProcessEnv;
  /** Writes a line to stderr. */
  warn: (line: string) => void;
  /** Told when the demo cluster injects a fault (besides the line on stderr). */
  onDemoFault?: (description: string) => void;
}

/**
 * The cluster to talk to, from the kubeconfig kubectl would use (the files of `KUBECONFIG`
 * merged as kubectl merges them, else `~/.kube/config`, else the pod's service account).
 * `--demo`, no kubeconfig at all, or a kubeconfig found by default that fails to load starts the
 * embedded simulated cluster and says so. A kubeconfig or context asked for by flag must work,
 * or this throws a {@link CliError}: quietly showing a fake cluster instead would be a lie.
 *
 * @example
 * const target = await resolveClusterTarget({ context: 'staging', warn: console.error });
 */
export async function resolveClusterTarget(options: TargetOptions): Promise<ClusterTarget> {
  const env = options.env ?? process.env;
  if (options.demo) return startDemo(options, '--demo given');
  const explicit = options.kubeconfig !== undefined || options.context !== undefined;
  const files = options.kubeconfig !== undefined ? [options.kubeconfig] : defaultFiles(env);
  if (files.length === 0) {
    if (!explicit && runsInCluster(env)) return inClusterTarget();
    const why = env.KUBECONFIG
      ? 'none of the KUBECONFIG files exists'
      : 'no KUBECONFIG, no ~/.kube/config';
    return startDemo(options, `no kubeconfig found (${why})`);
  }
  try {
    return loadTarget(files, options.context);
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    if (explicit) throw new CliError(`bad kubeconfig: ${why}`);
    return startDemo(options, `the kubeconfig could not be used (${why})`);
  }
}

/**
 * The kubeconfig files kubectl would read: those of `KUBECONFIG` (a list) that exist, else
 * `~/.kube/config` if it exists.
 */
function defaultFiles(env: NodeJS.ProcessEnv): string[] {
  if (env.KUBECONFIG)
    return env.KUBECONFIG.split(delimiter).filter((f) => f !== '' && existsSync(f));
  const file = join(homedir(), '.kube', 'config');
  return existsSync(file) ? [file] : [];
}

const SERVICE_ACCOUNT_TOKEN = '/var/run/secrets/kubernetes.io/serviceaccount/token';

/** Inside a pod, with its service account mounted: the cluster it runs in, as kubectl does. */
function runsInCluster(env: NodeJS.ProcessEnv): boolean {
  return Boolean(env.KUBERNETES_SERVICE_HOST) && existsSync(SERVICE_ACCOUNT_TOKEN);
}

function inClusterTarget(): ClusterTarget {
  const kc = new KubeConfig();
  kc.loadFromCluster();
  const server = kc.getCurrentCluster()?.server ?? '';
  return {
    cluster: kubeConfigConnection(kc),
    server,
    contextName: 'in-cluster',
    namespace: kc.getContextObject(kc.getCurrentContext())?.namespace || 'default',
    close: async () => {},
  };
}

function loadTarget(files: string[], context: string | undefined): ClusterTarget {
  const kc = new KubeConfig();
  for (const file of files) mergeFirstWins(kc, loadFile(file));
  const where = files.join(delimiter);
  const contextName = context ?? kc.getCurrentContext();
  if (!contextName) throw new Error(`${where} has no current-context (use --context)`);
  const contextObject = kc.getContextObject(contextName);
  if (!contextObject) throw new Error(`${where} has no context named "${contextName}"`);
  const cluster = kc.getCluster(contextObject.cluster);
  if (!cluster?.server)
    throw new Error(`context "${contextName}" in ${where} names no cluster with a server`);
  return {
    cluster: kubeConfigConnection(kc, { context: contextName }),
    server: cluster.server,
    contextName,
    namespace: contextObject.namespace || 'default',
    close: async () => {},
  };
}

function loadFile(file: string): KubeConfig {
  if (!existsSync(file)) throw new Error(`${file} does not exist`);
  const kc = new KubeConfig();
  try {
    kc.loadFromFile(file);
  } catch (error) {
    throw new Error(`${file}: ${error instanceof Error ? error.message.split('\n')[0] : error}`);
  }
  return kc;
}

/**
 * Merges as kubectl does: the first file to set current-context, or to name a cluster, user or
 * context, wins. (client-node's `mergeConfig` lets the last current-context win and throws on a
 * name given twice.)
 */
function mergeFirstWins(into: KubeConfig, from: KubeConfig): void {
  if (!into.getCurrentContext()) into.setCurrentContext(from.getCurrentContext());
  for (const cluster of from.getClusters())
    if (!into.getCluster(cluster.name)) into.addCluster(cluster);
  for (const user of from.getUsers()) if (!into.getUser(user.name)) into.addUser(user);
  for (const ctx of from.getContexts()) if (!into.getContextObject(ctx.name)) into.addContext(ctx);
}

async function startDemo(options: TargetOptions, why: string): Promise<ClusterTarget> {
  const demo = await DemoCluster.start({
    onFault: (what) => {
      options.warn(`kube-rx: demo fault: ${what}`);
      options.onDemoFault?.(what);
    },
  });
  options.warn(
    `kube-rx: ${why}: using a SIMULATED demo cluster (an embedded fake API server at ${demo.url}); nothing shown is real.`,
  );
  // A line of its own, to copy: kubectl can change the demo cluster while kube-rx shows it.
  const kubeconfig = `KUBECONFIG=${shellQuoted(demo.kubeConfigPath)}`;
  options.warn(kubeconfig);
  options.warn(
    `kube-rx: that is the demo cluster's kubeconfig (removed when kube-rx stops); try: ${kubeconfig} kubectl get pods -n ${DemoCluster.namespace}`,
  );
  return {
    cluster: kubeConfigConnection(demo.kubeConfig()),
    server: demo.url,
    contextName: 'kube-rx-demo',
    namespace: DemoCluster.namespace,
    demo,
    close: () => demo.stop(),
  };
}

/** `path` as a shell word: as is when it has only safe characters, else in single quotes. */
function shellQuoted(path: string): string {
  return /^[\w./-]+$/.test(path) ? path : `'${path.replaceAll("'", `'\\''`)}'`;
}
