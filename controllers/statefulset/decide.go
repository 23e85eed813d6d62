package statefulset

import (
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/controllers/deployment"
	"github.com/miniplane/miniplane/controllers/replication"
)

// ApplyRevision is set with the template revision records. Kubernetes:
// ApplyRevision (which applies the patch; a revision's patch replaces the
// whole template, so decoding it is the same).
func ApplyRevision(set *api.StatefulSet, revision *api.ControllerRevision) (*api.StatefulSet, error) {
	var patch struct {
		Spec struct {
			Template map[string]json.RawMessage `json:"template"`
		} `json:"spec"`
	}
	if err := json.Unmarshal(revision.Data, &patch); err != nil {
		return nil, fmt.Errorf("revision %s: %w", revision.Metadata.Name, err)
	}
	delete(patch.Spec.Template, "$patch")
	raw, err := json.Marshal(patch.Spec.Template)
	if err != nil {
		return nil, err
	}
	out := set.DeepCopy()
	out.Spec.Template = api.PodTemplateSpec{}
	if err := json.Unmarshal(raw, &out.Spec.Template); err != nil {
		return nil, fmt.Errorf("revision %s: %w", revision.Metadata.Name, err)
	}
	return out, nil
}

// State is what one sync of a stateful set decides from.
type State struct {
	// Set is the stateful set as cached.
	Set *api.StatefulSet
	// CurrentSet and UpdateSet are Set with the templates of its current
	// and update revisions, named CurrentRevision and UpdateRevision.
	CurrentSet, UpdateSet           *api.StatefulSet
	CurrentRevision, UpdateRevision string
	// CollisionCount is what the revisions were named with.
	CollisionCount *int32
	// Pods are the pods the set controls.
	Pods []*api.Pod
	// Claims are the claims of the set's namespace, by name.
	Claims map[string]*api.PersistentVolumeClaim
	// Now judges availability (minReadySeconds).
	Now time.Time
}

// Op is a write a Decision asks for.
type Op string

// The writes.
const (
	CreateClaim Op = "create claim"
	UpdateClaim Op = "update claim"
	CreatePod   Op = "create pod"
	UpdatePod   Op = "update pod"
	DeletePod   Op = "delete pod"
)

// Action is one write: Pod for the pod ops, Claim (and the Pod it is for)
// for the claim ops.
type Action struct {
	Op    Op
	Pod   *api.Pod
	Claim *api.PersistentVolumeClaim
}

// String is the action as tests and logs show it: "create pod web-0".
func (a Action) String() string {
	if a.Claim != nil {
		return string(a.Op) + " " + a.Claim.Metadata.Name
	}
	return string(a.Op) + " " + a.Pod.Metadata.Name
}

// Decision is what a sync does: Actions in order, then Status written.
type Decision struct {
	Actions []Action
	// Status is the set's status once the actions are made.
	Status api.StatefulSetStatus
	// Err is why some pod could not be made (a claim being deleted); the
	// sync fails with it, to retry.
	Err error
	// RecheckAfter, when positive, is when a ready pod becomes available.
	RecheckAfter time.Duration
}

func isCreated(p *api.Pod) bool     { return p.Status.Phase != "" }
func isTerminating(p *api.Pod) bool { return p.Metadata.DeletionTimestamp != nil }
func isFailed(p *api.Pod) bool      { return p.Status.Phase == api.PodFailed }
func isSucceeded(p *api.Pod) bool   { return p.Status.Phase == api.PodSucceeded }
func isRunningAndReady(p *api.Pod) bool {
	return p.Status.Phase == api.PodRunning && api.IsPodReady(p)
}

func isRunningAndAvailable(p *api.Pod, minReadySeconds int32, now time.Time) bool {
	return p.Status.Phase == api.PodRunning && replication.IsPodAvailable(p, minReadySeconds, now)
}

// isHealthy: running, ready and not terminating. Kubernetes: isHealthy.
func isHealthy(p *api.Pod) bool { return isRunningAndReady(p) && !isTerminating(p) }

func revisionOf(p *api.Pod) string { return p.Metadata.Labels[RevisionLabel] }

// decider carries one Decide's running state.
type decider struct {
	s          *State
	d          Decision
	monotonic  bool
	terminated map[string]bool // pods deleted by an earlier action
}

// Decide is one sync of a stateful set: pods missing at an ordinal of
// [start, start+replicas) are created (with their claims first), failed
// and succeeded ones deleted to be recreated, pods above the range deleted
// from the highest ordinal, then a RollingUpdate deletes, from the highest
// ordinal down to the partition, the first pod not at the update
// revision. Under OrderedReady each step waits for the pods before it to
// be running and ready (and available), and at most one pod is created or
// deleted; under Parallel nothing waits, except a rolling update, which
// replaces one unhealthy pod at a time. Kubernetes: updateStatefulSet,
// processReplica, processCondemned and the rolling update's loop.
func Decide(s *State) Decision {
	d := decide(s)
	completeRollingUpdate(s.Set, &d.Status)
	return d
}

// completeRollingUpdate makes the update revision current once every pod
// runs it and is ready. Kubernetes: completeRollingUpdate.
func completeRollingUpdate(set *api.StatefulSet, st *api.StatefulSetStatus) {
	if set.Spec.UpdateStrategy.Type != OnDelete && st.UpdatedReplicas == st.Replicas && st.ReadyReplicas == st.Replicas {
		st.CurrentReplicas = st.UpdatedReplicas
		st.CurrentRevision = st.UpdateRevision
	}
}

func decide(s *State) Decision {
	set := s.Set
	dc := &decider{s: s, monotonic: set.Spec.PodManagementPolicy != Parallel, terminated: map[string]bool{}}
	dc.d.Status = initialStatus(s)
	for _, p := range s.Pods {
		// availableReplicas changes when a ready pod's minReadySeconds end.
		if !isRunningAndAvailable(p, set.Spec.MinReadySeconds, s.Now) {
			dc.recheck(p)
		}
	}
	start, replicaCount := StartOrdinal(set), Replicas(set)
	replicas := make([]*api.Pod, replicaCount)
	var condemned []*api.Pod
	for _, p := range s.Pods {
		o := Ordinal(p)
		switch {
		case InRange(set, o):
			replicas[o-start] = p
		case o >= 0:
			condemned = append(condemned, p)
		}
	}
	for i := range replicas {
		if replicas[i] == nil {
			replicas[i] = dc.newVersionedPod(start + i)
		}
	}
	slices.SortFunc(condemned, func(a, b *api.Pod) int { return Ordinal(b) - Ordinal(a) })
	// firstUnhealthy is the lowest unhealthy pod: of the replicas, else of
	// the condemned, lowest ordinal first. Under OrderedReady scale-down
	// deletes an unhealthy pod only if it is that one, so a condemned pod
	// above an unhealthy one waits (e2e: "Scaling should happen in
	// predictable order and halt if any stateful pod is unhealthy" breaks
	// every pod's readiness, scales to 0 and expects all three to stay).
	var firstUnhealthy *api.Pod
	ascending := slices.Clone(condemned)
	slices.Reverse(ascending)
	for _, p := range append(slices.Clone(replicas), ascending...) {
		if !isHealthy(p) {
			firstUnhealthy = p
			break
		}
	}
	if set.Metadata.DeletionTimestamp != nil {
		return dc.d
	}
	for _, p := range condemned {
		dc.fixClaims(p)
	}
	for _, p := range replicas {
		if dc.processReplica(p) {
			return dc.d
		}
	}
	for _, p := range condemned {
		if dc.processCondemned(p, firstUnhealthy) {
			return dc.d
		}
	}
	if set.Spec.UpdateStrategy.Type == OnDelete {
		return dc.d
	}
	dc.rollingUpdate(replicas)
	return dc.d
}

// newVersionedPod is the pod to create at ordinal: of the current revision
// below the partition, of the update revision at or above it. Kubernetes:
// newVersionedStatefulSetPod (whose unset-rollingUpdate case reads the
// current replica count).
func (dc *decider) newVersionedPod(ordinal int) *api.Pod {
	s := dc.s
	cur := s.CurrentSet
	if cur.Spec.UpdateStrategy.Type != OnDelete {
		limit := int(cur.Status.CurrentReplicas)
		if ru := cur.Spec.UpdateStrategy.RollingUpdate; ru != nil && ru.Partition != nil {
			limit = int(*ru.Partition)
		} else if ru != nil {
			limit = 0
		}
		if ordinal < StartOrdinal(cur)+limit {
			return NewPod(cur, ordinal, s.CurrentRevision)
		}
	}
	return NewPod(s.UpdateSet, ordinal, s.UpdateRevision)
}

// initialStatus counts the pods as they are. Kubernetes: the counting
// loop of updateStatefulSet.
func initialStatus(s *State) api.StatefulSetStatus {
	st := api.StatefulSetStatus{
		ObservedGeneration: s.Set.Metadata.Generation,
		CurrentRevision:    s.CurrentRevision, UpdateRevision: s.UpdateRevision,
		CollisionCount: s.CollisionCount,
		Conditions:     s.Set.Status.Conditions,
	}
	for _, p := range s.Pods {
		if isCreated(p) {
			st.Replicas++
		}
		if isRunningAndReady(p) {
			st.ReadyReplicas++
			if isRunningAndAvailable(p, s.Set.Spec.MinReadySeconds, s.Now) {
				st.AvailableReplicas++
			}
		}
		if isCreated(p) && !isTerminating(p) {
			if revisionOf(p) == s.CurrentRevision {
				st.CurrentReplicas++
			}
			if revisionOf(p) == s.UpdateRevision {
				st.UpdatedReplicas++
			}
		}
	}
	return st
}

func (dc *decider) add(a Action) { dc.d.Actions = append(dc.d.Actions, a) }

// deletePod deletes p and uncounts it from its revision.
func (dc *decider) deletePod(p *api.Pod) {
	dc.add(Action{Op: DeletePod, Pod: p})
	dc.terminated[p.Metadata.Name] = true
	if revisionOf(p) == dc.s.CurrentRevision {
		dc.d.Status.CurrentReplicas--
	}
	if revisionOf(p) == dc.s.UpdateRevision {
		dc.d.Status.UpdatedReplicas--
	}
}

// fixClaims updates p's claims whose owner references the retention policy
// wants otherwise. Kubernetes: UpdatePodClaimForRetentionPolicy.
func (dc *decider) fixClaims(p *api.Pod) {
	for _, want := range Claims(dc.s.UpdateSet, Ordinal(p)) {
		claim, ok := dc.s.Claims[want.Metadata.Name]
		if !ok || claim.Metadata.DeletionTimestamp != nil || claimOwnersMatch(dc.s.UpdateSet, p, claim) {
			continue
		}
		next := claim.DeepCopy()
		next.Metadata.OwnerReferences = ClaimOwners(dc.s.UpdateSet, p, claim)
		dc.add(Action{Op: UpdateClaim, Pod: p, Claim: next})
	}
}

// createClaims creates p's missing claims, owned as the retention policy
// wants; a claim being deleted stops p's creation. Kubernetes:
// createPersistentVolumeClaims.
func (dc *decider) createClaims(p *api.Pod) bool {
	ok := true
	for _, want := range Claims(dc.s.Set, Ordinal(p)) {
		claim, exists := dc.s.Claims[want.Metadata.Name]
		switch {
		case !exists:
			want.Metadata.OwnerReferences = ClaimOwners(dc.s.Set, p, want)
			dc.add(Action{Op: CreateClaim, Pod: p, Claim: want})
		case claim.Metadata.DeletionTimestamp != nil:
			dc.d.Err = fmt.Errorf("pvc %s is being deleted", claim.Metadata.Name)
			ok = false
		}
	}
	return ok
}

// processReplica handles the pod at one ordinal in range and reports
// whether the sync must stop there. Kubernetes: processReplica.
func (dc *decider) processReplica(p *api.Pod) (stop bool) {
	s := dc.s
	if isFailed(p) || isSucceeded(p) {
		if !isTerminating(p) {
			dc.deletePod(p)
		}
		// The replacement is made once the pod is gone.
		return dc.monotonic
	}
	if !isCreated(p) {
		if !dc.createClaims(p) {
			return true
		}
		dc.add(Action{Op: CreatePod, Pod: p})
		dc.d.Status.Replicas++
		if revisionOf(p) == s.CurrentRevision {
			dc.d.Status.CurrentReplicas++
		}
		if revisionOf(p) == s.UpdateRevision {
			dc.d.Status.UpdatedReplicas++
		}
		return dc.monotonic
	}
	if p.Status.Phase == api.PodPending {
		if !dc.createClaims(p) {
			return true
		}
	}
	if isTerminating(p) && dc.monotonic {
		return true
	}
	if !isRunningAndReady(p) && dc.monotonic {
		return true
	}
	if !isRunningAndAvailable(p, s.Set.Spec.MinReadySeconds, s.Now) && dc.monotonic {
		return true
	}
	if !IdentityMatches(s.Set, p) {
		next := p.DeepCopy()
		updateIdentity(s.Set, next)
		dc.add(Action{Op: UpdatePod, Pod: next})
		return false
	}
	if !StorageMatches(s.Set, p) {
		// A pod's volumes cannot change; its missing claims can be made.
		dc.createClaims(p)
	}
	dc.fixClaims(p)
	return false
}

// recheck asks for a sync when ready pod p becomes available.
func (dc *decider) recheck(p *api.Pod) {
	if !isRunningAndReady(p) {
		return
	}
	for _, c := range p.Status.Conditions {
		if c.Type == api.PodReady {
			left := c.LastTransitionTime.Add(time.Duration(dc.s.Set.Spec.MinReadySeconds)*time.Second).Sub(dc.s.Now) + time.Second
			if dc.d.RecheckAfter == 0 || left < dc.d.RecheckAfter {
				dc.d.RecheckAfter = max(left, time.Second)
			}
			return
		}
	}
}

// processCondemned handles a pod above the range, highest ordinal first,
// and reports whether the sync must stop there. Kubernetes:
// processCondemned.
func (dc *decider) processCondemned(p, firstUnhealthy *api.Pod) (stop bool) {
	if isTerminating(p) {
		return dc.monotonic
	}
	if !isRunningAndReady(p) && dc.monotonic && p != firstUnhealthy {
		return true
	}
	if !isRunningAndAvailable(p, dc.s.Set.Spec.MinReadySeconds, dc.s.Now) && dc.monotonic && p != firstUnhealthy {
		return true
	}
	dc.deletePod(p)
	return dc.monotonic
}

// rollingUpdate deletes, from the highest ordinal down to the partition,
// the first pod not at the update revision, waiting on any unhealthy pod
// on the way; with maxUnavailable above 1 it deletes up to that many pods
// while no more than that many are unhealthy. Kubernetes: the
// RollingUpdate loops of updateStatefulSet and
// updateStatefulSetAfterInvariantEstablished.
func (dc *decider) rollingUpdate(replicas []*api.Pod) {
	set := dc.s.Set
	partition, maxUnavailable := 0, 1
	if ru := set.Spec.UpdateStrategy.RollingUpdate; ru != nil {
		if ru.Partition != nil {
			partition = int(*ru.Partition)
		}
		if ru.MaxUnavailable != nil {
			if n, err := deployment.ScaledValue(ru.MaxUnavailable, len(replicas), false); err == nil {
				maxUnavailable = max(n, 1)
			}
		}
	}
	if maxUnavailable == 1 {
		for target := len(replicas) - 1; target >= partition; target-- {
			p := replicas[target]
			if !isCreated(p) || dc.terminated[p.Metadata.Name] {
				return
			}
			if revisionOf(p) != dc.s.UpdateRevision && !isTerminating(p) {
				dc.deletePod(p)
				return
			}
			if !isHealthy(p) {
				return
			}
		}
		return
	}
	unavailable := 0
	for _, p := range replicas {
		if !isCreated(p) || dc.terminated[p.Metadata.Name] || !isRunningAndAvailable(p, set.Spec.MinReadySeconds, dc.s.Now) || isTerminating(p) {
			unavailable++
		}
	}
	for target := len(replicas) - 1; target >= partition && unavailable < maxUnavailable; target-- {
		p := replicas[target]
		if !isCreated(p) || isTerminating(p) || dc.terminated[p.Metadata.Name] {
			continue
		}
		if revisionOf(p) != dc.s.UpdateRevision {
			dc.deletePod(p)
			unavailable++
		}
	}
}
