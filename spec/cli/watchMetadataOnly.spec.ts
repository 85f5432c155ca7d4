import { afterAll, afterEach, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { pods } from '../../src/objects/resources.js';
import { FakeKubeApiServer } from '../../src/testing/fakeKubeApiServer/FakeKubeApiServer.js';
import { pod } from '../../src/testing/marbles/builders.js';
import { buildCli } from './support/cliBuild.js';
import { CliProcess, CliProcesses, isolatedEnv, writeKubeConfig } from './support/cliProcess.js';
import { removeTempDirs } from '../support/tempDirs.js';

// Child processes start slowly on a busy machine (the Kubernetes client alone loads in 0.5 s).
jest.setTimeout(60_000);

let main: string;
let server: FakeKubeApiServer;
let env: NodeJS.ProcessEnv;
const clis = new CliProcesses();

beforeAll(async () => {
  main = await buildCli();
  server = await FakeKubeApiServer.start();
  for (const name of ['pod-0', 'pod-1']) server.create(pods, pod(name, ''));
  env = isolatedEnv({ KUBECONFIG: writeKubeConfig(server.kubeConfig()) });
}, 240_000);

afterEach(() => clis.killAll());

afterAll(() => server?.stop());

// After the hooks above: the processes using the directories have ended.
afterAll(removeTempDirs);

describe('kube-rx watch --metadata-only', () => {
  it('asks for PartialObjectMetadata and prints names by default', async () => {
    const cli = CliProcess.start(main, ['watch', 'pods', '-A', '--metadata-only'], env);
    clis.keep(cli);
    await cli.waitForStdout(/pod\/pod-1/, 30_000);
    expect(cli.stdoutLines.slice(0, 2)).toEqual(['pod/pod-0', 'pod/pod-1']);
    // The list and the watch of pods (discovery, read first, asks for plain JSON).
    const accepts = server.requests
      .filter((r) => r.path === '/api/v1/pods')
      .map((r) => String(r.headers.accept ?? ''));
    expect(accepts.length).toBeGreaterThan(0);
    expect(accepts.every((a) => a.startsWith('application/json;as=PartialObjectMetadata'))).toBe(
      true,
    );
  });

  it('-o json prints the metadata objects', async () => {
    const cli = CliProcess.start(
      main,
      ['watch', 'pods', '-A', '--metadata-only', '-o', 'json'],
      env,
    );
    clis.keep(cli);
    const line = await cli.waitForStdout(/"pod-0"/, 30_000);
    const object = JSON.parse(line) as Record<string, unknown>;
    expect(Object.keys(object).sort()).toEqual(['apiVersion', 'kind', 'metadata']);
    expect(object.kind).toBe('PartialObjectMetadata');
  });

  it('refuses -o table', async () => {
    const result = await CliProcess.run(
      main,
      ['watch', 'pods', '--metadata-only', '-o', 'table'],
      env,
    );
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('--metadata-only prints -o name or -o json');
  });
});
