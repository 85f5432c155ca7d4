// kube-rx/testing: what users import to test their pipelines.
export * from './marbles/builders.js';
export { marbleWatchSource } from './marbles/marbleWatchSource.js';
export type { MarbleWatchSource, MarbleWatchSourceConfig } from './marbles/marbleWatchSource.js';
