// The command line of a benchmark: `--key=value` (or `--flag`, which is 'true') as an object.

/**
 * The options of a benchmark's command line.
 *
 * @example
 * // node bench/watch.bench.mjs --rounds=3 --quick
 * benchArgs(); // { rounds: '3', quick: 'true' }
 */
export function benchArgs(argv = process.argv.slice(2)) {
  return Object.fromEntries(
    argv.map((arg) => {
      const [key, value = 'true'] = arg.replace(/^--/, '').split('=');
      return [key, value];
    }),
  );
}
