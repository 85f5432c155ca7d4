// Jest's node environment, with one change to how a jest worker process ends.
//
// A worker ends naturally: jest-worker sends it END, and once nothing holds its event loop it
// emits 'exit' and Node then frees the whole heap (isolate disposal) before the process is gone.
// Measured here (timestamps of jest-worker's END, the worker's 'exit' event and the parent's
// SIGTERM): the workers reached 'exit' 1-2 ms after END with only stdio open, then spent more
// than jest-worker's 500 ms budget freeing heaps of 800+ MB on a busy machine, and were killed
// with "A worker process has failed to exit gracefully". So once 'exit' is emitted (the event
// loop is empty: a leaked socket, timer or child process still keeps it from ever firing, and
// jest still says so), the worker leaves at once instead of tearing its heap down.
import { TestEnvironment } from 'jest-environment-node';

let installed = false;

export default class NodeEnvironment extends TestEnvironment {
  constructor(config, context) {
    super(config, context);
    // Only in jest-worker's child processes (they have an IPC channel), never in-band runs.
    if (!installed && typeof process.send === 'function') {
      installed = true;
      // Calling exit from an 'exit' listener skips the rest of the natural teardown.
      process.on('exit', (code) => process.exit(code));
    }
  }
}
