// Loaded with `--import` into a kube-rx process by spec/cli/signals.spec.ts: SIGUSR2 makes it
// throw from a listener, which nothing catches: the uncaught error the command must survive
// with its cleanup done.
process.on('SIGUSR2', () => {
  throw new Error('injected failure');
});
