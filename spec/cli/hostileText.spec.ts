import { afterAll, afterEach, beforeAll, describe, expect, it, jest } from '@jest/globals';
import type { V1Pod } from '@kubernetes/client-node';
import { KubeConfig } from '@kubernetes/client-node';
import { describeFailure } from '../../src/cli/CliError.js';
import { runCli } from '../../src/cli/runCli.js';
import { pods } from '../../src/objects/resources.js';
import { WatchError } from '../../src/WatchError.js';
import { FakeKubeApiServer } from '../../src/testing/fakeKubeApiServer/FakeKubeApiServer.js';
import { pod } from '../../src/testing/marbles/builders.js';
import { buildCli } from './support/cliBuild.js';
import { CliProcess, CliProcesses, isolatedEnv, writeKubeConfig } from './support/cliProcess.js';
import { removeTempDirs } from '../support/tempDirs.js';

jest.setTimeout(40_000);

// Text from the server reaches the user's terminal through `kube-rx watch`: object names in the
// table, in -o name and -o json, Status messages on stderr. None of it may carry a control
// character to the terminal (kubectl's CVE-2021-25743). HOSTILE sets the terminal's title to
// PWNED, rings, erases the line and goes back to its start; CSI is C1's one-character ESC [.
const HOSTILE = '\u001b]0;PWNED\u0007\u001b[2K\r';
const CSI = '\u009b';
const EVIL_NAME = `evil${HOSTILE}${CSI}2J`;
// Newlines end the lines the harness splits; any other control character is a failure.
// eslint-disable-next-line no-control-regex
const CONTROL_BUT_NEWLINE = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/;

let main: string;
let server: FakeKubeApiServer;
let env: NodeJS.ProcessEnv;
const clis = new CliProcesses();

function start(...args: string[]): CliProcess {
  return clis.start(main, args, env);
}

beforeAll(async () => {
  main = await buildCli();
  server = await FakeKubeApiServer.start({ bookmarkIntervalMs: 200 });
  env = isolatedEnv({ KUBECONFIG: writeKubeConfig(server.kubeConfig()) });
  const waiting: V1Pod['status'] = {
    phase: 'Pending',
    containerStatuses: [
      {
        name: 'main',
        image: 'nginx',
        imageID: '',
        ready: false,
        restartCount: 0,
        state: { waiting: { reason: `Crash${HOSTILE}` } },
      },
    ],
  };
  server.create(pods, pod(EVIL_NAME, '', { status: waiting }));
  server.create(pods, pod('web-1', ''));
}, 60_000);

afterEach(() => clis.killAll());

afterAll(async () => {
  await server?.stop();
});

// After the hooks above: the processes using the directories have ended.
afterAll(removeTempDirs);

describe('kube-rx watch with control characters in server text', () => {
  it('the table shows names and statuses with their control characters replaced', async () => {
    const cli = start('watch', 'pods');
    await cli.waitForStdout(/^web-1/);
    cli.interrupt();
    const result = await cli.exited;
    expect(result.code).toBe(0);
    expect(result.stdout).not.toMatch(CONTROL_BUT_NEWLINE);
    const row = result.stdout.split('\n').find((l) => l.startsWith('evil'));
    expect(row).toMatch(
      /^evil\\u001b\]0;PWNED\\u0007\\u001b\[2K\\u000d\\u009b2J\s+0\/1\s+Crash\\u001b/,
    );
    // Columns are as wide as the replaced text: the rows stay aligned.
    const lines = result.stdout.split('\n');
    expect(lines[0].indexOf('READY')).toBe(row!.indexOf('0/1'));
  });

  it('-o name replaces them too', async () => {
    const cli = start('watch', 'pods', '-o', 'name');
    await cli.waitForStdout(/^pod\/web-1$/);
    cli.interrupt();
    const result = await cli.exited;
    expect(result.stdout).not.toMatch(CONTROL_BUT_NEWLINE);
    expect(result.stdout).toContain('pod/evil\\u001b]0;PWNED\\u0007');
  });

  it('-o json keeps the exact name, escaped as JSON (C1 included)', async () => {
    const cli = start('watch', 'pods', '-o', 'json');
    await cli.waitForStdout(/"web-1"/);
    cli.interrupt();
    const result = await cli.exited;
    expect(result.stdout).not.toMatch(CONTROL_BUT_NEWLINE);
    const names = result.stdout
      .split('\n')
      .map((line) => (JSON.parse(line) as V1Pod).metadata?.name);
    expect(names).toContain(EVIL_NAME);
  });

  it('a 403 Status message on stderr has them replaced, and the command exits 1', async () => {
    // The list, not discovery (which the command reads first and may do without).
    server.faults.fail(403, {
      reason: `Forbidden${CSI}`,
      message: `no access${HOSTILE}`,
      match: 'list',
    });
    const result = await CliProcess.run(main, ['watch', 'pods'], env);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('no access\\u001b]0;PWNED\\u0007\\u001b[2K\\u000d');
    expect(result.stderr).not.toMatch(CONTROL_BUT_NEWLINE);
  });

  it('a retried 503 reported on stderr has them replaced', async () => {
    server.faults.fail(503, { message: `overloaded${HOSTILE}`, match: 'list' });
    const cli = start('watch', 'pods');
    await cli.waitForStderr(/reconnecting in .*overloaded/);
    await cli.waitForStdout(/^web-1/);
    cli.interrupt();
    const result = await cli.exited;
    expect(result.code).toBe(0);
    expect(result.stderr).toContain('overloaded\\u001b]0;PWNED');
    expect(result.stderr).not.toMatch(CONTROL_BUT_NEWLINE);
  });
});

describe('failure lines carry no credential and no control character', () => {
  it('describeFailure: a password in the server URL and an unexpected error are cleaned', () => {
    const ctx = { what: 'pods', server: 'https://admin:url-pw-4711@10.0.0.1:6443' };
    const unreachable = new WatchError('request failed: connect ECONNREFUSED (/api/v1/pods)', {
      errorType: 'SYSTEM_ERROR',
      statusCode: 0,
      resourcePath: '/api/v1/pods',
    });
    expect(describeFailure(unreachable, ctx)).toBe(
      'cannot reach the cluster at https://10.0.0.1:6443: request failed: connect ECONNREFUSED (/api/v1/pods)',
    );
    expect(describeFailure(new Error(`boom${HOSTILE}`), ctx)).toBe(
      'unexpected failure: boom\\u001b]0;PWNED\\u0007\\u001b[2K\\u000d',
    );
  });

  it('kube-rx watch against a server URL with a password: stderr never shows it', async () => {
    const kc = new KubeConfig();
    kc.loadFromOptions({
      clusters: [
        { name: 'c', server: 'http://admin:url-pw-4711@127.0.0.1:1', skipTLSVerify: true },
      ],
      users: [{ name: 'u', token: 'cli-token-123456' }],
      contexts: [{ name: 'c', cluster: 'c', user: 'u' }],
      currentContext: 'c',
    });
    const lines: string[] = [];
    const code = await runCli(['watch', 'pods'], {
      out: () => {},
      warn: (line) => lines.push(line),
      env: isolatedEnv({ KUBECONFIG: writeKubeConfig(kc) }),
      signal: new AbortController().signal,
      version: 'spec',
    });
    expect(code).toBe(1);
    expect(lines.join('\n')).toMatch(/cannot reach the cluster at http:\/\/127\.0\.0\.1:1/);
    expect(lines.join('\n')).not.toContain('url-pw-4711');
  });
});
