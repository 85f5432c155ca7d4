/**
 * The command cleans up its demo cluster's folder (a kubeconfig with a bearer token, in the
 * temporary directory) however it stops (issue 39): Ctrl-C (SIGINT), SIGTERM, a closed terminal
 * (SIGHUP), each exiting 0 as a stop by the user; an uncaught error, exiting 1 (DESIGN: "The
 * command exits 1 on an error that ends it, 0 when the user stops it").
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { existsSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { removeTempDirs } from '../support/tempDirs.js';
import { buildCli } from './support/cliBuild.js';
import { CliProcess, isolatedEnv } from './support/cliProcess.js';

let main: string;
const running: CliProcess[] = [];
beforeAll(async () => {
  main = await buildCli();
}, 180_000);
afterEach(async () => {
  for (const cli of running.splice(0)) {
    cli.kill();
    await cli.exited;
  }
});
afterAll(() => removeTempDirs());

/** Starts the dashboard on its demo cluster; resolves with the process and the demo's folder. */
async function startDemo(env = isolatedEnv()) {
  const cli = CliProcess.start(main, ['dashboard', '--demo', '--port', '0'], env);
  running.push(cli);
  const line = await cli.waitForStderr(/^KUBECONFIG=\S+$/);
  const folder = dirname(line.slice('KUBECONFIG='.length));
  expect(existsSync(folder)).toBe(true);
  return { cli, folder };
}

describe('the demo folder is removed however the command stops', () => {
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    it(`${signal}: removed, exit 0`, async () => {
      const { cli, folder } = await startDemo();
      cli.signal(signal);
      const result = await cli.exited;
      expect({ code: result.code, signal: result.signal }).toEqual({ code: 0, signal: null });
      expect(existsSync(folder)).toBe(false);
    });
  }

  it('an uncaught error: removed, exit 1, the error said', async () => {
    const injector = resolve('spec/cli/support/crashOnSignal.mjs');
    const { cli, folder } = await startDemo(isolatedEnv({ NODE_OPTIONS: `--import=${injector}` }));
    cli.signal('SIGUSR2');
    const result = await cli.exited;
    expect({ code: result.code, signal: result.signal }).toEqual({ code: 1, signal: null });
    expect(result.stderr).toMatch(/unexpected error: injected failure/);
    expect(existsSync(folder)).toBe(false);
  });
});
