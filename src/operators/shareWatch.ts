// The public face of shareWatch; its machinery (replay of the current state, one upstream) is in
// share/, beside the reference count createInformers uses.
export { shareWatch } from './share/shareWatch.js';
export type { ShareWatchConfig } from './share/shareWatch.js';
