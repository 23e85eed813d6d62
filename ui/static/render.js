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

const STATE_NAMES = { R: 'ready', r: 'running, not ready', P: 'pending', F: 'failing', T: 'terminating', D: 'done' };
const STATE_COLOURS = { R: '#2e9e5b', r: '#e0a526', P: '#8a94a6', F: '#d93025', T: '#b07cc6', D: '#4a4f5a' };

// plural is "1 pod", "2 pods".
export const plural = (n, word) => `${n} ${word}${n === 1 ? '' : 's'}`;

// statusClass is the colour of a kubectl STATUS in a count: the grid's
// letter for the statuses a healthy pod shows, F for any other.
function statusClass(status) {
  if (status === 'Running') return 'R';
  if (status === 'Completed') return 'D';
  if (status === 'Terminating') return 'T';
  if (['Pending', 'ContainerCreating', 'PodInitializing', 'NotReady'].includes(status) || /^Init:\d/.test(status)) return 'P';
  return 'F';
}

// statusCounts draws pod counts as kubectl's STATUS column would add
// up: "3 Running · 1 CrashLoopBackOff", most first.
function statusCounts(counts) {
  const order = 'RrPFTD';
  const entries = Object.entries(counts.status).sort((a, b) =>
    order.indexOf(statusClass(a[0])) - order.indexOf(statusClass(b[0])) || b[1] - a[1] || a[0].localeCompare(b[0]));
  return entries.map(([status, n], i) => [i ? ' · ' : '', el('span', { class: `st s-${statusClass(status)}`, 'data-status': status }, el('span', { class: 'dot' }), `${n} ${status}`)]);
}

// renderSummary writes the header's count of every pod.
function renderSummary(summary, p) {
  summary.replaceChildren(`${plural(p.total, 'pod')}${p.total ? ': ' : ''}`, ...statusCounts(p).flat(), p.total ? ` — ${p.ready} ready` : '');
  summary.dataset.total = p.total;
  summary.dataset.ready = p.ready;
  summary.dataset.status = JSON.stringify(p.status);
}

// podItem draws one listed pod: its name, and kubectl's STATUS when it is
// not plain Running, with its restarts.
function podItem(pod, attrs, name = pod.name) {
  const extra = [pod.status !== 'Running' ? pod.status : '', pod.restarts ? `↻${pod.restarts}` : ''].filter(Boolean).join(' ');
  return el('li', { class: `pod s-${pod.state}`, title: `${pod.name}: ${pod.status}${pod.ready ? ', ready' : ''}${pod.restarts ? `, ${plural(pod.restarts, 'restart')}` : ''}${pod.node ? ` on ${pod.node}` : ''}`, ...attrs },
    el('span', { class: 'dot' }), name, extra ? el('small', {}, ` ${extra}`) : null);
}

// renderNodes draws each node with its pods: by name while a node has
// few, as a grid of one square per pod (a canvas, no DOM per pod) always.
export function renderNodes(root, snapshot, summary) {
  renderSummary(summary, snapshot.pods);
  root.replaceChildren(...snapshot.nodes.map((n) => {
    const c = n.counts;
    const head = el('div', { class: 'node-head' },
      el('strong', {}, n.name || 'not scheduled'),
      n.name ? el('span', { class: n.ready ? 'ok' : 'bad' }, n.ready ? 'Ready' : 'NotReady') : null,
      el('span', { class: 'counts' }, `${plural(c.total, 'pod')} · ${c.ready} ready`));
    const body = [drawGrid(n.grid)];
    if (n.listed.length === c.total && c.total > 0) {
      body.push(el('ul', { class: 'pods' }, n.listed.map((pod) =>
        podItem(pod, { 'data-pod': pod.name, 'data-ready': pod.ready, 'data-status': pod.status }))));
    }
    return el('div', { class: 'node', 'data-node': n.name }, head, body);
  }));
}

// drawGrid draws one square per pod, coloured by state, on a canvas.
function drawGrid(grid, width = 280) {
  const size = grid.length > 400 ? 4 : 9;
  const gap = 1;
  const perRow = Math.max(1, Math.floor(width / (size + gap)));
  const rows = Math.max(1, Math.ceil(grid.length / perRow));
  const canvas = el('canvas', { class: 'grid', width: Math.min(perRow, Math.max(grid.length, 1)) * (size + gap), height: rows * (size + gap) });
  const ctx = canvas.getContext('2d');
  for (let i = 0; i < grid.length; i++) {
    ctx.fillStyle = STATE_COLOURS[grid[i]];
    ctx.fillRect((i % perRow) * (size + gap), Math.floor(i / perRow) * (size + gap), size, size);
  }
  return canvas;
}

// count draws "label n", marked busy when n is not what is wanted.
const count = (label, n, want) => el('span', { class: `count${want !== undefined && n !== want ? ' busy' : ''}` }, el('small', {}, label), ` ${n}`);

// podsOf draws a workload's pods: by name (without the workload's name)
// while all are listed, else as a grid.
function podsOf(group, owner) {
  if (!group.counts.total) return el('p', { class: 'none pods-none' }, 'no pods');
  if (group.listed.length < group.counts.total) {
    return el('div', { class: 'wpods' }, drawGrid(group.grid, 420), el('small', {}, ' ', ...statusCounts(group.counts).flat()));
  }
  const prefix = `${owner}-`;
  return el('ul', { class: 'wpods' }, group.listed.map((pod) =>
    podItem(pod, { 'data-wpod': pod.name, 'data-status': pod.status }, pod.name.startsWith(prefix) ? '…' + pod.name.slice(owner.length) : pod.name)));
}

// replicaSetRow draws one ReplicaSet: its revision, image, counts and
// pods; newest marks the one a Deployment is rolling out.
function replicaSetRow(rs, { newest = false, old = false } = {}) {
  const idle = rs.desired === 0 && rs.current === 0 && rs.pods.counts.total === 0;
  return el('div', { class: `rs${newest ? ' newest' : ''}${old ? ' old' : ''}${idle ? ' idle' : ''}`, 'data-rs': rs.name, 'data-revision': rs.revision,
    'data-desired': rs.desired, 'data-current': rs.current, 'data-ready': rs.ready },
  el('div', { class: 'rs-head' },
    rs.revision ? el('span', { class: 'rev', title: 'deployment.kubernetes.io/revision' }, `rev ${rs.revision}`) : el('span', { class: 'kind' }, 'ReplicaSet'),
    el('span', { class: 'name' }, rs.revision ? rs.name : `${rs.namespace}/${rs.name}`),
    el('code', { class: 'image' }, rs.images.join(', ')),
    el('span', { class: 'counts' }, count('desired', rs.desired), count('current', rs.current, rs.desired), count('ready', rs.ready, rs.desired))),
  idle ? null : podsOf(rs.pods, rs.name));
}

// condition draws a Deployment condition: its type, status and reason.
function condition(c) {
  const good = c.type === 'ReplicaFailure' ? c.status !== 'True' : c.status === 'True';
  return el('span', { class: `cond ${good ? 'ok' : 'bad'}`, title: c.message || '', 'data-condition': c.type, 'data-reason': c.reason || '' },
    `${c.type} ${c.status === 'True' ? '✓' : c.status === 'False' ? '✗' : '?'}`, c.reason ? el('small', {}, ` ${c.reason}`) : null);
}

// renderWorkloads draws each Deployment with its ReplicaSets, newest
// first, and their pods; then the ReplicaSets and replication
// controllers that stand alone.
export function renderWorkloads(root, snapshot) {
  const cards = [];
  for (const d of snapshot.deployments) {
    const rolling = !d.rolledOut;
    cards.push(el('div', { class: `card deployment${rolling ? ' rolling' : ''}`, 'data-deployment': d.name, 'data-rolled-out': d.rolledOut },
      el('div', { class: 'card-head' },
        el('span', { class: 'kind' }, 'Deployment'), el('strong', {}, `${d.namespace}/${d.name}`),
        el('code', { class: 'image' }, d.images.join(', ')),
        el('span', { class: 'counts' }, count('ready', `${d.ready}/${d.desired}`, `${d.desired}/${d.desired}`), count('up-to-date', d.updated, d.desired), count('available', d.available, d.desired))),
      el('div', { class: 'card-sub' },
        d.conditions.map(condition),
        el('span', { class: `rollout ${d.rolledOut ? 'ok' : 'busy'}`, 'data-rollout': d.rollout }, d.rollout)),
      d.replicaSets.map((rs, i) => replicaSetRow(rs, { newest: i === 0 && d.replicaSets.length > 1, old: i > 0 })),
      d.replicaSets.length ? null : el('p', { class: 'none' }, 'no ReplicaSets yet: the deployment controller makes them')));
  }
  for (const rs of snapshot.replicaSets) {
    cards.push(el('div', { class: 'card replicaset', 'data-bare-rs': rs.name }, replicaSetRow(rs)));
  }
  for (const rc of snapshot.replicationControllers) {
    cards.push(el('div', { class: 'card rc', 'data-rc': rc.name, 'data-desired': rc.desired, 'data-current': rc.current, 'data-ready': rc.ready },
      el('div', { class: 'card-head' },
        el('span', { class: 'kind' }, 'ReplicationController'), el('strong', {}, `${rc.namespace}/${rc.name}`),
        el('code', { class: 'image' }, rc.images.join(', ')),
        el('span', { class: 'counts' }, count('desired', rc.desired), count('current', rc.current, rc.desired), count('ready', rc.ready, rc.desired))),
      podsOf(rc.pods, rc.name)));
  }
  root.replaceChildren(...cards);
  if (!cards.length) root.append(el('p', { class: 'none' }, 'none'));
}

// renderServices draws each service with its ready and not-ready addresses
// (its Endpoints) and, beside them, its EndpointSlices counted by condition.
export function renderServices(root, services) {
  const addr = (a, cls) => el('li', { class: cls, title: a.pod }, a.ip, a.pod ? el('small', {}, ` ${a.pod}`) : null);
  const slice = (sl) => el('li', { 'data-slice': sl.name, 'data-endpoints': sl.endpoints, 'data-ready': sl.ready, title: sl.managedBy || '' },
    `EndpointSlice ${sl.name}: ${sl.endpoints} endpoints, ${sl.ready} ready` + (sl.terminating ? `, ${sl.terminating} terminating` : ''));
  root.replaceChildren(...services.map((s) => el('div', { class: 'service', 'data-service': s.name, 'data-ready': s.ready.length, 'data-not-ready': s.notReady.length },
    el('strong', {}, `${s.namespace}/${s.name}`), el('small', {}, ` ${s.clusterIP || ''}`),
    el('ul', { class: 'addresses' },
      s.ready.map((a) => addr(a, 'ready')),
      s.notReady.map((a) => addr(a, 'not-ready')),
      s.ready.length + s.notReady.length ? null : el('li', { class: 'none' }, 'no endpoints')),
    (s.slices || []).length ? el('ul', { class: 'slices' }, s.slices.map(slice)) : null)));
  if (!services.length) root.append(el('p', { class: 'none' }, 'none'));
}

// renderCustom draws each custom kind discovery names, with its objects:
// what owns each one and what it owns, by ownerReferences (★ marks the
// controller reference), the links the garbage collector follows.
export function renderCustom(root, kinds) {
  const link = (l) => el('li', { 'data-link': `${l.kind}/${l.name}` }, `${l.kind} ${l.name}${l.controller ? ' ★' : ''}`);
  const links = (label, list) => list.length ? el('div', { class: 'links' }, el('small', {}, label), el('ul', {}, list.map(link))) : null;
  root.replaceChildren(...(kinds || []).map((k) => el('div', { class: 'custom-kind', 'data-kind': k.kind },
    el('strong', {}, k.kind), el('small', {}, ` ${k.resource}.${k.group}/${k.version}${k.namespaced ? '' : ' (cluster-scoped)'}`),
    k.objects.length ? null : el('p', { class: 'none' }, 'no objects'),
    k.objects.map((o) => el('div', { class: 'custom-object', 'data-object': o.name, 'data-owns': o.owns.length },
      el('span', {}, o.namespace ? `${o.namespace}/${o.name}` : o.name), el('small', {}, ` generation ${o.generation}`),
      links('owned by', o.owners), links('owns', o.owns))))));
  if (!(kinds || []).length) root.append(el('p', { class: 'none' }, 'none: no CustomResourceDefinition is installed'));
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

// pageElements finds the sections renderCluster draws into.
export function pageElements(doc) {
  const $ = (id) => doc.getElementById(id);
  return {
    nodes: $('nodes'), podSummary: $('pod-summary'), workloads: $('workloads'), services: $('services'), custom: $('custom'),
    lease: $('lease'), queues: $('queues').tBodies[0],
  };
}

// renderCluster draws a whole snapshot into the page's sections.
export function renderCluster(page, snapshot) {
  renderNodes(page.nodes, snapshot, page.podSummary);
  renderWorkloads(page.workloads, snapshot);
  renderServices(page.services, snapshot.services);
  renderCustom(page.custom, snapshot.custom);
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
        onclick: (e) => { e.preventDefault(); onJump(c.triggerRevision, true); } }, `rev ${c.triggerRevision}`)] : '',
      c.rollout ? [el('br'), 'rollout of ', c.rollout.deployment, ' from ', el('a', { href: `#rev-${c.rollout.revision}`, class: 'rollout-start', 'data-rollout': c.rollout.revision,
        title: `the write to the Deployment's spec that started this rollout${c.rollout.actor ? ', by ' + c.rollout.actor : ''}`,
        onclick: (e) => { e.preventDefault(); onJump(c.rollout.revision, true); } }, `rev ${c.rollout.revision}`), c.rollout.actor ? ` (${c.rollout.actor})` : ''] : '');
  }
  const changes = row.verb === 'MODIFIED' ? changeList(row.changes || [], row.truncated) : el('span', { class: 'none' }, row.verb === 'ADDED' ? 'created' : 'deleted');
  return el('tr', { id: `rev-${row.revision}`, class: `v-${row.verb}`, 'data-revision': row.revision, 'data-kind': row.kind, 'data-name': row.name, 'data-actor': row.actor, 'data-trigger': row.cause?.triggerRevision, 'data-rollout': row.cause?.rollout?.revision },
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
