import { PAGE_SCRIPT } from './pageScript.js';
import { PAGE_STYLES } from './pageStyles.js';

/**
 * The dashboard's one HTML page, self-contained: CSS and script inline, no framework, nothing
 * fetched from anywhere but `/events` on the same origin.
 *
 * @example
 * response.end(dashboardPage());
 */
export function dashboardPage(): string {
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
  <div class="cluster"><b id="cluster-name">…</b> · <span id="scope">all namespaces</span></div>
  <span id="demo" class="badge demo" hidden title="An embedded fake API server with a simulated cluster: nothing shown is real">Simulated cluster</span>
  <div class="spacer"></div>
  <div class="stat"><b id="rate">0</b> events/s · <b id="total">0</b> total</div>
  <div id="connection" class="pill connecting" data-state="connecting"><span class="dot"></span><span id="connection-text">Connecting…</span></div>
</header>
<div class="toolbar">
  <input id="filter" type="search" placeholder="Filter by name, namespace, node or status" autocomplete="off">
  <span id="summary" class="summary"></span>
</div>
<div id="error" class="banner" role="alert" hidden></div>
<main id="deployments"></main>
<footer>
  <h2>Connection log</h2>
  <ul id="log"></ul>
</footer>
<script>${PAGE_SCRIPT}</script>
</body>
</html>
`;
}
