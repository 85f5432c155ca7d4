#!/usr/bin/env node
// The `kube-rx` command: `kube-rx watch ...`, `kube-rx dashboard ...`, `kube-rx crd-types ...`.
import { runCli } from './runCli.js';
import { packageVersion } from './version.js';

const controller = new AbortController();
let interrupted = false;
const interrupt = () => {
  // A second Ctrl-C while stopping means "now": leave without cleaning up.
  if (interrupted) process.exit(130);
  interrupted = true;
  controller.abort();
};
process.on('SIGINT', interrupt);
process.on('SIGTERM', interrupt);
// `kube-rx watch pods | head`: the reader went away; stop as if interrupted.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code === 'EPIPE') interrupt();
});

const code = await runCli(process.argv.slice(2), {
  out: (text) => void process.stdout.write(text),
  warn: (line) => void process.stderr.write(`${line}\n`),
  env: process.env,
  signal: controller.signal,
  version: packageVersion(import.meta.url),
});
// Exit explicitly once stdout is flushed: keep-alive sockets must not hold the process open.
process.stdout.write('', () => process.exit(code));
