// The page: wires the data layer to the renderers and keeps the one bit
// of state a view needs — which revision is shown, and whether it follows
// the newest.
import { ApiError, fetchSnapshot, fetchTimeline, fetchDiff, follow } from './data.js';
import { pageElements, renderCluster, renderDiff, renderNotice, timelineRow } from './render.js';

const $ = (id) => document.getElementById(id);
const page = pageElements(document);
const slider = $('revision');
const timeline = $('timeline').tBodies[0];
const MAX_ROWS = 500; // rows kept on the page; older ones are a click away

const state = {
  live: true,     // follow the newest revision
  shown: 0,       // the revision drawn
  current: 0,     // the newest revision known
  older: 0,       // Before of the next older timeline page, 0 when none
  stop: () => {}, // stops following the timeline
  loading: false, // a snapshot request is in flight
  again: false,   // another snapshot is wanted when it lands
  want: 0,        // ... at this revision (0: the newest)
};

function showError(err) {
  if (err instanceof ApiError) renderNotice($('notice'), err.status);
  else renderNotice($('notice'), { message: String(err) });
}

// show draws the cluster at revision (0: the newest). Requests never
// overlap: one asked for while another is in flight runs after it, at the
// revision it asked for (the one in flight may be a live update that moves
// the slider; the user's choice must not be lost to it).
async function show(revision) {
  if (state.loading) {
    state.again = true;
    state.want = revision;
    return;
  }
  state.loading = true;
  try {
    const snap = await fetchSnapshot(state.live ? 0 : revision);
    renderNotice($('notice'), null);
    state.shown = snap.revision;
    state.current = Math.max(state.current, snap.current);
    slider.min = snap.oldest;
    slider.max = state.current;
    slider.value = snap.revision;
    renderCluster(page, snap);
    $('revision-label').textContent = `${snap.revision}${snap.revision === state.current ? ' (newest)' : ` of ${snap.oldest}–${state.current}`}`;
    document.body.dataset.revision = snap.revision;
  } catch (err) {
    showError(err);
  } finally {
    state.loading = false;
    if (state.again) {
      state.again = false;
      show(state.want);
    }
  }
}

function setLive(live) {
  state.live = live;
  $('live').setAttribute('aria-pressed', live);
  $('live').textContent = live ? '● live' : '○ paused — back to live';
}

// jump travels to revision; for a cause's trigger it also points at
// the trigger's row.
function jump(revision, isTrigger) {
  setLive(false);
  slider.value = revision;
  show(revision);
  if (isTrigger) {
    const row = document.getElementById(`rev-${revision}`);
    if (row) {
      row.scrollIntoView({ block: 'center' });
      row.classList.add('flash');
      setTimeout(() => row.classList.remove('flash'), 1500);
    }
  }
}

function query() {
  return {
    object: $('f-object').value.trim(),
    kind: $('f-kind').value.replace(/\s/g, ''),
    actor: $('f-actor').value.replace(/\s/g, ''),
    hide: $('f-quiet').checked ? 'Lease,Event' : '',
  };
}

// loadTimeline draws the newest page of writes and follows new ones.
async function loadTimeline() {
  state.stop();
  const q = query();
  let t;
  try {
    t = await fetchTimeline(q);
  } catch (err) {
    showError(err);
    return;
  }
  timeline.replaceChildren(...t.rows.map((r) => timelineRow(r, jump)));
  setOlder(t.continue);
  state.current = Math.max(state.current, t.current);
  state.stop = follow(q, t.current, {
    onRow(row) {
      if (document.getElementById(`rev-${row.revision}`)) return;
      timeline.prepend(timelineRow(row, jump));
      while (timeline.rows.length > MAX_ROWS) timeline.lastElementChild.remove();
      setOlder(Number(timeline.lastElementChild.dataset.revision));
    },
    onRevision(rev) {
      state.current = Math.max(state.current, rev);
      slider.max = state.current;
      if (state.live) show(0);
    },
    onGone(status) {
      renderNotice($('notice'), status);
      loadTimeline();
    },
  });
}

function setOlder(before) {
  state.older = before || 0;
  $('older').hidden = !state.older;
}

$('older').addEventListener('click', async () => {
  try {
    const t = await fetchTimeline({ ...query(), before: state.older });
    timeline.append(...t.rows.map((r) => timelineRow(r, jump)));
    setOlder(t.continue);
  } catch (err) {
    showError(err);
  }
});

slider.addEventListener('input', () => {
  setLive(false);
  show(Number(slider.value));
});
$('live').addEventListener('click', () => {
  setLive(true);
  show(0);
});
let filterTimer;
$('filters').addEventListener('input', () => {
  clearTimeout(filterTimer);
  filterTimer = setTimeout(loadTimeline, 250);
});
$('filters').addEventListener('submit', (e) => e.preventDefault());
$('compare').addEventListener('submit', async (e) => {
  e.preventDefault();
  try {
    renderDiff($('diff'), await fetchDiff(Number($('diff-from').value), Number($('diff-to').value)));
    renderNotice($('notice'), null);
  } catch (err) {
    showError(err);
  }
});

await show(0);
$('diff-from').value = Math.max(1, state.shown - 20);
$('diff-to').value = state.shown;
await loadTimeline();
document.body.dataset.ready = 'true';
