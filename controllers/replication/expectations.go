package replication

import (
	"sync"
	"time"

	"github.com/miniplane/miniplane/clock"
)

// ExpectationsTimeout is how long a controller's expectations hold before a
// sync stops waiting for them: a watch event that never arrives (a lost
// create, a pod deleted while the watch was down) must not freeze a
// controller forever. Kubernetes: controller.ExpectationsTimeout.
const ExpectationsTimeout = 5 * time.Minute

// Expectations remembers, per controller key, the pod creations and
// deletions the controller has issued but not yet seen come back through
// the pod informer. A sync acts only when its controller's expectations are
// satisfied, so it never fills (or drains) the same gap twice while the
// cache lags behind its own writes.
//
// Deletions are tracked by pod key, so a pod first seen with a
// deletionTimestamp and then seen gone lowers the count once. Creations are
// counted only: the names of created pods are not known until the server
// answers.
//
// It mirrors Kubernetes' UIDTrackingControllerExpectations
// (pkg/controller/controller_utils.go), with the TTL read from the injected
// clock instead of the wall clock. It is safe for concurrent use.
type Expectations struct {
	clock clock.Clock

	// mu guards records.
	mu      sync.Mutex
	records map[string]*expectation

	// afterSatisfied, if set, runs at the end of every Satisfied, after
	// the answer is decided: a seam for tests of what happens between a
	// sync's check and its next step. Set it only while nothing else uses
	// the Expectations.
	afterSatisfied func()
}

// expectation is one controller's outstanding work. add and del may go
// below zero when more events arrive than were expected; that still counts
// as satisfied.
type expectation struct {
	add, del int
	// deleteKeys holds the keys of the pods whose deletion is awaited; a
	// deletion of a pod not in it does not lower del.
	deleteKeys map[string]struct{}
	// setAt is when the expectation was last set; after ExpectationsTimeout
	// it no longer blocks a sync.
	setAt time.Time
}

// NewExpectations returns empty expectations timed by clk.
func NewExpectations(clk clock.Clock) *Expectations {
	return &Expectations{clock: clk, records: make(map[string]*expectation)}
}

// Satisfied reports whether the controller with key may act: it has no
// record, all its expected events were observed, or its record has
// expired.
func (e *Expectations) Satisfied(key string) bool {
	ok := e.satisfied(key)
	if e.afterSatisfied != nil {
		e.afterSatisfied()
	}
	return ok
}

func (e *Expectations) satisfied(key string) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	r, ok := e.records[key]
	if !ok {
		return true
	}
	if r.add <= 0 && r.del <= 0 {
		return true
	}
	return e.clock.Since(r.setAt) > ExpectationsTimeout
}

// ExpectCreations records that the controller with key is about to create
// n pods, replacing whatever it expected before.
func (e *Expectations) ExpectCreations(key string, n int) {
	e.set(key, &expectation{add: n})
}

// ExpectDeletions records that the controller with key is about to delete
// the pods with podKeys ("namespace/name"), replacing whatever it expected
// before.
func (e *Expectations) ExpectDeletions(key string, podKeys []string) {
	keys := make(map[string]struct{}, len(podKeys))
	for _, k := range podKeys {
		keys[k] = struct{}{}
	}
	e.set(key, &expectation{del: len(keys), deleteKeys: keys})
}

func (e *Expectations) set(key string, r *expectation) {
	r.setAt = e.clock.Now()
	e.mu.Lock()
	defer e.mu.Unlock()
	e.records[key] = r
}

// CreationObserved lowers by one the creations the controller with key
// waits for: a pod it created was seen, or a create it expected will never
// happen.
func (e *Expectations) CreationObserved(key string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if r, ok := e.records[key]; ok {
		r.add--
	}
}

// DeletionObserved lowers by one the deletions the controller with key
// waits for, if podKey is one of the pods it expects to be deleted; each
// pod counts once however many times its deletion is seen.
func (e *Expectations) DeletionObserved(key, podKey string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	r, ok := e.records[key]
	if !ok {
		return
	}
	if _, awaited := r.deleteKeys[podKey]; !awaited {
		return
	}
	delete(r.deleteKeys, podKey)
	r.del--
}

// Delete forgets the controller with key, as when it is deleted: a
// controller recreated under the same name starts fresh.
func (e *Expectations) Delete(key string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	delete(e.records, key)
}

// Get returns the creations and deletions the controller with key still
// waits for, and whether it has a record at all.
func (e *Expectations) Get(key string) (add, del int, ok bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	r, ok := e.records[key]
	if !ok {
		return 0, 0, false
	}
	return r.add, r.del, true
}
