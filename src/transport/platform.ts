// What differs between Node and a browser page, behind one module chosen by entry point: the
// Node build uses this one (undici, node:zlib, the KubeConfig adapter); the browser entry's
// bundle (scripts/browserBundle.mjs) swaps in platform.browser.ts, with the same exports and
// types. Nothing else in the core imports a Node built-in or client-node at run time.
export { exchange } from './exchange.js';
export { decompress } from './decompress.js';
export { bodyText } from './bodyText.js';
export { resolveKubeConfig } from '../sources/kubeConfigConnection.js';
