// The trace view: a `miniplane sim` run replayed line by line. It loads
// the replay (sim.Replay as JSON: lines, rows, states, violation) from
// /ui/api/trace, or from a trace file the user opens (posted to the same
// endpoint), and renders the cluster state after the current line and the
// timeline around it. The renderers take plain data and return elements.

const API = "/ui/api/trace";
const WINDOW_BEFORE = 300; // timeline rows shown before the current one
const WINDOW_AFTER = 40;

const $ = (id) => document.getElementById(id);

/** el builds an element: el("div", {class: "x"}, child, "text"). */
function el(tag, attrs = {}, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === null || v === false) continue;
    if (k === "class") e.className = v;
    else if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
    else e.setAttribute(k, v === true ? "" : v);
  }
  for (const c of children.flat()) {
    if (c === undefined || c === null || c === false) continue;
    e.append(c instanceof Node ? c : String(c));
  }
  return e;
}

/** refString names an object as the trace does: "Pod default/web-1". */
export function refString(o) {
  if (!o) return "";
  return o.namespace ? `${o.kind} ${o.namespace}/${o.name}` : `${o.kind} ${o.name}`;
}

/** renderCluster renders a ClusterState; involved lists keys to outline. */
export function renderCluster(st, involved = []) {
  const inv = new Set(involved);
  const pod = (p) => el("span", {
    class: `pod ${p.phase} ${p.ready ? "ready" : ""} ${p.deleting ? "deleting" : ""} ${inv.has(`Pod ${p.namespace}/${p.name}`) ? "involved" : ""}`,
    title: `${p.namespace}/${p.name} ${p.phase}${p.ready ? " ready" : ""}${p.deleting ? " deleting" : ""}${p.owner ? " — " + p.owner : ""}`,
  }, p.name);
  const faulted = new Map(st.faulted.map((f) => [f.name, f.fault]));
  return el("div", {},
    el("h2", {}, "nodes"),
    st.nodes.map((n) => el("div", { class: `node ${n.ready ? "" : "notready"}`, "data-node": n.name },
      el("b", {}, n.name), n.ready ? "" : el("span", { class: "fault-tag" }, " NotReady"), " ",
      n.pods.length ? n.pods.map(pod) : el("i", {}, "no pods"))),
    st.unscheduled.length ? el("div", { class: "node" }, el("b", {}, "unscheduled "), st.unscheduled.map(pod)) : "",
    el("h2", {}, "replication controllers"),
    st.rcs.length ? st.rcs.map((r) => el("div", {
      class: `kv obj ${inv.has(`ReplicationController ${r.namespace}/${r.name}`) ? "involved" : ""}`,
    }, `${r.namespace}/${r.name}: desired ${r.desired}, current ${r.current}, ready ${r.ready}`)) : el("i", {}, "none"),
    el("h2", {}, "services"),
    st.services.length ? st.services.map((s) => el("div", { class: `kv obj ${inv.has(`Service ${s.namespace}/${s.name}`) ? "involved" : ""}` },
      `${s.namespace}/${s.name} → [${s.endpoints.join(", ")}]`, s.notReady.length ? ` not ready [${s.notReady.join(", ")}]` : "")) : el("i", {}, "none"),
    ...(st.custom && st.custom.length ? [el("h2", {}, "custom resources"),
      ...st.custom.map((c) => el("div", { class: `kv obj ${inv.has(`${c.kind} ${c.namespace}/${c.name}`) ? "involved" : ""}`, "data-custom": `${c.kind} ${c.name}` },
        `${c.kind} ${c.namespace ? c.namespace + "/" : ""}${c.name}: generation ${c.generation}`,
        c.owner ? ` — owned by ${c.owner}` : "",
        c.owns.length ? ` — owns [${c.owns.join(", ")}]` : ""))] : []),
    el("h2", {}, "leader lease"),
    el("div", { class: "kv" }, st.lease ? `held by ${st.lease.holder || "nobody"} (${st.lease.transitions} transitions)` : "not taken yet"),
    el("h2", {}, "workqueues"),
    st.queues.length ? st.queues.map((q) => el("div", { class: "kv" }, `${q.controller}: ${q.len} queued`,
      faulted.has(q.controller.split("/")[0]) ? el("span", { class: "fault-tag" }, " (instance down)") : "")) : el("i", {}, "none yet"),
    el("h2", {}, "faults in force"),
    st.faulted.length ? st.faulted.map((f) => el("div", { class: "kv fault-tag" }, `${f.name}: ${f.fault}`)) : el("i", {}, "none"),
  );
}

/** describe returns the change/cause column of a row. */
function describe(row) {
  const parts = [];
  if (row.invariant) parts.push(`invariant ${row.invariant} violated: ${(row.objects || []).join(", ")} — ${row.detail || ""}`);
  if (row.diff) parts.push(row.diff.join("; "));
  if (row.cause) parts.push(`← ${row.cause.controller} sync #${row.cause.reconcile} of ${row.cause.key}` +
    (row.cause.triggerRevision ? ` (after rev ${row.cause.triggerRevision})` : ""));
  if (row.outcome) parts.push(row.outcome);
  if (row.target) parts.push(row.target);
  if (!row.invariant && row.detail) parts.push(row.detail);
  return parts.join("  ");
}

/** matches applies the filters to a row. */
export function matches(row, f) {
  const obj = refString(row.object);
  if (f.key && !(obj.includes(f.key) || (row.cause && row.cause.key.includes(f.key)) ||
    (row.objects || []).some((o) => o.includes(f.key)))) return false;
  if (f.actor && !row.actor.includes(f.actor)) return false;
  if (f.writesOnly && !(row.diff || row.fault || row.invariant || row.verb === "delete")) return false;
  return true;
}

/** renderTimeline renders the rows around current that pass the filters. */
export function renderTimeline(rows, current, filters, onPick) {
  const out = [];
  const lo = Math.max(0, current - WINDOW_BEFORE), hi = Math.min(rows.length, current + WINDOW_AFTER);
  for (let i = lo; i < hi; i++) {
    const r = rows[i];
    if (i !== current && !matches(r, filters)) continue;
    const cls = [i === current ? "current" : "", i > current ? "later" : "", r.fault ? "fault" : "",
      r.verb === "violation" ? "violation" : ""].join(" ");
    out.push(el("tr", { class: cls, "data-index": i, onclick: () => onPick(i) },
      el("td", {}, r.step), el("td", {}, r.time), el("td", {}, r.revision), el("td", {}, r.actor),
      el("td", {}, r.verb), el("td", {}, refString(r.object)), el("td", {}, describe(r))));
  }
  return out;
}

const view = { replay: null, current: 0 };

function filters() {
  return { key: $("filter-key").value.trim(), actor: $("filter-actor").value.trim(), writesOnly: $("writes-only").checked };
}

function show(i) {
  const rp = view.replay;
  if (!rp || !rp.rows.length) return;
  view.current = Math.max(0, Math.min(rp.rows.length - 1, i));
  const row = rp.rows[view.current];
  $("slider").value = view.current;
  $("position").textContent = `line ${view.current + 1} of ${rp.rows.length} · step ${row.step} · ${row.time} · rev ${row.revision}`;
  const involved = rp.violation >= 0 && view.current >= rp.violation ? rp.rows[rp.violation].objects || [] : [];
  $("cluster").replaceChildren(renderCluster(rp.states[row.state], involved));
  const body = $("timeline").tBodies[0];
  body.replaceChildren(...renderTimeline(rp.rows, view.current, filters(), show));
  const cur = body.querySelector("tr.current");
  if (cur) cur.scrollIntoView({ block: "center" });
}

function load(rp, source) {
  view.replay = rp;
  $("error").hidden = true;
  $("source").textContent = source;
  $("slider").max = Math.max(0, rp.rows.length - 1);
  const v = $("violation");
  if (rp.violation >= 0) {
    const row = rp.rows[rp.violation];
    v.replaceChildren(`Invariant ${row.invariant} violated at step ${row.step} (${row.time}): `,
      el("span", { class: "objects" }, (row.objects || []).join(", "), " — ", row.detail || ""));
    v.hidden = false;
    $("to-violation").hidden = false;
    show(rp.violation); // open at the violation
  } else {
    v.hidden = true;
    $("to-violation").hidden = true;
    show(0);
  }
  document.body.dataset.loaded = "true";
}

async function fail(resp) {
  let msg = `${resp.status} ${resp.statusText}`;
  try { const st = await resp.json(); if (st.message) msg = `${st.reason || st.code}: ${st.message}`; } catch { /* not a Status */ }
  $("error").textContent = msg;
  $("error").hidden = false;
}

async function fetchRun() {
  const resp = await fetch(API);
  if (resp.status === 204) { $("source").textContent = "no run: open a trace file"; return; }
  if (!resp.ok) return fail(resp);
  load(await resp.json(), "this run");
}

async function openFile(file) {
  const resp = await fetch(API, { method: "POST", body: file, headers: { "Content-Type": "application/x-ndjson" } });
  if (!resp.ok) return fail(resp);
  load(await resp.json(), file.name);
}

$("slider").addEventListener("input", (e) => show(Number(e.target.value)));
$("prev").addEventListener("click", () => show(view.current - 1));
$("next").addEventListener("click", () => show(view.current + 1));
$("first").addEventListener("click", () => show(0));
$("last").addEventListener("click", () => show(Number.MAX_SAFE_INTEGER));
$("to-violation").addEventListener("click", () => show(view.replay.violation));
for (const id of ["filter-key", "filter-actor", "writes-only"]) $(id).addEventListener("input", () => show(view.current));
$("file").addEventListener("change", (e) => { if (e.target.files[0]) openFile(e.target.files[0]); });
document.addEventListener("keydown", (e) => {
  if (e.target.tagName === "INPUT" && e.target.type !== "range") return;
  if (e.key === "ArrowLeft") show(view.current - 1);
  if (e.key === "ArrowRight") show(view.current + 1);
});
fetchRun();
