import { crdTypesCommand } from './crdTypes/crdTypesCommand.js';
import { dashboardCommand } from './dashboard/dashboardCommand.js';
import { CliError } from './CliError.js';
import { MAIN_HELP } from './help.js';
import type { CliIo } from './CliIo.js';
import { watchCommand } from './watch/watchCommand.js';
import { redactSecrets } from '../security/redactSecrets.js';
import { replaceControlCharactersKeepingLines } from '../security/sanitizeText.js';

/** Everything {@link runCli} needs: the command's IO and the version to print. */
export interface RunCliIo extends CliIo {
  version: string;
}

const COMMANDS: Record<string, (args: string[], io: CliIo) => Promise<number>> = {
  watch: watchCommand,
  dashboard: dashboardCommand,
  'crd-types': crdTypesCommand,
};

/**
 * Runs `kube-rx` with `argv` (without node and the script) and resolves with the exit code:
 * 0 on success or Ctrl-C, 1 with a one-line `kube-rx: ...` message on stderr for any failure.
 *
 * @example
 * process.exitCode = await runCli(['watch', 'pods'], io);
 */
export async function runCli(argv: string[], terminalIo: RunCliIo): Promise<number> {
  // Server text reaches stderr inside messages: no credential and no control character of it
  // gets to the terminal.
  const io = {
    ...terminalIo,
    warn: (line: string) =>
      terminalIo.warn(replaceControlCharactersKeepingLines(redactSecrets(line, Infinity))),
  };
  const [first, ...rest] = argv;
  try {
    if (first === '--version' || first === '-v') {
      io.out(`kube-rx ${io.version}\n`);
      return 0;
    }
    if (first === undefined || first === '--help' || first === '-h' || first === 'help') {
      io.out(MAIN_HELP);
      return first === undefined ? 1 : 0;
    }
    const command = COMMANDS[first];
    if (!command) {
      const what = first.startsWith('-') ? `unknown flag ${first}` : `unknown command "${first}"`;
      throw new CliError(`${what}: expected watch, dashboard or crd-types (see: kube-rx --help)`);
    }
    return await command(rest, io);
  } catch (error) {
    const message =
      error instanceof CliError
        ? error.message
        : `unexpected failure: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`;
    io.warn(`kube-rx: ${message}`);
    return error instanceof CliError ? error.exitCode : 1;
  }
}
