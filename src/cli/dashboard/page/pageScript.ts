/**
 * The page's script (inline, plain ES2020, no framework). The page has one view (a
 * `section.view[data-view=i]`) per cluster; each keeps the rows from the `snapshot` and `diff`
 * messages of `/events` tagged with its index (`view`), and renders at most once per animation
 * frame, reusing the DOM element of every card and pod row (keyed by `namespace/name`) so that
 * only what changed is touched. A view's connection state and errors are its own: one cluster
 * failing never hides another. Text goes in through `textContent` only: nothing from the cluster is parsed as HTML.
 * Kept free of backticks and template placeholders: it lives in a template string.
 */
export const PAGE_SCRIPT = String.raw`
(function () {
  'use strict';
  var online = false;
  var filter = '';
  var ORPHANS = '\u0000orphans';

  function el(tag, className, text) {
    var node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined) node.textContent = text;
    return node;
  }
  function byId(id) { return document.getElementById(id); }
  function setText(node, text) { if (node.textContent !== text) node.textContent = text; }

  // humanDuration of src/cli/format/age.ts (kubectl's ages), which the page cannot import.
  function age(iso) {
    if (!iso) return '';
    var s = Math.max(0, Math.floor((Date.now() - Date.parse(iso)) / 1000));
    if (s < 120) return s + 's';
    var m = Math.floor(s / 60);
    if (m < 10) return m + 'm' + (s % 60 ? (s % 60) + 's' : '');
    if (m < 180) return m + 'm';
    var h = Math.floor(m / 60);
    if (h < 8) return h + 'h' + (m % 60 ? (m % 60) + 'm' : '');
    if (h < 48) return h + 'h';
    var d = Math.floor(h / 24);
    if (d < 8) return d + 'd' + (h % 24 ? (h % 24) + 'h' : '');
    return d < 365 * 2 ? d + 'd' : Math.floor(d / 365) + 'y';
  }

  function View(root) {
  var deployments = new Map();
  var pods = new Map();
  var status = null;
  var scheduled = false;
  var cards = new Map();
  var podRows = new Map();
  var seenPods = null;
  var notes = [];
  function part(name) { return root.querySelector('[data-part="' + name + '"]'); }
  function apply(rows) {
    for (var i = 0; i < rows.length; i++) {
      var row = rows[i];
      (row.kind === 'pod' ? pods : deployments).set(row.id, row);
    }
  }
  function remove(keys) {
    for (var i = 0; i < keys.length; i++) {
      var at = keys[i].indexOf(':');
      var kind = keys[i].slice(0, at);
      (kind === 'pod' ? pods : deployments).delete(keys[i].slice(at + 1));
    }
  }
  function schedule() {
    if (scheduled) return;
    scheduled = true;
    requestAnimationFrame(function () { scheduled = false; render(); });
  }

  function matches(text) { return !filter || text.toLowerCase().indexOf(filter) !== -1; }
  function podMatches(p) { return matches(p.name + ' ' + p.namespace + ' ' + p.node + ' ' + p.status); }
  function compareIds(a, b) { return a < b ? -1 : a > b ? 1 : 0; }

  function card(id) {
    var c = cards.get(id);
    if (c) return c;
    var section = el('section', 'card');
    var head = el('header');
    var name = el('span', 'name');
    var ns = el('span', 'ns');
    var replicas = el('div', 'replicas');
    var count = el('b');
    var bar = el('div', 'bar');
    var fill = el('div');
    bar.appendChild(fill);
    replicas.append(count, el('span', '', 'ready'), bar);
    head.append(name, ns, replicas);
    var image = el('div', 'image');
    var table = el('table');
    var thead = el('thead');
    var tr = el('tr');
    [['Pod', 'c-pod'], ['Status', 'c-status'], ['Restarts', 'c-restarts num'], ['Age', 'c-age num'],
      ['Node', 'c-node']].forEach(function (h) {
      tr.appendChild(el('th', h[1], h[0]));
    });
    thead.appendChild(tr);
    var tbody = el('tbody');
    table.append(thead, tbody);
    section.append(head, image, table);
    c = { section: section, name: name, ns: ns, count: count, fill: fill, image: image, tbody: tbody, empty: null };
    cards.set(id, c);
    return c;
  }

  function podRow(p) {
    var r = podRows.get(p.id);
    if (!r) {
      var tr = el('tr');
      var cells = {
        name: el('td', 'pod'), status: el('td', 'status-cell'),
        restarts: el('td', 'num restarts'), age: el('td', 'num age'), node: el('td', 'node'),
      };
      cells.statusText = el('span', 'status');
      cells.status.appendChild(cells.statusText);
      tr.append(cells.name, cells.status, cells.restarts, cells.age, cells.node);
      tr.dataset.pod = p.id;
      // A pod that appears after the page has synced flashes once. The class goes when the
      // animation ends, or every re-insertion of the row would replay it.
      if (seenPods && !seenPods.has(p.id)) tr.classList.add('fresh');
      tr.addEventListener('animationend', function () { tr.classList.remove('fresh'); });
      r = { tr: tr, cells: cells, sig: '' };
      podRows.set(p.id, r);
    }
    var sig = [p.name, p.status, p.health, p.ready, p.restarts, p.node, p.created].join('|');
    if (r.sig !== sig) {
      r.sig = sig;
      r.tr.className = p.health + (r.tr.classList.contains('fresh') ? ' fresh' : '');
      r.tr.dataset.status = p.status;
      setText(r.cells.name, p.name);
      r.cells.name.title = p.name;
      setText(r.cells.statusText, p.status);
      r.cells.status.title = p.status + ' \u00b7 ' + p.ready + ' containers ready';
      setText(r.cells.restarts, String(p.restarts));
      r.cells.restarts.classList.toggle('hot', p.restarts > 0 && p.health === 'failing');
      r.cells.age.dataset.created = p.created || '';
      setText(r.cells.age, age(p.created));
      setText(r.cells.node, p.node || '-');
      r.cells.node.title = p.node || '';
    }
    return r.tr;
  }

  function sameChildren(parent, wanted) {
    var children = parent.children;
    if (children.length !== wanted.length) return false;
    for (var i = 0; i < wanted.length; i++) if (children[i] !== wanted[i]) return false;
    return true;
  }

  function render() {
    var groups = new Map();
    pods.forEach(function (p) {
      var owner = p.owner && deployments.has(p.owner) ? p.owner : ORPHANS;
      var list = groups.get(owner);
      if (!list) groups.set(owner, (list = []));
      list.push(p);
    });
    var ids = Array.from(deployments.keys()).sort(compareIds);
    if (groups.has(ORPHANS)) ids.push(ORPHANS);
    var shown = [];
    var alive = new Set();
    var visiblePods = 0;
    ids.forEach(function (id) {
      var d = deployments.get(id);
      var list = (groups.get(id) || []).sort(function (a, b) { return compareIds(a.name, b.name); });
      var titleMatches = d ? matches(d.name + ' ' + d.namespace) : false;
      var visible = titleMatches ? list : list.filter(podMatches);
      if (filter && !titleMatches && visible.length === 0) return;
      var c = card(id);
      alive.add(id);
      if (d) {
        c.section.dataset.deployment = id;
        setText(c.name, d.name);
        setText(c.ns, d.namespace);
        setText(c.count, d.ready + '/' + d.desired);
        setText(c.image, d.images);
        c.fill.style.width = (d.desired > 0 ? Math.min(100, (100 * d.ready) / d.desired) : 100) + '%';
        c.section.className = 'card ' + (d.ready >= d.desired ? 'full' : d.ready === 0 ? 'down' : 'partial');
      } else {
        c.section.className = 'card orphans';
        c.section.dataset.deployment = '';
        setText(c.name, 'Pods without a deployment');
        setText(c.ns, list.length + '');
        setText(c.count, '');
        c.fill.parentNode.style.display = 'none';
        c.count.nextSibling.style.display = 'none';
      }
      var trs = visible.map(podRow);
      visiblePods += visible.length;
      if (trs.length === 0) {
        if (!c.empty) {
          c.empty = el('tr', 'nopods');
          var td = el('td', '', 'no pods');
          td.colSpan = 5;
          c.empty.appendChild(td);
        }
        trs = [c.empty];
      }
      if (!sameChildren(c.tbody, trs)) c.tbody.replaceChildren.apply(c.tbody, trs);
      shown.push(c.section);
    });
    cards.forEach(function (c, id) { if (!alive.has(id)) cards.delete(id); });
    podRows.forEach(function (r, id) { if (!pods.has(id)) podRows.delete(id); });
    if (status && status.synced) seenPods = new Set(pods.keys());

    var main = part('deployments');
    if (shown.length === 0) {
      var text = status && status.error ? 'Nothing to show: a watch failed (see above).'
        : !status || !status.synced ? 'Connecting to the cluster\u2026'
        : filter ? 'Nothing matches \u201c' + filter + '\u201d.'
        : 'No deployments or pods' + (status.namespace ? ' in namespace ' + status.namespace : '') + '.';
      var empty = el('div', 'empty', text);
      main.replaceChildren(empty);
    } else if (!sameChildren(main, shown)) {
      main.replaceChildren.apply(main, shown);
    }
    var notReady = 0;
    pods.forEach(function (p) { if (p.health !== 'ok' && p.health !== 'done') notReady++; });
    setText(part('summary'), deployments.size + ' deployments \u00b7 ' + pods.size + ' pods \u00b7 ' + notReady +
      ' not ready' + (filter ? ' \u00b7 ' + visiblePods + ' shown' : ''));
    renderStatus();
  }

  var LABELS = { live: 'Live', connecting: 'Connecting\u2026', reconnecting: 'Reconnecting\u2026',
    relisting: 'Relisting\u2026', failed: 'Failed', offline: 'Dashboard offline' };

  function renderStatus() {
    var state = !online ? 'offline' : status ? status.state : 'connecting';
    var pill = part('connection');
    pill.className = 'pill ' + state;
    pill.dataset.state = state;
    setText(part('connection-text'), LABELS[state] || state);
    if (!status) return;
    pill.title = Object.keys(status.sources).map(function (k) { return k + ': ' + status.sources[k]; }).join(' \u00b7 ');
    setText(part('rate'), String(status.eventsPerSecond));
    setText(part('total'), String(status.totalEvents));
    setText(part('cluster-name'), status.cluster);
    root.dataset.cluster = status.cluster;
    setText(part('scope'), status.namespace ? 'namespace ' + status.namespace : 'all namespaces');
    part('demo').hidden = !status.demo;
    var banner = part('error');
    banner.hidden = !status.error;
    setText(banner, status.error || '');
    var log = part('log');
    var items = status.log.concat(notes).sort(function (a, b) { return compareIds(a.at, b.at); })
      .reverse().map(function (entry) {
      var li = el('li');
      li.append(el('time', '', new Date(entry.at).toLocaleTimeString()), document.createTextNode(entry.text));
      return li;
    });
    if (items.length === 0) items = [el('li', '', 'No connection trouble so far.')];
    log.replaceChildren.apply(log, items);
  }


  return {
    snapshot: function (data) {
      deployments.clear();
      pods.clear();
      apply(data.rows);
      status = data.status;
      schedule();
    },
    diff: function (diff) {
      apply(diff.set);
      remove(diff.remove);
      schedule();
    },
    status: function (data) {
      status = data;
      renderStatus();
    },
    note: function (text) {
      notes.push({ at: new Date().toISOString(), text: text });
      if (notes.length > 5) notes.shift();
      renderStatus();
    },
    schedule: schedule,
    renderStatus: renderStatus,
    render: render,
  };
  }

  var views = Array.prototype.map.call(document.querySelectorAll('section.view'), View);
  function each(f) { views.forEach(f); }
  function viewOf(data) { return views[data.view] || null; }

  byId('filter').addEventListener('input', function (e) {
    filter = e.target.value.trim().toLowerCase();
    each(function (v) { v.schedule(); });
  });
  setInterval(function () {
    document.querySelectorAll('[data-created]').forEach(function (cell) { setText(cell, age(cell.dataset.created)); });
  }, 1000);

  var source = new EventSource('events');
  source.addEventListener('snapshot', function (e) {
    var data = JSON.parse(e.data);
    online = true;
    var v = viewOf(data);
    if (v) v.snapshot(data);
  });
  source.addEventListener('diff', function (e) {
    var diff = JSON.parse(e.data);
    var v = viewOf(diff);
    if (v) v.diff(diff);
  });
  source.addEventListener('status', function (e) {
    var data = JSON.parse(e.data);
    online = true;
    var v = viewOf(data);
    if (v) v.status(data);
  });
  // The server skipped this page ahead to the latest state (it had stopped reading for a while).
  source.addEventListener('skipped', function (e) {
    var data = JSON.parse(e.data);
    each(function (v) {
      v.note('This page fell behind: ' + data.messages + ' updates skipped, now at the latest state.');
    });
  });
  source.addEventListener('error', function () {
    online = false;
    each(function (v) { v.renderStatus(); });
  });
  each(function (v) { v.render(); });
})();
`;
