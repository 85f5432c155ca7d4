// What differs between Node and a browser page in resolving a cluster: in Node a KubeConfig
// resolves through the KubeConfig adapter (client-node, node:https); the browser entry's bundle
// (scripts/browserBundle.mjs) swaps in platform.browser.ts, which refuses it. Nothing else of the
// core imports client-node at run time.
export { resolveKubeConfig } from './kubeConfigConnection.js';
