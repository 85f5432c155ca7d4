import { PAGE_SCRIPT } from './pageScript.js';
import { PAGE_STYLES } from './pageStyles.js';

/** `&`, `<`, `>`, `"` and `'` as entities: a context name is text, never markup. */
function escapeHtml(text: string): string {
  return text.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!,
  );
}

/** One cluster's part of the page: its bar (name, rates, connection state), banner, cards, log. */
function view(index: number, clusterName: string): string {
  const name = escapeHtml(clusterName);
  return `<section class="view" data-view="${index}" data-cluster="${name}">
<div class="viewbar">
  <div class="cluster"><b data-part="cluster-name">${name}</b> · <span data-part="scope">all namespaces</span></div>
  <span data-part="demo" class="badge demo" hidden title="An embedded fake API server with a simulated cluster: nothing shown is real">Simulated cluster</span>
  <div class="spacer"></div>
  <div class="stat"><b data-part="rate">0</b> events/s · <b data-part="total">0</b> total</div>
  <div data-part="connection" class="pill connecting" data-state="connecting"><span class="dot"></span><span data-part="connection-text">Connecting…</span></div>
</div>
<div class="toolbar"><span data-part="summary" class="summary"></span></div>
<div data-part="error" class="banner" role="alert" hidden></div>
<main data-part="deployments"></main>
<footer>
  <h2>Connection log</h2>
  <ul data-part="log" class="log"></ul>
</footer>
</section>`;
}

/**
 * The dashboard's one HTML page, self-contained: CSS and script inline, no framework, nothing
 * fetched from anywhere but `/events` on the same origin. One view per cluster, in the order
 * given (`--context` several times shows several).
 *
 * @example
 * response.end(dashboardPage(['prod', 'staging']));
 */
export function dashboardPage(clusterNames: readonly string[] = ['']): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>kube-rx dashboard</title>
<link rel="icon" href="data:,">
<style>${PAGE_STYLES}</style>
</head>
<body>
<header class="top">
  <div class="brand">kube-rx<small>dashboard</small></div>
  <div class="spacer"></div>
  <input id="filter" type="search" placeholder="Filter by name, namespace, node or status" autocomplete="off">
</header>
${clusterNames.map((name, i) => view(i, name)).join('\n')}
<script>${PAGE_SCRIPT}</script>
</body>
</html>
`;
}
