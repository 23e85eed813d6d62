// Renderers: each takes plain data (what data.js returns) and an element,
// and draws. They keep no state, fetch nothing and know no URL.

// el builds an element: el('td', {class: 'x'}, 'text', child, ...).
export function el(tag, attrs = {}, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === null) continue;
    if (k.startsWith('on')) e.addEventListener(k.slice(2), v);
    else e.setAttribute(k, String(v));
  }
  e.append(...children.flat().filter((c) => c !== undefined && c !== null));
  return e;
}

const STATE_NAMES = { R: 'ready', r: 'running, not ready', P: 'pending', T: 'terminating', D: 'done' };
const STATE_COLOURS = { R: '#2e9e5b', r: '#e0a526', P: '#8a94a6', T: '#c0504d', D: '#4a4f5a' };

// renderNodes draws each node with its pods: by name while a node has
// few, as a grid of one square per pod (a canvas, no DOM per pod) always.
export function renderNodes(root, snapshot, summary) {
  const p = snapshot.pods;
  summary.textContent = `${p.total} pods: ${p.ready} ready, ${p.running} running, ${p.pending} pending` +
    (p.terminating ? `, ${p.terminating} terminating` : '');
  summary.dataset.total = p.total;
  summary.dataset.ready = p.ready;
  root.replaceChildren(...snapshot.nodes.map((n) => {
    const c = n.counts;
    const head = el('div', { class: 'node-head' },
      el('strong', {}, n.name || 'not scheduled'),
      n.name ? el('span', { class: n.ready ? 'ok' : 'bad' }, n.ready ? 'Ready' : 'NotReady') : null,
      el('span', { class: 'counts' }, `${c.total} pods · ${c.ready} ready`));
    const body = [drawGrid(n.grid)];
    if (n.listed.length === c.total && c.total > 0) {
      body.push(el('ul', { class: 'pods' }, n.listed.map((pod) =>
        el('li', { class: `pod s-${pod.state}`, 'data-pod': pod.name, 'data-ready': pod.ready, title: STATE_NAMES[pod.state] },
          el('span', { class: 'dot' }), pod.name, el('small', {}, ` ${pod.phase || 'Pending'}${pod.ip ? ' ' + pod.ip : ''}`)))));
    }
    return el('div', { class: 'node', 'data-node': n.name }, head, body);
  }));
}

// drawGrid draws one square per pod, coloured by state, on a canvas.
function drawGrid(grid) {
  const size = grid.length > 400 ? 4 : 9;
  const gap = 1;
  const perRow = Math.max(1, Math.floor(280 / (size + gap)));
  const rows = Math.max(1, Math.ceil(grid.length / perRow));
  const canvas = el('canvas', { class: 'grid', width: perRow * (size + gap), height: rows * (size + gap) });
  const ctx = canvas.getContext('2d');
  for (let i = 0; i < grid.length; i++) {
    ctx.fillStyle = STATE_COLOURS[grid[i]];
    ctx.fillRect((i % perRow) * (size + gap), Math.floor(i / perRow) * (size + gap), size, size);
  }
  return canvas;
}

// renderRCs fills a tbody with replication controllers.
export function renderRCs(tbody, rcs) {
  tbody.replaceChildren(...rcs.map((rc) => el('tr', { 'data-rc': rc.name },
    el('td', {}, `${rc.namespace}/${rc.name}`),
    el('td', { class: 'num' }, rc.desired),
    el('td', { class: 'num' + (rc.current === rc.desired ? '' : ' busy') }, rc.current),
    el('td', { class: 'num' + (rc.ready === rc.desired ? '' : ' busy') }, rc.ready))));
  if (!rcs.length) tbody.append(el('tr', {}, el('td', { colspan: 4, class: 'none' }, 'none')));
}

// renderServices draws each service with its ready and not-ready addresses.
export function renderServices(root, services) {
  const addr = (a, cls) => el('li', { class: cls, title: a.pod }, a.ip, a.pod ? el('small', {}, ` ${a.pod}`) : null);
  root.replaceChildren(...services.map((s) => el('div', { class: 'service', 'data-service': s.name, 'data-ready': s.ready.length, 'data-not-ready': s.notReady.length },
    el('strong', {}, `${s.namespace}/${s.name}`), el('small', {}, ` ${s.clusterIP || ''}`),
    el('ul', { class: 'addresses' },
      s.ready.map((a) => addr(a, 'ready')),
      s.notReady.map((a) => addr(a, 'not-ready')),
      s.ready.length + s.notReady.length ? null : el('li', { class: 'none' }, 'no endpoints')))));
  if (!services.length) root.append(el('p', { class: 'none' }, 'none'));
}

// renderLease draws the leader Lease.
export function renderLease(root, lease) {
  if (!lease) {
    root.replaceChildren(el('p', { class: 'none' }, 'no lease: no controller manager has been elected'));
    return;
  }
  root.replaceChildren(el('dl', { 'data-holder': lease.holder },
    el('dt', {}, 'lease'), el('dd', {}, `${lease.namespace}/${lease.name}`),
    el('dt', {}, 'holder'), el('dd', {}, lease.holder || '(none)'),
    el('dt', {}, 'transitions'), el('dd', {}, lease.transitions),
    el('dt', {}, 'renewed'), el('dd', {}, lease.renewTime ? clockTime(lease.renewTime) : '–'),
    el('dt', {}, 'at revision'), el('dd', {}, lease.revision)));
}

// renderQueues fills a tbody with every instance's workqueues.
export function renderQueues(tbody, instances) {
  const rows = [];
  for (const inst of instances) {
    const label = `${inst.identity}${inst.leading ? ' ★' : ''}`;
    if (!inst.queues.length) rows.push(el('tr', {}, el('td', {}, label), el('td', { colspan: 4, class: 'none' }, inst.leading ? 'starting' : 'standby')));
    for (const q of inst.queues) {
      rows.push(el('tr', {}, el('td', {}, label), el('td', {}, q.name),
        el('td', { class: 'num' }, q.depth), el('td', { class: 'num' }, q.inFlight), el('td', { class: 'num' }, q.retries)));
    }
  }
  tbody.replaceChildren(...rows);
}

// renderCluster draws a whole snapshot into the page's sections.
export function renderCluster(page, snapshot) {
  renderNodes(page.nodes, snapshot, page.podSummary);
  renderRCs(page.rcs, snapshot.replicationControllers);
  renderServices(page.services, snapshot.services);
  renderLease(page.lease, snapshot.lease);
  renderQueues(page.queues, snapshot.instances);
}

function clockTime(t) {
  const d = new Date(t);
  return isNaN(d) || d.getFullYear() < 2 ? '' : d.toLocaleTimeString([], { hour12: false });
}

const short = (v) => {
  if (v === undefined) return '∅';
  const s = JSON.stringify(v);
  return s.length > 40 ? s.slice(0, 39) + '…' : s;
};

// changeList draws changes as "path: from → to" lines, the first few
// open and the rest folded.
export function changeList(changes, truncated, open = 3) {
  const item = (c) => el('li', {}, el('code', {}, c.path), ` ${short(c.from)} → ${short(c.to)}`);
  const list = el('ul', { class: 'changes' }, changes.slice(0, open).map(item));
  const rest = changes.slice(open).map(item);
  if (truncated) rest.push(el('li', { class: 'none' }, 'and more'));
  if (rest.length) list.append(el('li', {}, el('details', {}, el('summary', {}, `${changes.length - open}${truncated ? '+' : ''} more`), el('ul', {}, rest))));
  return list;
}

// timelineRow draws one write; onJump(revision) is called when its
// revision or its cause's trigger is clicked.
export function timelineRow(row, onJump) {
  const object = row.namespace ? `${row.kind} ${row.namespace}/${row.name}` : `${row.kind} ${row.name}`;
  let why = null;
  if (row.cause) {
    const c = row.cause;
    why = el('span', { class: 'cause', title: c.inferred ? `inferred (rule "${c.rule}")` : `reconcile #${c.reconcile}` },
      `${c.controller} synced ${c.key}`,
      c.reconcile ? ` (#${c.reconcile})` : '',
      c.triggerRevision ? [' after ', el('a', { href: `#rev-${c.triggerRevision}`, class: 'trigger', 'data-trigger': c.triggerRevision,
        onclick: (e) => { e.preventDefault(); onJump(c.triggerRevision, true); } }, `rev ${c.triggerRevision}`)] : '');
  }
  const changes = row.verb === 'MODIFIED' ? changeList(row.changes || [], row.truncated) : el('span', { class: 'none' }, row.verb === 'ADDED' ? 'created' : 'deleted');
  return el('tr', { id: `rev-${row.revision}`, class: `v-${row.verb}`, 'data-revision': row.revision, 'data-kind': row.kind, 'data-name': row.name, 'data-actor': row.actor, 'data-trigger': row.cause?.triggerRevision },
    el('td', { class: 'num' }, el('a', { href: '#', title: 'show the cluster at this revision', onclick: (e) => { e.preventDefault(); onJump(row.revision, false); } }, row.revision)),
    el('td', {}, clockTime(row.time)),
    el('td', {}, row.verb),
    el('td', {}, object),
    el('td', { class: 'actor' }, row.actor || el('span', { class: 'none' }, '?')),
    el('td', {}, changes),
    el('td', {}, why));
}

// renderDiff draws what changed between two revisions.
export function renderDiff(root, d) {
  const items = d.objects.map((o) => el('li', {},
    el('strong', {}, `${o.verb} ${o.kind} ${o.namespace ? o.namespace + '/' : ''}${o.name}`),
    o.changes.length ? changeList(o.changes, o.truncated) : null));
  root.replaceChildren(el('p', {}, `${d.writes} writes between revision ${d.from} and ${d.to}; ${d.objects.length} objects differ.`),
    el('ul', { class: 'diff' }, items));
}

// renderNotice shows a refusal (a Status) plainly, or hides the notice.
export function renderNotice(root, status) {
  root.hidden = !status;
  root.textContent = status ? `${status.message}${status.code ? ` (${status.code} ${status.reason || ''})` : ''}` : '';
}
