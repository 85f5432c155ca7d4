// The public barrel of kube-rx. Types are exported with `export type`.
export * from './core.js';
export { kubeConfigConnection } from './client/connection/kubeConfigConnection.js';
