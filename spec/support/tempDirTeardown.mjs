// Jest globalTeardown: fails the run, naming them, if `kube-rx-*` entries are left in the run's
// temporary directory (see tempDirSetup.mjs), then removes that directory whatever it holds, so
// that even a failing run leaves nothing behind. Only `kube-rx-*` entries count: the others are
// what programs the specs drive make for themselves (Chromium's), not ours to name.
import { readdirSync, rmSync } from 'node:fs';

export default function tempDirTeardown() {
  const dir = process.env.KUBE_RX_SPEC_TMPDIR;
  if (!dir) return;
  const left = readdirSync(dir)
    .filter((name) => name.startsWith('kube-rx-'))
    .sort();
  const problems = [];
  if (left.length > 0) {
    problems.push(
      `the specs left ${left.length} entries in the temporary directory ` +
        `(each spec must remove what it creates): ${left.join(', ')}`,
    );
  }
  try {
    // A process a failed spec left running (a browser whose launch timed out) may still be
    // writing into its directory: a few tries.
    rmSync(dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 200 });
  } catch (error) {
    problems.push(`${dir} could not be removed (${error.code ?? error.message})`);
  }
  const outer = process.env.KUBE_RX_SPEC_OUTER_TMPDIR;
  if (outer) process.env.TMPDIR = outer;
  else delete process.env.TMPDIR;
  delete process.env.KUBE_RX_SPEC_TMPDIR;
  if (problems.length > 0) throw new Error(problems.join('; '));
}
