package job

import (
	"slices"
	"sync"
	"time"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/clock"
	"github.com/miniplane/miniplane/controllers/replication"
)

// recordings remembers, per job key, the uids of ended pods that a status
// write put in status.uncountedTerminatedPods before their tracking
// finalizers were removed, until the job informer shows that status.
//
// A sync reads two caches. Once a pod's finalizer is gone, the job's
// status is the only record that the pod ended; a sync that sees the pod
// without its finalizer but a job from before that write would take the
// pod for counted and, having counted nothing, create its replacement (or
// count it twice). Such a sync waits: the job's update event brings the key
// back. Kubernetes keeps the same uids in finalizerExpectations
// (uidTrackingExpectations) until the pod informer shows the finalizer
// gone; miniplane keeps them until the job informer has caught up too.
//
// A record older than replication.ExpectationsTimeout no longer blocks, so
// a lost job event cannot freeze the job. It is safe for concurrent use.
type recordings struct {
	clock clock.Clock

	// mu guards byKey.
	mu    sync.Mutex
	byKey map[string]recording
}

type recording struct {
	uids  []api.UID
	setAt time.Time
}

func newRecordings(clk clock.Clock) *recordings {
	return &recordings{clock: clk, byKey: make(map[string]recording)}
}

// Expect records that the job with key wrote uids into its uncounted pods.
func (r *recordings) Expect(key string, uids []api.UID) {
	if len(uids) == 0 {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	rec := r.byKey[key]
	for _, uid := range uids {
		if !slices.Contains(rec.uids, uid) {
			rec.uids = append(rec.uids, uid)
		}
	}
	rec.setAt = r.clock.Now()
	r.byKey[key] = rec
}

// Seen reports whether st, the status of the job with key in the cache,
// shows every uid the job's syncs wrote, and forgets the uids it shows.
func (r *recordings) Seen(key string, st *api.JobStatus) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	rec, ok := r.byKey[key]
	if !ok {
		return true
	}
	rec.uids = missingUncounted(st, rec.uids)
	if len(rec.uids) == 0 || r.clock.Since(rec.setAt) > replication.ExpectationsTimeout {
		delete(r.byKey, key)
		return true
	}
	r.byKey[key] = rec
	return false
}

// Delete forgets the job with key.
func (r *recordings) Delete(key string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.byKey, key)
}

// missingUncounted are the uids that st's uncountedTerminatedPods does not
// list. A uid leaves that list only when a sync that read it counts the pod,
// so a uid written there and missing from it means st is older than the write.
func missingUncounted(st *api.JobStatus, uids []api.UID) []api.UID {
	var out []api.UID
	for _, uid := range uids {
		u := st.UncountedTerminatedPods
		if u == nil || !slices.Contains(u.Succeeded, uid) && !slices.Contains(u.Failed, uid) {
			out = append(out, uid)
		}
	}
	return out
}
