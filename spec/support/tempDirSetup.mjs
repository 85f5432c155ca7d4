// Jest globalSetup: the whole run gets a temporary directory of its own, and every process of the
// run (jest's workers, and the children that inherit their environment) uses it as os.tmpdir().
// tempDirTeardown.mjs then fails the run, naming them, if `kube-rx-*` entries are left in it.
//
// Why a directory of the run's own rather than comparing /tmp before and after: this machine (a
// developer's, or a shared one) runs other processes at the same time, another test run among
// them, whose `kube-rx-*` entries would appear in /tmp during this run and fail it spuriously.
// Inside the run's directory, everything that appeared is this run's. It also catches entries
// made by the library itself (the demo cluster's kubeconfig directory), which no per-run name
// prefix set by the spec helpers would reach.
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** The prefix of a run's directory; the jest process id follows it. */
export const RUN_PREFIX = 'kube-rx-spec-run-';

export default function tempDirSetup() {
  const outer = tmpdir();
  removeAbandonedRuns(outer);
  const dir = mkdtempSync(join(outer, `${RUN_PREFIX}${process.pid}-`));
  process.env.KUBE_RX_SPEC_OUTER_TMPDIR = process.env.TMPDIR ?? '';
  process.env.KUBE_RX_SPEC_TMPDIR = dir;
  // os.tmpdir() reads TMPDIR at every call; jest forks its workers after globalSetup, with this
  // environment, and an in-band run (one spec file) runs in this very process.
  process.env.TMPDIR = dir;
}

/**
 * Removes the directories of runs whose jest process is gone (interrupted with Ctrl-C before
 * their teardown), never one of a run still going.
 */
function removeAbandonedRuns(outer) {
  for (const name of readdirSync(outer)) {
    const match = new RegExp(`^${RUN_PREFIX}(\\d+)-`).exec(name);
    if (!match || alive(Number(match[1]))) continue;
    try {
      rmSync(join(outer, name), { recursive: true, force: true });
    } catch {
      // Another user's: not ours to remove.
    }
  }
}

function alive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it runs, as another user.
    return error.code === 'EPERM';
  }
}
