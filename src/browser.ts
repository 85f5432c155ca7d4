// The browser entry of kube-rx (the `browser` condition of the package's exports): everything of
// the Node entry (index.ts) but the KubeConfig adapter. Its bundle (dist/browser.js, made by
// scripts/browserBundle.mjs) sends requests with fetch + ReadableStream (platform.browser.ts);
// the cluster is a ClusterConnection resolving { server, headers }, a same-origin proxy
// typically. spec/browser/browserEntry.spec.ts keeps the two entries' exports in step.
export * from './core.js';
