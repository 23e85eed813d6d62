// The data layer: every request the page makes, and nothing about how
// it looks. Renderers take what these functions return, so a recorded
// trace can drive the same renderers.

// ApiError is a refusal from the server: its Kubernetes Status.
export class ApiError extends Error {
  constructor(status) {
    super(status.message || `HTTP ${status.code}`);
    this.status = status;
  }
}

async function getJSON(path, params = {}) {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) {
    if (v !== undefined && v !== null && v !== '' && v !== 0) q.set(k, v);
  }
  const res = await fetch(q.size ? `${path}?${q}` : path, { cache: 'no-store' });
  const body = await res.json();
  if (!res.ok) throw new ApiError(body);
  return body;
}

// fetchSnapshot returns the cluster at revision (the latest when absent).
export const fetchSnapshot = (revision) => getJSON('api/snapshot', { revision });

// fetchTimeline returns a page of writes, newest first: {rows, oldest,
// current, continue}. query: {object, kind, actor, hide, before, limit}.
export const fetchTimeline = (query) => getJSON('api/timeline', query);

// fetchDiff returns what changed between two revisions.
export const fetchDiff = (from, to) => getJSON('api/diff', { from, to });

// follow streams new writes after revision `after`: onRow(row) for each
// row the query keeps, onRevision(n) after each batch, onGone(status)
// when the history window has moved past. It returns a function that
// stops following.
export function follow(query, after, { onRow, onRevision, onGone }) {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries({ ...query, after })) {
    if (v) q.set(k, v);
  }
  const source = new EventSource(`api/watch?${q}`);
  source.addEventListener('row', (e) => onRow(JSON.parse(e.data)));
  source.addEventListener('revision', (e) => onRevision(Number(e.data)));
  source.addEventListener('gone', (e) => {
    source.close();
    onGone(JSON.parse(e.data));
  });
  return () => source.close();
}
