import { runCli } from '../../../../src/cli/runCli.js';

/** How one in-process run of `kube-rx` ended. */
export interface CrdTypesRun {
  code: number;
  /** Everything written to stdout. */
  out: string;
  /** The lines written to stderr. */
  warnings: string[];
}

/**
 * Runs `kube-rx crd-types ...args` in this process (as `runCli` does for the binary) with
 * `env` (give an isolated one: see spec/cli/support/cliProcess.ts) and collects its output.
 *
 * @example
 * const { code, out } = await crdTypes(['crontab.yaml'], env);
 */
export async function crdTypes(args: string[], env: NodeJS.ProcessEnv): Promise<CrdTypesRun> {
  const out: string[] = [];
  const warnings: string[] = [];
  const code = await runCli(['crd-types', ...args], {
    out: (text) => out.push(text),
    warn: (line) => warnings.push(line),
    env,
    signal: new AbortController().signal,
    version: 'spec',
  });
  return { code, out: out.join(''), warnings };
}
