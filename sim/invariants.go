package sim

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/api/apierrors"
	"github.com/miniplane/miniplane/client"
)

// The built-in invariants, by the names violations carry. Checked at every
// step or write: revisions-rise, watch-exactly-once, single-writer,
// rc-no-overshoot and rs-no-overshoot, deployment-surge,
// statefulset-ordered (statefulsets.go), progress. Checked
// when the system is quiet with no fault in force: cache-matches-store,
// rc-replicas and rs-replicas, rc-status and rs-status, one-controller,
// endpoints-match-pods, owners-exist, deployment-rollout and
// deployment-complete (deployments.go), daemonset-one-per-node and
// daemonset-complete (daemonsets.go), budget-status (budgets.go),
// and the Config's own. At the end of
// a run: converges.

// noteTerm records that in started leading with term: a term belongs to
// one instance, and it is the newest.
func (s *Sim) noteTerm(in *instance, term int64) {
	if owner, ok := s.termOwner[term]; ok && owner != in {
		s.violate("single-writer", fmt.Sprintf("%s and %s both lead with term %d", owner.name, in.name, term))
		return
	}
	s.termOwner[term] = in
	if term > s.lastTerm {
		s.lastTerm, s.lastTermBy = term, in
	}
}

// checkTerm enforces that a controller writes only in its instance's
// newest term: no write with a term older than one another instance has
// started leading with. In store order, the terms of the writes therefore
// never go back, and two leaders' writes never interleave.
func (s *Sim) checkTerm(in *instance, term int64, key string, rev int64) {
	if owner := s.termOwner[term]; owner != in {
		s.violate("single-writer", fmt.Sprintf("%s wrote %s at revision %d with term %d, which is not its own", in.name, key, rev, term), key)
		return
	}
	if term < s.lastTerm {
		s.violate("single-writer", fmt.Sprintf("%s wrote %s at revision %d with term %d after %s started leading with term %d",
			in.name, key, rev, term, s.lastTermBy.name, s.lastTerm), key)
	}
}

// replicatedKind is one kind of object the replication controller keeps
// pods for, as the invariants name it.
type replicatedKind struct {
	kind, resource, prefix string // prefix names its invariants: "rc", "rs"
}

// replicatedKinds are the ReplicationController and the ReplicaSet.
func replicatedKinds() []replicatedKind {
	return []replicatedKind{
		{kind: "ReplicationController", resource: client.ReplicationControllers, prefix: "rc"},
		{kind: "ReplicaSet", resource: client.ReplicaSets, prefix: "rs"},
	}
}

// replicated is what the invariants read of a ReplicationController or a
// ReplicaSet.
type replicated struct {
	meta     *api.ObjectMeta
	replicas int32 // spec.replicas, nil read as 1
	status   api.ReplicaSetStatus
}

// replicatedOf reads obj, a ReplicationController or a ReplicaSet.
func replicatedOf(obj api.Object) replicated {
	switch o := obj.(type) {
	case *api.ReplicationController:
		st := o.Status
		return replicated{meta: &o.Metadata, replicas: replicasOr1(o.Spec.Replicas), status: api.ReplicaSetStatus{
			Replicas: st.Replicas, ReadyReplicas: st.ReadyReplicas, ObservedGeneration: st.ObservedGeneration}}
	case *api.ReplicaSet:
		return replicated{meta: &o.Metadata, replicas: replicasOr1(o.Spec.Replicas), status: o.Status}
	}
	panic(fmt.Sprintf("sim: %T is not replicated", obj))
}

func replicasOr1(r *int32) int32 {
	if r == nil {
		return 1
	}
	return *r
}

// checkOvershoot enforces, after a controller creates a pod, that the pod's
// replication controller or replica set does not own more active pods than
// the most replicas it was ever asked for.
func (s *Sim) checkOvershoot(pod *api.Pod) {
	ref := api.GetControllerOf(&pod.Metadata)
	if ref == nil {
		return
	}
	i := slices.IndexFunc(replicatedKinds(), func(k replicatedKind) bool { return k.kind == ref.Kind })
	if i < 0 {
		return
	}
	rk := replicatedKinds()[i]
	most, known := s.maxReplicas[ref.UID]
	if !known {
		obj, err := s.srv.Get(context.Background(), rk.resource, pod.Metadata.Namespace, ref.Name, client.GetOptions{})
		if err != nil {
			return
		}
		r := replicatedOf(obj)
		if r.meta.UID != ref.UID {
			return
		}
		most = r.replicas
		s.maxReplicas[ref.UID] = most
	}
	owned := 0
	for _, p := range s.pods(pod.Metadata.Namespace) {
		if c := api.GetControllerOf(&p.Metadata); c != nil && c.UID == ref.UID && api.IsPodActive(p) {
			owned++
		}
	}
	if owned > int(most) {
		s.violate(rk.prefix+"-no-overshoot", fmt.Sprintf("creating %s gave %s/%s %d active pods; it never asked for more than %d",
			pod.Metadata.Name, pod.Metadata.Namespace, ref.Name, owned, most),
			rk.kind+" "+pod.Metadata.Namespace+"/"+ref.Name, "Pod "+api.KeyOf(&pod.Metadata))
	}
}

// pods lists the pods of a namespace ("" for all) from the store.
func (s *Sim) pods(namespace string) []*api.Pod {
	l, err := s.srv.List(context.Background(), client.Pods, namespace, client.ListOptions{})
	if err != nil {
		panic("sim: listing pods from the server failed: " + err.Error())
	}
	out := make([]*api.Pod, len(l.Items))
	for i, o := range l.Items {
		out[i] = o.(*api.Pod)
	}
	return out
}

// checkQuiet checks the quiet-time invariants, if anything they look at
// may have changed since they last held.
func (s *Sim) checkQuiet(ctx context.Context) error {
	if !s.dirty {
		return nil
	}
	if err := s.Check(ctx); err != nil {
		var name, detail string
		var objects []string
		if ie, ok := err.(*invariantError); ok {
			name, detail, objects = ie.name, ie.detail, ie.objects
		} else {
			name, detail = "check", err.Error()
		}
		s.violate(name, detail, objects...)
		return s.violation
	}
	s.dirty = false
	s.record(Event{Actor: "sim", Kind: "quiet", Detail: "invariants hold"})
	return nil
}

// invariantError is a quiet-time invariant that did not hold, with the
// objects it concerns (keys with their kinds) for the trace.
type invariantError struct {
	name, detail string
	objects      []string
}

func (e *invariantError) Error() string { return e.name + ": " + e.detail }

func failed(name, format string, args ...any) error {
	return &invariantError{name: name, detail: fmt.Sprintf(format, args...)}
}

// failedOn is failed naming the objects concerned.
func failedOn(objects []string, name, format string, args ...any) error {
	return &invariantError{name: name, detail: fmt.Sprintf(format, args...), objects: objects}
}

// Check checks the invariants that hold when the system is quiet: no
// stored object was changed in place, every cache equals the store, every replication controller owns exactly
// spec.replicas active pods and says so in its status, no pod has two
// controllers or an owner that is gone, every service's Endpoints list the
// addresses of its pods, and the Config's own invariants. It returns the
// first that fails.
func (s *Sim) Check(ctx context.Context) error {
	checks := []func(context.Context) error{s.checkMutations, s.checkCaches, s.checkReplication, s.checkEndpoints, s.checkOwners, s.checkDeployments, s.checkDaemonSets, s.checkJobs, s.checkBudgets}
	for _, check := range checks {
		if err := check(ctx); err != nil {
			return err
		}
	}
	for _, inv := range s.cfg.Invariants {
		if err := inv.Check(ctx, s); err != nil {
			return failed(inv.Name, "%v", err)
		}
	}
	return nil
}

// checkMutations checks that no object the store holds, nor any older
// version in its history, was changed in place since it was stored
// (DESIGN.md, "Contracts every package keeps").
func (s *Sim) checkMutations(context.Context) error {
	if err := s.srv.CheckMutations(); err != nil {
		return failed("objects-immutable", "%v", err)
	}
	return nil
}

// checkCaches compares every running informer's cache with the store.
func (s *Sim) checkCaches(ctx context.Context) error {
	var err error
	s.eachInformer(func(_ *instance, ni *namedInformer) {
		if err != nil {
			return
		}
		resource := ni.name[strings.LastIndexByte(ni.name, '/')+1:]
		if !ni.inf.HasSynced() {
			err = failed("cache-matches-store", "%s has not synced", ni.name)
			return
		}
		l, lerr := s.srv.List(ctx, resource, "", client.ListOptions{})
		if lerr != nil {
			err = lerr
			return
		}
		want := make(map[string]string, len(l.Items))
		for _, o := range l.Items {
			want[api.KeyOf(o.GetObjectMeta())] = o.GetObjectMeta().ResourceVersion
		}
		got := make(map[string]string, len(want))
		for _, o := range ni.inf.Indexer().List() {
			got[api.KeyOf(o.GetObjectMeta())] = o.GetObjectMeta().ResourceVersion
		}
		if !maps.Equal(want, got) {
			err = failed("cache-matches-store", "%s: %s", ni.name, mapDiff(want, got))
		}
	})
	return err
}

// mapDiff describes how got differs from want, key by key, in key order.
func mapDiff(want, got map[string]string) string {
	var out []string
	for _, k := range slices.Sorted(maps.Keys(want)) {
		if g, ok := got[k]; !ok {
			out = append(out, "missing "+k)
		} else if g != want[k] {
			out = append(out, fmt.Sprintf("%s at rv %s, store has %s", k, g, want[k]))
		}
	}
	for _, k := range slices.Sorted(maps.Keys(got)) {
		if _, ok := want[k]; !ok {
			out = append(out, "extra "+k)
		}
	}
	if len(out) > 5 {
		out = append(out[:5], fmt.Sprintf("and %d more", len(out)-5))
	}
	return strings.Join(out, "; ")
}

// checkReplication: each replication controller and replica set owns
// spec.replicas active pods, its status says so, and no pod has two
// controllers.
func (s *Sim) checkReplication(ctx context.Context) error {
	pods := s.pods("")
	owned := map[api.UID][]*api.Pod{}
	for _, p := range pods {
		n := 0
		for _, ref := range p.Metadata.OwnerReferences {
			if ref.Controller != nil && *ref.Controller {
				n++
			}
		}
		if n > 1 {
			return failedOn([]string{"Pod " + api.KeyOf(&p.Metadata)}, "one-controller", "pod %s has %d controllers", api.KeyOf(&p.Metadata), n)
		}
		if ref := api.GetControllerOf(&p.Metadata); ref != nil && api.IsPodActive(p) {
			owned[ref.UID] = append(owned[ref.UID], p)
		}
	}
	for _, rk := range replicatedKinds() {
		l, err := s.srv.List(ctx, rk.resource, "", client.ListOptions{})
		if err != nil {
			return err
		}
		for _, o := range l.Items {
			r := replicatedOf(o)
			if r.meta.DeletionTimestamp != nil {
				continue
			}
			key := api.KeyOf(r.meta)
			want := r.replicas
			have := owned[r.meta.UID]
			if int32(len(have)) != want {
				return failedOn([]string{rk.kind + " " + key}, rk.prefix+"-replicas", "%s wants %d replicas and owns %d active pods", key, want, len(have))
			}
			ready := int32(0)
			for _, p := range have {
				if api.IsPodReady(p) {
					ready++
				}
			}
			st := r.status
			if st.Replicas != want || st.ReadyReplicas != ready || st.ObservedGeneration != r.meta.Generation {
				return failedOn([]string{rk.kind + " " + key}, rk.prefix+"-status", "%s: status says replicas=%d ready=%d observedGeneration=%d; it owns %d, %d ready, generation %d",
					key, st.Replicas, st.ReadyReplicas, st.ObservedGeneration, want, ready, r.meta.Generation)
			}
		}
	}
	return nil
}

// checkEndpoints: every service with a selector and numeric target ports
// has Endpoints whose ready and not-ready addresses are exactly the IPs of
// its selected, running, undeleted pods, split by readiness.
func (s *Sim) checkEndpoints(ctx context.Context) error {
	l, err := s.srv.List(ctx, client.Services, "", client.ListOptions{})
	if err != nil {
		return err
	}
	for _, o := range l.Items {
		svc := o.(*api.Service)
		if len(svc.Spec.Selector) == 0 || hasNamedTargetPort(svc) || len(svc.Spec.Ports) == 0 {
			continue
		}
		sel := api.SelectorFromSet(svc.Spec.Selector)
		var wantReady, wantNotReady []string
		for _, p := range s.pods(svc.Metadata.Namespace) {
			if !sel.Matches(p.Metadata.Labels) || p.Status.PodIP == "" || p.Metadata.DeletionTimestamp != nil ||
				p.Status.Phase == api.PodFailed || p.Status.Phase == api.PodSucceeded {
				continue
			}
			if api.IsPodReady(p) || svc.Spec.PublishNotReadyAddresses {
				wantReady = append(wantReady, p.Status.PodIP)
			} else {
				wantNotReady = append(wantNotReady, p.Status.PodIP)
			}
		}
		key := api.KeyOf(&svc.Metadata)
		obj, err := s.srv.Get(ctx, client.Endpoints, svc.Metadata.Namespace, svc.Metadata.Name, client.GetOptions{})
		if apierrors.IsNotFound(err) {
			return failedOn([]string{"Service " + key}, "endpoints-match-pods", "service %s has no Endpoints", key)
		} else if err != nil {
			return err
		}
		var gotReady, gotNotReady []string
		for _, ss := range obj.(*api.Endpoints).Subsets {
			for _, a := range ss.Addresses {
				gotReady = append(gotReady, a.IP)
			}
			for _, a := range ss.NotReadyAddresses {
				gotNotReady = append(gotNotReady, a.IP)
			}
		}
		for _, x := range [][]string{wantReady, wantNotReady, gotReady, gotNotReady} {
			slices.Sort(x)
		}
		gotReady, gotNotReady = slices.Compact(gotReady), slices.Compact(gotNotReady)
		if !slices.Equal(wantReady, gotReady) || !slices.Equal(wantNotReady, gotNotReady) {
			return failedOn([]string{"Service " + key, "Endpoints " + key}, "endpoints-match-pods", "service %s: Endpoints list ready %v, not ready %v; its pods are ready %v, not ready %v",
				key, gotReady, gotNotReady, wantReady, wantNotReady)
		}
	}
	return nil
}

func hasNamedTargetPort(svc *api.Service) bool {
	for _, p := range svc.Spec.Ports {
		if p.TargetPort.Type == api.String {
			return true
		}
	}
	return false
}

// checkOwners: no pod names a replication controller or replica set owner
// that is gone (the garbage collector has caught up).
func (s *Sim) checkOwners(ctx context.Context) error {
	live := map[api.UID]bool{}
	kinds := map[string]bool{}
	for _, rk := range replicatedKinds() {
		kinds[rk.kind] = true
		l, err := s.srv.List(ctx, rk.resource, "", client.ListOptions{})
		if err != nil {
			return err
		}
		for _, o := range l.Items {
			live[o.GetObjectMeta().UID] = true
		}
	}
	for _, p := range s.pods("") {
		for _, ref := range p.Metadata.OwnerReferences {
			if kinds[ref.Kind] && !live[ref.UID] {
				return failedOn([]string{"Pod " + api.KeyOf(&p.Metadata), ref.Kind + " " + p.Metadata.Namespace + "/" + ref.Name}, "owners-exist", "pod %s is owned by %s %s (uid %s), which is gone",
					api.KeyOf(&p.Metadata), ref.Kind, ref.Name, ref.UID)
			}
		}
	}
	return nil
}
