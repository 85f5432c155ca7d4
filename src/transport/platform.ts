// What differs between Node and a browser page in HTTP, behind one module chosen by entry point:
// the Node build uses this one (undici, node:http2, node:zlib); the browser entry's
// bundle (scripts/browserBundle.mjs) swaps in platform.browser.ts, with the same exports and
// types. The KubeConfig adapter has its own switch one floor up (src/client/connection/platform.ts).
export { exchange } from './exchange.js';
export { decompress } from './decompress.js';
export { bodyText } from './bodyText.js';
