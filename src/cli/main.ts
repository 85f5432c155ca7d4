#!/usr/bin/env node
// The `kube-rx` command: `kube-rx watch ...`, `kube-rx dashboard ...`, `kube-rx crd-types ...`.
import { runCli } from './runCli.js';
import { packageVersion } from './packageVersion.js';
import { replaceControlCharacters } from '../security/sanitizeText.js';

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
// The terminal was closed (`npm start` in a window the user shut): stopped by the user too.
process.on('SIGHUP', interrupt);
// An error nothing caught ends the command with 1; exiting runs the 'exit' cleanups (the demo
// cluster's folder with its token), which a crash would otherwise skip.
const crash = (error: unknown) => {
  const text = error instanceof Error ? error.message : String(error);
  process.stderr.write(`kube-rx: unexpected error: ${replaceControlCharacters(text)}\n`);
  process.exit(1);
};
process.on('uncaughtException', crash);
process.on('unhandledRejection', crash);
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
