/** The page's CSS (inline: the dashboard serves one self-contained page, no CDN). */
export const PAGE_STYLES = `
:root {
  --bg: #f4f6fa; --card: #ffffff; --ink: #1b2330; --muted: #667085; --line: #e4e8ef;
  --bar: #0f1729; --ok: #12a150; --warn: #d98b00; --bad: #d92d20; --info: #2e6fdb; --idle: #98a2b3;
  --mono: ui-monospace, SFMono-Regular, Menlo, Consolas, "Liberation Mono", monospace;
}
* { box-sizing: border-box; }
body { margin: 0; background: var(--bg); color: var(--ink);
  font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "Noto Sans", sans-serif; }
header.top { position: sticky; top: 0; z-index: 2; display: flex; flex-wrap: wrap; align-items: center; gap: 8px 18px;
  padding: 12px 24px; background: var(--bar); color: #e6ebf5; box-shadow: 0 1px 0 rgba(0,0,0,.2); }
.brand { font-weight: 700; font-size: 17px; letter-spacing: .2px; white-space: nowrap; }
.brand small { font-weight: 500; color: #9aa7bd; margin-left: 6px; }
.cluster { color: #c6d0e1; white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
.cluster b { color: #fff; font-weight: 600; }
.badge { padding: 2px 9px; border-radius: 999px; font-size: 12px; font-weight: 600; white-space: nowrap; }
.badge.demo { background: #ffcc4d; color: #3d2c00; }
.spacer { flex: 1; }
.stat { color: #c6d0e1; white-space: nowrap; font-variant-numeric: tabular-nums; }
.stat b { color: #fff; }
.pill { display: inline-flex; align-items: center; gap: 7px; padding: 4px 12px; border-radius: 999px;
  background: rgba(255,255,255,.08); font-weight: 600; white-space: nowrap; }
.pill .dot { width: 9px; height: 9px; border-radius: 50%; background: var(--idle); }
.pill.live .dot { background: #2bd576; box-shadow: 0 0 0 3px rgba(43,213,118,.25); }
.pill.reconnecting .dot, .pill.connecting .dot { background: #ffb020; animation: pulse 1s infinite; }
.pill.relisting .dot { background: #5b9dff; animation: pulse .7s infinite; }
.pill.failed .dot, .pill.offline .dot { background: #ff5a4f; }
@keyframes pulse { 50% { opacity: .3; } }
header.top input { flex: 0 1 380px; padding: 7px 12px; border: 1px solid #2a3550; border-radius: 8px;
  font: inherit; background: #1a2540; color: #fff; }
.viewbar { display: flex; flex-wrap: wrap; align-items: center; gap: 8px 18px; margin: 16px 24px 0;
  padding: 10px 16px; border-radius: 10px; background: #1c2740; color: #e6ebf5; }
.view + .view { border-top: 2px solid var(--line); margin-top: 8px; }
.toolbar { display: flex; gap: 12px; align-items: center; padding: 10px 24px 0; }
.toolbar .summary { color: var(--muted); }
.banner { margin: 14px 24px 0; padding: 10px 14px; border-radius: 8px; background: #fdecea;
  color: #8a1c12; border: 1px solid #f5c2bd; }
.banner[hidden] { display: none; }
main { display: grid; grid-template-columns: repeat(auto-fill, minmax(min(620px, 100%), 1fr)); gap: 16px; padding: 16px 24px; }
.empty { grid-column: 1 / -1; color: var(--muted); padding: 40px; text-align: center; }
.card { background: var(--card); border: 1px solid var(--line); border-radius: 10px; overflow: hidden;
  box-shadow: 0 1px 2px rgba(16,24,40,.05); }
.card > header { display: flex; align-items: center; gap: 12px; padding: 12px 16px 6px; }
.card .name { font-weight: 700; font-size: 15px; }
.card .ns { font-size: 12px; color: var(--muted); background: #eef1f6; padding: 1px 8px; border-radius: 999px; }
.card .replicas { margin-left: auto; display: flex; align-items: center; gap: 10px; white-space: nowrap;
  font-variant-numeric: tabular-nums; color: var(--muted); }
.card .replicas b { color: var(--ink); font-size: 15px; }
.bar { width: 110px; height: 8px; background: #edf0f5; border-radius: 99px; overflow: hidden; }
.bar > div { height: 100%; width: 0; background: var(--ok); transition: width .3s ease; }
.card.partial .bar > div { background: var(--warn); }
.card.down .bar > div { background: var(--bad); }
.card .image { padding: 0 16px 8px; font: 12px var(--mono); color: var(--muted); }
.card.orphans > header .name { color: var(--muted); }
/* Fixed layout: long pod names get an ellipsis (and a tooltip) instead of pushing columns out. */
table { width: 100%; border-collapse: collapse; font-variant-numeric: tabular-nums; table-layout: fixed; }
th { text-align: left; font-size: 11px; text-transform: uppercase; letter-spacing: .5px; color: var(--muted);
  font-weight: 600; padding: 6px 12px; border-top: 1px solid var(--line); background: #fafbfc; }
th.c-status { width: 196px; } th.c-restarts { width: 86px; } th.c-age { width: 74px; }
th.c-node { width: 116px; }
th:first-child, td:first-child { padding-left: 16px; }
td { padding: 6px 12px; border-top: 1px solid var(--line); white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
td.pod { font: 13px var(--mono); }
td.num { text-align: right; }
th.num { text-align: right; }
td.node { color: var(--muted); font-size: 13px; }
td.restarts.hot { color: var(--bad); font-weight: 700; }
.status { display: inline-flex; align-items: center; gap: 7px; font-weight: 600; font-size: 13px; }
.status::before { content: ""; width: 8px; height: 8px; border-radius: 50%; background: var(--idle); }
tr.ok .status { color: #0b7a3b; } tr.ok .status::before { background: var(--ok); }
tr.progressing .status { color: #9a6400; } tr.progressing .status::before { background: var(--warn); }
tr.failing .status { color: var(--bad); } tr.failing .status::before { background: var(--bad); }
tr.terminating { opacity: .55; } tr.terminating .status::before { background: var(--idle); }
tr.done .status { color: var(--muted); }
tr.fresh td { animation: fresh 1.2s ease-out; }
@keyframes fresh { from { background: #e7f0ff; } to { background: transparent; } }
.nopods td { color: var(--muted); font-style: italic; }
footer { padding: 0 24px 24px; }
footer h2 { font-size: 12px; text-transform: uppercase; letter-spacing: .5px; color: var(--muted); margin: 4px 0 6px; }
.log { margin: 0; padding: 10px 14px; background: #fff; border: 1px solid var(--line); border-radius: 8px;
  font: 12px/1.6 var(--mono); color: #344054; max-height: 180px; overflow: auto; list-style: none; }
.log time { color: var(--muted); margin-right: 10px; }
`;
