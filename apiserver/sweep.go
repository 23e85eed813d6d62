package apiserver

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/api/apierrors"
	"github.com/miniplane/miniplane/client"
	"github.com/miniplane/miniplane/clock"
	"github.com/miniplane/miniplane/store"
)

// namespaceRecheck is how long Sweep waits before looking again at a
// terminating namespace whose content is not all gone yet (pods in their
// grace period, objects held by finalizers).
const namespaceRecheck = 5 * time.Second

// noteGrace records that the object stored under key, just marked for
// deletion, needs Sweep: a pod when its grace period ends, a terminating
// namespace at once.
func (s *Server) noteGrace(key string, obj api.Object) {
	var at time.Time
	if k := s.byType[reflect.TypeOf(obj)]; k != nil && k.sweepAt != nil {
		var due bool
		if at, due = k.sweepAt(obj, s.clock.Now()); !due {
			return
		}
	} else {
		m := obj.GetObjectMeta()
		if m.DeletionTimestamp == nil || deref(m.DeletionGracePeriodSeconds) == 0 {
			return
		}
		at = m.DeletionTimestamp.Time
	}
	s.graceMu.Lock()
	defer s.graceMu.Unlock()
	s.setGraceLocked(key, at)
	if s.armed.IsZero() || at.Before(s.armed) {
		// Run waits for a later time, or for nothing: wake it. Only
		// then: a scale-down marks thousands of pods for deletion at
		// once, and each wake-up costs Run a look for the earliest.
		close(s.sweepWake)
		s.sweepWake = make(chan struct{})
	}
}

// setGraceLocked makes at the time Sweep next looks at key, keeping
// graceMin.
func (s *Server) setGraceLocked(key string, at time.Time) {
	cur, had := s.grace[key]
	s.grace[key] = at
	switch {
	case had && cur.Equal(s.graceMin) && at.After(cur):
		s.graceMinOK = false // the earliest moved later: unknown until looked for
	case s.graceMinOK && (len(s.grace) == 1 || at.Before(s.graceMin)):
		s.graceMin = at
	case len(s.grace) == 1:
		s.graceMin, s.graceMinOK = at, true
	}
}

// dropGrace forgets key: it was removed.
func (s *Server) dropGrace(key string) {
	s.graceMu.Lock()
	defer s.graceMu.Unlock()
	if at, ok := s.grace[key]; ok {
		delete(s.grace, key)
		if at.Equal(s.graceMin) {
			s.graceMinOK = false
		}
	}
}

// NextSweep returns when Sweep next has work: the earliest end of a grace
// period or namespace check. The simulator and Run use it to set a timer.
func (s *Server) NextSweep() (time.Time, bool) {
	s.graceMu.Lock()
	defer s.graceMu.Unlock()
	return s.nextSweepLocked()
}

// nextSweepLocked is NextSweep; it notes the result as armed.
func (s *Server) nextSweepLocked() (time.Time, bool) {
	if len(s.grace) == 0 {
		s.graceMin, s.graceMinOK = time.Time{}, true
	} else if !s.graceMinOK {
		var next time.Time
		for _, at := range s.grace {
			if next.IsZero() || at.Before(next) {
				next = at
			}
		}
		s.graceMin, s.graceMinOK = next, true
	}
	s.armed = s.graceMin
	return s.graceMin, !s.graceMin.IsZero()
}

// Sweep is the server's step for deletions that wait on time: it removes the
// pods whose grace period has ended (and no finalizer holds), and for each
// terminating namespace deletes its content and then, once it is empty, the
// namespace itself — the job Kubernetes gives the kubelet and the namespace
// controller — and puts back the kubernetes Service or Endpoints when they
// were deleted (PublishKubernetesService). It returns how many objects it
// removed, deleted or created.
func (s *Server) Sweep() int {
	now := s.clock.Now()
	s.graceMu.Lock()
	var due []string
	for key, at := range s.grace {
		if !now.Before(at) {
			due = append(due, key)
		}
	}
	s.graceMu.Unlock()
	slices.Sort(due) // map order must not leak into what happens

	done := 0
	for _, key := range due {
		if s.kubernetesServiceKey(key) {
			s.dropGrace(key)
			done += s.ensureKubernetesService()
			continue
		}
		if s.mandatoryFlowControlKey(key) {
			s.dropGrace(key)
			if err := s.ensureMandatoryFlowControl(); err != nil {
				s.log.Warn("putting back the mandatory flow-control objects", zap.Error(err))
			}
			done++
			continue
		}
		rec, err := s.store.Get(key, 0)
		if err != nil {
			s.dropGrace(key)
			continue
		}
		obj := rec.Value
		if k := s.byType[reflect.TypeOf(obj)]; k != nil && k.sweep != nil {
			done += k.sweep(s, key, obj, now)
		} else {
			s.dropGrace(key)
			m := obj.GetObjectMeta()
			if len(m.Finalizers) > 0 || m.DeletionTimestamp == nil || now.Before(m.DeletionTimestamp.Time) {
				continue // the finalizers' owner finishes it; or it changed
			}
			if _, err := s.deleteKey(key, rec.ModRev); err == nil {
				s.release(obj)
				s.log.Debug("grace period over: removed", zap.String("key", key))
				done++
			} else if errors.Is(err, store.ErrConflict) {
				s.noteGrace(key, obj) // changed under us: look again later
			}
		}
	}
	return done
}

// sweepNamespace deletes what is left in a terminating namespace, and the
// namespace once nothing is left.
func (s *Server) sweepNamespace(key string, ns *api.Namespace, now time.Time) int {
	done := 0
	for _, k := range s.storedKinds() {
		resource := k.gr.String()
		if !k.namespaced {
			continue
		}
		res, err := s.store.List(k.prefix(ns.Metadata.Name), store.ListOptions{})
		if err != nil {
			continue
		}
		for _, r := range res.Records {
			m := r.Value.GetObjectMeta()
			if m.DeletionTimestamp != nil {
				continue // already on its way out
			}
			bg := api.DeletePropagationBackground
			if _, err := s.Delete(context.Background(), resource, m.Namespace, m.Name, api.DeleteOptions{PropagationPolicy: &bg}); err == nil {
				done++
			}
		}
	}
	s.dropGrace(key)
	left := s.remainsIn(ns.Metadata.Name)
	done += s.writeNamespaceConditions(ns.Metadata.Name, left)
	if !left.empty() {
		s.graceMu.Lock()
		s.setGraceLocked(key, now.Add(namespaceRecheck))
		s.graceMu.Unlock()
		return done
	}
	// Empty: take the "kubernetes" finalizer off, through the finalize
	// subresource as the namespace controller does. The write deletes the
	// namespace unless another finalizer holds it.
	for {
		rec, err := s.store.Get(key, 0)
		if err != nil {
			return done
		}
		cur := rec.Value.(*api.Namespace)
		if cur.Metadata.DeletionTimestamp == nil || !slices.Contains(cur.Spec.Finalizers, api.FinalizerKubernetes) {
			return done
		}
		next := cur.DeepCopy()
		next.Spec.Finalizers = slices.DeleteFunc(next.Spec.Finalizers, func(f string) bool { return f == api.FinalizerKubernetes })
		_, err = s.FinalizeNamespace(context.Background(), next)
		if err == nil {
			s.log.Debug("namespace empty: finalized", zap.String("namespace", ns.Metadata.Name))
			return done + 1
		}
		if !apierrors.IsConflict(err) {
			return done
		}
	}
}

// remainsIn counts what is still stored in a namespace: objects per
// resource, and objects per finalizer that holds them.
func (s *Server) remainsIn(namespace string) namespaceRemains {
	left := namespaceRemains{byResource: map[string]int{}, byFinalizer: map[string]int{}}
	for _, k := range s.storedKinds() {
		if !k.namespaced {
			continue
		}
		res, err := s.store.List(k.prefix(namespace), store.ListOptions{})
		if err != nil || len(res.Records) == 0 {
			continue
		}
		left.byResource[k.gr.Resource+"."+k.gr.Group] += len(res.Records)
		for _, r := range res.Records {
			for _, f := range r.Value.GetObjectMeta().Finalizers {
				left.byFinalizer[f]++
			}
		}
	}
	if len(left.byResource) == 0 {
		left.byResource = nil
	}
	if len(left.byFinalizer) == 0 {
		left.byFinalizer = nil
	}
	return left
}

// writeNamespaceConditions stores the deletion conditions for what is left
// in a terminating namespace, when they changed; it returns the writes made.
func (s *Server) writeNamespaceConditions(name string, left namespaceRemains) int {
	for {
		rec, err := s.store.Get(s.byName[client.Namespaces].key("", name), 0)
		if err != nil {
			return 0
		}
		cur := rec.Value.(*api.Namespace)
		conds := namespaceConditions(cur.Status.Conditions, left, s.now())
		if reflect.DeepEqual(conds, cur.Status.Conditions) {
			return 0
		}
		next := cur.DeepCopy()
		next.Status.Conditions = conds
		_, err = s.UpdateStatus(context.Background(), next)
		if err == nil {
			return 1
		}
		if !apierrors.IsConflict(err) {
			return 0
		}
	}
}

// Run sweeps whenever a grace period or namespace check comes due, on the
// server's clock, until ctx is done; over etcd it also repairs the
// allocations every RangeRepairInterval. The simulator calls Sweep itself.
func (s *Server) Run(ctx context.Context) {
	var wg sync.WaitGroup
	if s.repairs != nil {
		wg.Go(func() { s.repairLoop(ctx) })
	}
	s.sweepLoop(ctx)
	wg.Wait()
}

// sweepLoop is Run's sweeping.
func (s *Server) sweepLoop(ctx context.Context) {
	for {
		// The wake channel and the time to wait for are read together, so
		// that a deadline noted in between either is seen here or wakes
		// the wait.
		s.graceMu.Lock()
		wake := s.sweepWake
		next, ok := s.nextSweepLocked()
		s.graceMu.Unlock()
		var due <-chan time.Time
		var timer clock.Timer
		if ok {
			t := s.clock.NewTimer(next.Sub(s.clock.Now()))
			timer, due = t, t.C()
		}
		select {
		case <-ctx.Done():
		case <-wake:
		case <-due:
			s.Sweep()
		}
		if timer != nil {
			timer.Stop()
		}
		if ctx.Err() != nil {
			return
		}
	}
}

// restoreGrace notes, for a server starting over etcd, the objects a
// server before it marked for deletion with a grace period, so that Sweep
// removes them when it ends, as noteGrace does for those this server marks:
// the deadline is the stored deletionTimestamp, which the deletion set to
// its time plus the grace period.
func (s *Server) restoreGrace() error {
	for _, k := range s.storedKinds() {
		res, err := s.store.List(k.prefix(""), store.ListOptions{})
		if err != nil {
			return fmt.Errorf("apiserver: reading %s: %w", k.gr, err)
		}
		for _, r := range res.Records {
			if r.Value.GetObjectMeta().DeletionTimestamp != nil {
				s.noteGrace(r.Key, r.Value)
			}
		}
	}
	return nil
}
