import { parseArgs, type ParseArgsConfig } from 'node:util';
import { CliError } from './CliError.js';

type Options = NonNullable<ParseArgsConfig['options']>;

/** The flags every command takes. */
export const COMMON_OPTIONS = {
  help: { type: 'boolean', short: 'h' },
  context: { type: 'string' },
  kubeconfig: { type: 'string' },
  demo: { type: 'boolean' },
} as const satisfies Options;

/** What {@link parseCommandArgs} returns: the flags' values, typed per flag, and the positionals. */
export type ParsedCommandArgs<O extends Options> = ReturnType<
  typeof parseArgs<{ args: string[]; options: O; allowPositionals: true; strict: true }>
>;

/**
 * `node:util` `parseArgs`, strict, with its errors turned into one line that names the command
 * and points at its help (its own messages run long and suggest `--` tricks).
 *
 * @example
 * const { values, positionals } = parseCommandArgs('watch', argv, { output: { type: 'string', short: 'o' } });
 */
export function parseCommandArgs<O extends Options>(
  command: string,
  args: string[],
  options: O,
): ParsedCommandArgs<O> {
  try {
    return parseArgs({ args, options, allowPositionals: true, strict: true });
  } catch (error) {
    throw new CliError(`${flagProblem(error)} (see: kube-rx ${command} --help)`);
  }
}

function flagProblem(error: unknown): string {
  const { code, message } = error as { code?: string; message?: string };
  const flag = /'([^']+)'/.exec(message ?? '')?.[1];
  switch (code) {
    case 'ERR_PARSE_ARGS_UNKNOWN_OPTION':
      return `unknown flag ${flag ?? ''}`.trim();
    case 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE':
      return (message ?? 'bad flag value').split('.')[0].replace(/^Option/, 'flag');
    default:
      return message ?? String(error);
  }
}

/**
 * The value of `--port`: an integer in [0, 65535] (0 picks a free port).
 *
 * @example
 * parsePort('8080'); // 8080
 */
export function parsePort(value: string | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  const port = Number(value);
  if (!/^\d+$/.test(value) || port > 65535) {
    throw new CliError(
      `bad --port "${value}": expected a number from 0 to 65535 (0 picks a free port)`,
    );
  }
  return port;
}
