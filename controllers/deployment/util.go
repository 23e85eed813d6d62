package deployment

import (
	"cmp"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/miniplane/miniplane/api"
)

// The labels and annotations a deployment and its replica sets carry.
// Kubernetes: apps.DefaultDeploymentUniqueLabelKey and the annotation
// constants of pkg/controller/deployment/util.
const (
	// PodTemplateHashLabel tells a deployment's replica sets (and their
	// pods) apart: it is in each replica set's selector, labels and
	// template labels, and its value is the hash that names the set.
	PodTemplateHashLabel = "pod-template-hash"
	// RevisionAnnotation is the revision of a replica set, and on the
	// deployment the revision of its newest replica set.
	RevisionAnnotation = "deployment.kubernetes.io/revision"
	// RevisionHistoryAnnotation lists the earlier revisions a replica set
	// had (a rollback gives an old set a new revision), comma separated.
	RevisionHistoryAnnotation = "deployment.kubernetes.io/revision-history"
	// DesiredReplicasAnnotation is the deployment's spec.replicas when the
	// controller last sized the replica set: proportional scaling compares
	// it with the deployment's replicas now.
	DesiredReplicasAnnotation = "deployment.kubernetes.io/desired-replicas"
	// MaxReplicasAnnotation is replicas + maxSurge as of that sizing, the
	// denominator of a replica set's share in proportional scaling.
	MaxReplicasAnnotation = "deployment.kubernetes.io/max-replicas"
	// LastAppliedConfigAnnotation is kubectl apply's; it is not copied to
	// replica sets.
	LastAppliedConfigAnnotation = "kubectl.kubernetes.io/last-applied-configuration"
	// deprecatedRollbackTo is extensions/v1beta1's rollback request, kept
	// in annotations by conversion; it is not copied either.
	deprecatedRollbackTo = "deprecated.deployment.rollback.to"
	// maxRevHistoryLengthInChars bounds the revision-history annotation.
	maxRevHistoryLengthInChars = 2000
)

// annotationsToSkip are the deployment annotations that are not copied to
// its replica sets. Kubernetes: annotationsToSkip.
func skipCopyAnnotation(key string) bool {
	switch key {
	case LastAppliedConfigAnnotation, RevisionAnnotation, RevisionHistoryAnnotation,
		DesiredReplicasAnnotation, MaxReplicasAnnotation, deprecatedRollbackTo:
		return true
	}
	return false
}

// ---- sizes ----

// specReplicas is rs.spec.replicas; nil, which the API server defaults
// away, counts as 1.
func specReplicas(rs *api.ReplicaSet) int32 {
	if rs.Spec.Replicas == nil {
		return 1
	}
	return *rs.Spec.Replicas
}

// desiredReplicas is d.spec.replicas; nil counts as 1.
func desiredReplicas(d *api.Deployment) int32 {
	if d.Spec.Replicas == nil {
		return 1
	}
	return *d.Spec.Replicas
}

// withReplicas returns a shallow copy of rs whose spec.replicas is n: what
// a decision hands the next one after it has planned a scale, without
// touching the shared rs.
func withReplicas(rs *api.ReplicaSet, n int32) *api.ReplicaSet {
	cp := *rs
	cp.Spec.Replicas = &n
	return &cp
}

// ReplicaCount sums the replica sets' spec.replicas (nil sets skipped).
// Kubernetes: GetReplicaCountForReplicaSets.
func ReplicaCount(rss []*api.ReplicaSet) int32 {
	var n int32
	for _, rs := range rss {
		if rs != nil {
			n += specReplicas(rs)
		}
	}
	return n
}

// ActualReplicaCount sums status.replicas, the pods the sets have.
// Kubernetes: GetActualReplicaCountForReplicaSets.
func ActualReplicaCount(rss []*api.ReplicaSet) int32 {
	var n int32
	for _, rs := range rss {
		if rs != nil {
			n += rs.Status.Replicas
		}
	}
	return n
}

// ReadyReplicaCount sums status.readyReplicas. Kubernetes:
// GetReadyReplicaCountForReplicaSets.
func ReadyReplicaCount(rss []*api.ReplicaSet) int32 {
	var n int32
	for _, rs := range rss {
		if rs != nil {
			n += rs.Status.ReadyReplicas
		}
	}
	return n
}

// AvailableReplicaCount sums status.availableReplicas: the replica set
// controller counts a pod available once it has been ready for
// minReadySeconds, which the deployment copies to its sets. Kubernetes:
// GetAvailableReplicaCountForReplicaSets.
func AvailableReplicaCount(rss []*api.ReplicaSet) int32 {
	var n int32
	for _, rs := range rss {
		if rs != nil {
			n += rs.Status.AvailableReplicas
		}
	}
	return n
}

// FilterActive returns the non-nil sets that want pods (spec.replicas >
// 0), in order. Kubernetes: controller.FilterActiveReplicaSets.
func FilterActive(rss []*api.ReplicaSet) []*api.ReplicaSet {
	var out []*api.ReplicaSet
	for _, rs := range rss {
		if rs != nil && specReplicas(rs) > 0 {
			out = append(out, rs)
		}
	}
	return out
}

// ---- orders ----

// byCreation orders replica sets oldest first, by name among sets created
// in the same second. Kubernetes: controller.ReplicaSetsByCreationTimestamp.
func byCreation(a, b *api.ReplicaSet) int {
	if c := a.Metadata.CreationTimestamp.Compare(b.Metadata.CreationTimestamp.Time); c != 0 {
		return c
	}
	return strings.Compare(a.Metadata.Name, b.Metadata.Name)
}

// bySizeOlder orders larger sets first, older first among equals: the
// order sets are scaled down in. Kubernetes: ReplicaSetsBySizeOlder.
func bySizeOlder(a, b *api.ReplicaSet) int {
	if c := cmp.Compare(specReplicas(b), specReplicas(a)); c != 0 {
		return c
	}
	return byCreation(a, b)
}

// bySizeNewer orders larger sets first, newer first among equals: the
// order sets are scaled up in. Kubernetes: ReplicaSetsBySizeNewer.
func bySizeNewer(a, b *api.ReplicaSet) int {
	if c := cmp.Compare(specReplicas(b), specReplicas(a)); c != 0 {
		return c
	}
	return byCreation(b, a)
}

// byRevision orders sets by revision, by creation where a revision is
// missing, malformed or equal. Kubernetes: ReplicaSetsByRevision.
func byRevision(a, b *api.ReplicaSet) int {
	ra, errA := Revision(&a.Metadata)
	rb, errB := Revision(&b.Metadata)
	if errA != nil || errB != nil || ra == rb {
		return byCreation(a, b)
	}
	return cmp.Compare(ra, rb)
}

// ---- revisions and annotations ----

// Revision returns the revision annotation of meta, 0 if it has none.
// Kubernetes: deploymentutil.Revision.
func Revision(meta *api.ObjectMeta) (int64, error) {
	v, ok := meta.Annotations[RevisionAnnotation]
	if !ok {
		return 0, nil
	}
	return strconv.ParseInt(v, 10, 64)
}

// MaxRevision returns the highest revision among the sets; malformed ones
// are skipped. Kubernetes: MaxRevision.
func MaxRevision(rss []*api.ReplicaSet) int64 {
	var m int64
	for _, rs := range rss {
		if v, err := Revision(&rs.Metadata); err == nil && v > m {
			m = v
		}
	}
	return m
}

// LastRevision returns the second highest revision among the sets: the
// one before the newest. Kubernetes: LastRevision.
func LastRevision(rss []*api.ReplicaSet) int64 {
	var maxRev, secMax int64
	for _, rs := range rss {
		v, err := Revision(&rs.Metadata)
		if err != nil {
			continue
		}
		if v >= maxRev {
			secMax, maxRev = maxRev, v
		} else if v > secMax {
			secMax = v
		}
	}
	return secMax
}

// copyDeploymentAnnotations copies d's annotations to rs but those that
// skipCopyAnnotation names, and reports whether rs changed. rs's map must
// be its own. Kubernetes: copyDeploymentAnnotationsToReplicaSet.
func copyDeploymentAnnotations(d *api.Deployment, rs *api.ReplicaSet) bool {
	changed := false
	if rs.Metadata.Annotations == nil {
		rs.Metadata.Annotations = map[string]string{}
	}
	for k, v := range d.Metadata.Annotations {
		// The deployment's revision follows its new set's, not the other
		// way round: a failed write of the deployment leaves it stale.
		if cur, ok := rs.Metadata.Annotations[k]; skipCopyAnnotation(k) || (ok && cur == v) {
			continue
		}
		rs.Metadata.Annotations[k] = v
		changed = true
	}
	return changed
}

// SetNewReplicaSetAnnotations brings the annotations of newRS, the
// deployment's new set, up to date: d's annotations copied, the revision
// raised to newRevision when it is lower (the old revision appended to the
// revision history: a rollback), and, for a set about to be created
// (!exists), the desired and max replicas. It reports whether anything
// changed. newRS's map must be its own. Kubernetes:
// SetNewReplicaSetAnnotations.
func SetNewReplicaSetAnnotations(d *api.Deployment, newRS *api.ReplicaSet, newRevision string, exists bool) bool {
	return setNewReplicaSetAnnotations(d, newRS, newRevision, exists, maxRevHistoryLengthInChars)
}

// setNewReplicaSetAnnotations is SetNewReplicaSetAnnotations with the
// revision history bounded to historyLimit characters.
func setNewReplicaSetAnnotations(d *api.Deployment, newRS *api.ReplicaSet, newRevision string, exists bool, historyLimit int) bool {
	changed := copyDeploymentAnnotations(d, newRS)
	oldRevision, had := newRS.Metadata.Annotations[RevisionAnnotation]
	oldRev, err := strconv.ParseInt(oldRevision, 10, 64)
	if err != nil {
		if oldRevision != "" {
			return false
		}
		oldRev = 0
	}
	newRev, err := strconv.ParseInt(newRevision, 10, 64)
	if err != nil {
		return false
	}
	// A set's revision only rises: old sets deleted after the new one got
	// its revision may make newRevision smaller.
	if oldRev < newRev {
		newRS.Metadata.Annotations[RevisionAnnotation] = newRevision
		changed = true
	}
	if had && oldRev < newRev {
		history := newRS.Metadata.Annotations[RevisionHistoryAnnotation]
		olds := strings.Split(history, ",")
		if olds[0] == "" {
			newRS.Metadata.Annotations[RevisionHistoryAnnotation] = oldRevision
		} else {
			total := len(history) + len(oldRevision) + 1
			start := 0
			for total > historyLimit && start < len(olds) {
				total -= len(olds[start]) + 1
				start++
			}
			if total <= historyLimit {
				newRS.Metadata.Annotations[RevisionHistoryAnnotation] = strings.Join(append(olds[start:], oldRevision), ",")
			}
		}
	}
	if !exists && SetReplicasAnnotations(newRS, desiredReplicas(d), desiredReplicas(d)+MaxSurge(d)) {
		changed = true
	}
	return changed
}

// SetDeploymentRevision sets d's revision annotation and reports whether
// it changed. d's map must be its own. Kubernetes: SetDeploymentRevision.
func SetDeploymentRevision(d *api.Deployment, revision string) bool {
	if d.Metadata.Annotations == nil {
		d.Metadata.Annotations = map[string]string{}
	}
	if d.Metadata.Annotations[RevisionAnnotation] == revision {
		return false
	}
	d.Metadata.Annotations[RevisionAnnotation] = revision
	return true
}

// SetReplicasAnnotations sets the desired- and max-replicas annotations of
// rs and reports whether they changed. rs's map must be its own.
// Kubernetes: SetReplicasAnnotations.
func SetReplicasAnnotations(rs *api.ReplicaSet, desired, maxReplicas int32) bool {
	if rs.Metadata.Annotations == nil {
		rs.Metadata.Annotations = map[string]string{}
	}
	changed := false
	for k, v := range map[string]string{
		DesiredReplicasAnnotation: strconv.Itoa(int(desired)),
		MaxReplicasAnnotation:     strconv.Itoa(int(maxReplicas)),
	} {
		if rs.Metadata.Annotations[k] != v {
			rs.Metadata.Annotations[k] = v
			changed = true
		}
	}
	return changed
}

// ReplicasAnnotationsNeedUpdate reports whether SetReplicasAnnotations
// would change rs. Kubernetes: ReplicasAnnotationsNeedUpdate.
func ReplicasAnnotationsNeedUpdate(rs *api.ReplicaSet, desired, maxReplicas int32) bool {
	a := rs.Metadata.Annotations
	return a == nil || a[DesiredReplicasAnnotation] != strconv.Itoa(int(desired)) ||
		a[MaxReplicasAnnotation] != strconv.Itoa(int(maxReplicas))
}

// intAnnotation reads an int32 annotation of rs; ok is false when it is
// missing or malformed. Kubernetes: getIntFromAnnotation.
func intAnnotation(rs *api.ReplicaSet, key string) (int32, bool) {
	v, ok := rs.Metadata.Annotations[key]
	if !ok {
		return 0, false
	}
	n, err := strconv.ParseInt(v, 10, 32)
	if err != nil {
		return 0, false
	}
	return int32(n), true
}

// DesiredReplicasOf returns rs's desired-replicas annotation.
// Kubernetes: GetDesiredReplicasAnnotation.
func DesiredReplicasOf(rs *api.ReplicaSet) (int32, bool) {
	return intAnnotation(rs, DesiredReplicasAnnotation)
}

// ---- the strategy's numbers ----

// ScaledValue resolves an int-or-percent against total: an integer as
// is, "N%" as N% of total rounded up or down. Kubernetes:
// intstr.GetScaledValueFromIntOrPercent.
func ScaledValue(v *api.IntOrString, total int, roundUp bool) (int, error) {
	if v == nil {
		return 0, nil
	}
	if v.Type == api.Int {
		return int(v.IntVal), nil
	}
	s := v.StrVal
	if !strings.HasSuffix(s, "%") {
		return 0, fmt.Errorf("invalid value for IntOrString: invalid type: string is not a percentage")
	}
	p, err := strconv.Atoi(strings.TrimSuffix(s, "%"))
	if err != nil {
		return 0, fmt.Errorf("invalid value for IntOrString: invalid value %q: %v", s, err)
	}
	if roundUp {
		return int(math.Ceil(float64(p) * float64(total) / 100)), nil
	}
	return int(math.Floor(float64(p) * float64(total) / 100)), nil
}

// ResolveFenceposts resolves maxSurge (rounded up) and maxUnavailable
// (rounded down) against desired. Should both be 0 — validation forbids
// that for the written values, but rounding down can get there —
// maxUnavailable is 1: a rollout must be able to move. Kubernetes:
// ResolveFenceposts.
func ResolveFenceposts(maxSurge, maxUnavailable *api.IntOrString, desired int32) (surge, unavailable int32, err error) {
	s, err := ScaledValue(maxSurge, int(desired), true)
	if err != nil {
		return 0, 0, err
	}
	u, err := ScaledValue(maxUnavailable, int(desired), false)
	if err != nil {
		return 0, 0, err
	}
	if s == 0 && u == 0 {
		u = 1
	}
	return int32(s), int32(u), nil
}

// IsRollingUpdate reports whether d rolls (its strategy's type).
func IsRollingUpdate(d *api.Deployment) bool {
	return d.Spec.Strategy.Type == api.RollingUpdateDeploymentStrategyType
}

// rollingParams returns d's maxSurge and maxUnavailable as written (nil
// when the strategy has none).
func rollingParams(d *api.Deployment) (surge, unavailable *api.IntOrString) {
	if ru := d.Spec.Strategy.RollingUpdate; ru != nil {
		return ru.MaxSurge, ru.MaxUnavailable
	}
	return nil, nil
}

// MaxUnavailable returns how many of d's replicas may be unavailable
// during a rolling update, at most replicas; 0 for Recreate or 0
// replicas. Kubernetes: MaxUnavailable.
func MaxUnavailable(d *api.Deployment) int32 {
	if !IsRollingUpdate(d) || desiredReplicas(d) == 0 {
		return 0
	}
	s, u := rollingParams(d)
	_, unavailable, _ := ResolveFenceposts(s, u, desiredReplicas(d)) // validation catches the error
	return min(unavailable, desiredReplicas(d))
}

// MinAvailable returns replicas − maxUnavailable for a rolling update, 0
// otherwise. Kubernetes: MinAvailable.
func MinAvailable(d *api.Deployment) int32 {
	if !IsRollingUpdate(d) {
		return 0
	}
	return desiredReplicas(d) - MaxUnavailable(d)
}

// MaxSurge returns how many pods d may have above replicas during a
// rolling update; 0 for Recreate. Kubernetes: MaxSurge.
func MaxSurge(d *api.Deployment) int32 {
	if !IsRollingUpdate(d) {
		return 0
	}
	s, u := rollingParams(d)
	surge, _, _ := ResolveFenceposts(s, u, desiredReplicas(d))
	return surge
}

// NewRSNewReplicas returns the size d's new set may have now: for a
// rolling update as much as the surge leaves room for, up to replicas; for
// Recreate, replicas. Kubernetes: NewRSNewReplicas.
func NewRSNewReplicas(d *api.Deployment, allRSs []*api.ReplicaSet, newRS *api.ReplicaSet) (int32, error) {
	switch d.Spec.Strategy.Type {
	case api.RollingUpdateDeploymentStrategyType:
		s, _ := rollingParams(d)
		maxSurge, err := ScaledValue(s, int(desiredReplicas(d)), true)
		if err != nil {
			return 0, err
		}
		current := ReplicaCount(allRSs)
		maxTotal := desiredReplicas(d) + int32(maxSurge)
		if current >= maxTotal {
			return specReplicas(newRS), nil // no room
		}
		up := min(maxTotal-current, desiredReplicas(d)-specReplicas(newRS))
		return specReplicas(newRS) + up, nil
	case api.RecreateDeploymentStrategyType:
		return desiredReplicas(d), nil
	default:
		return 0, fmt.Errorf("deployment type %v isn't supported", d.Spec.Strategy.Type)
	}
}

// IsSaturated reports whether rs is d's set at full size: replicas pods
// wanted (by spec and by its desired-replicas annotation) and available.
// Kubernetes: IsSaturated.
func IsSaturated(d *api.Deployment, rs *api.ReplicaSet) bool {
	if rs == nil {
		return false
	}
	desired, ok := DesiredReplicasOf(rs)
	if !ok {
		return false
	}
	want := desiredReplicas(d)
	return specReplicas(rs) == want && desired == want && rs.Status.AvailableReplicas == want
}

// ---- the pod-template-hash ----

// safeEncodeAlphabet is rand.SafeEncodeString's alphabet: no vowels (no
// words) and no look-alikes such as 0, 1, 3.
const safeEncodeAlphabet = "bcdfghjklmnpqrstvwxz2456789"

// ComputeHash returns the pod-template-hash of template with the
// collision count: FNV-32a over the template's JSON encoding and, when
// collisionCount is set, its four bytes little endian (zero padded to
// eight, as upstream writes them), the decimal sum mapped through
// safeEncodeAlphabet. Upstream hashes a deep print of the Go value
// (hashutil.DeepHashObject) rather than JSON, so the two hash strings
// differ; what matters, and holds here, is that the hash is a function of
// the template and the count alone. Kubernetes: controller.ComputeHash.
func ComputeHash(template *api.PodTemplateSpec, collisionCount *int32) string {
	h := fnv.New32a()
	b, err := json.Marshal(template)
	if err != nil {
		panic(fmt.Sprintf("deployment: a pod template does not encode: %v", err)) // a broken api type
	}
	h.Write(b)
	if collisionCount != nil {
		buf := make([]byte, 8)
		binary.LittleEndian.PutUint32(buf, uint32(*collisionCount))
		h.Write(buf)
	}
	digits := []byte(strconv.FormatUint(uint64(h.Sum32()), 10))
	for i, c := range digits {
		digits[i] = safeEncodeAlphabet[int(c)%len(safeEncodeAlphabet)]
	}
	return string(digits)
}

// EqualIgnoreHash reports whether two pod templates are equal but for
// their pod-template-hash labels. Kubernetes: EqualIgnoreHash (which
// compares with apiequality.Semantic; the JSON encodings compared here
// agree with it for every field the api types have).
func EqualIgnoreHash(a, b *api.PodTemplateSpec) bool {
	return templateJSON(a) == templateJSON(b)
}

// templateJSON is the template's JSON encoding without its
// pod-template-hash label, a nil and an empty map alike.
func templateJSON(t *api.PodTemplateSpec) string {
	cp := *t
	if _, ok := t.Metadata.Labels[PodTemplateHashLabel]; ok || len(t.Metadata.Labels) == 0 {
		labels := make(map[string]string, len(t.Metadata.Labels))
		for k, v := range t.Metadata.Labels {
			if k != PodTemplateHashLabel {
				labels[k] = v
			}
		}
		if len(labels) == 0 {
			labels = nil
		}
		cp.Metadata.Labels = labels
	}
	b, err := json.Marshal(&cp)
	if err != nil {
		panic(fmt.Sprintf("deployment: a pod template does not encode: %v", err))
	}
	return string(b)
}

// ---- finding the new and old sets ----

// FindNewReplicaSet returns the oldest of rss whose template equals d's
// but for the pod-template-hash label, or nil. Kubernetes:
// FindNewReplicaSet. (The oldest, because two sets with one template can
// exist — one adopted, one made — and the choice must be stable.)
func FindNewReplicaSet(d *api.Deployment, rss []*api.ReplicaSet) *api.ReplicaSet {
	sorted := slices.Clone(rss)
	slices.SortStableFunc(sorted, byCreation)
	for _, rs := range sorted {
		if EqualIgnoreHash(&rs.Spec.Template, &d.Spec.Template) {
			return rs
		}
	}
	return nil
}

// FindOldReplicaSets returns the sets of rss other than the new one: those
// that still want pods, and all of them. Kubernetes: FindOldReplicaSets.
func FindOldReplicaSets(d *api.Deployment, rss []*api.ReplicaSet) (withPods, all []*api.ReplicaSet) {
	newRS := FindNewReplicaSet(d, rss)
	for _, rs := range rss {
		if newRS != nil && rs.Metadata.UID == newRS.Metadata.UID {
			continue
		}
		all = append(all, rs)
		if specReplicas(rs) != 0 {
			withPods = append(withPods, rs)
		}
	}
	return withPods, all
}

// FindActiveOrLatest returns the only set that wants pods, or, when none
// does, the new set or else the newest old one; nil when several want
// pods. Kubernetes: FindActiveOrLatest.
func FindActiveOrLatest(newRS *api.ReplicaSet, oldRSs []*api.ReplicaSet) *api.ReplicaSet {
	if newRS == nil && len(oldRSs) == 0 {
		return nil
	}
	olds := slices.Clone(oldRSs)
	slices.SortStableFunc(olds, func(a, b *api.ReplicaSet) int { return byCreation(b, a) })
	active := FilterActive(append(olds, newRS))
	switch len(active) {
	case 0:
		if newRS != nil {
			return newRS
		}
		return olds[0]
	case 1:
		return active[0]
	}
	return nil
}

// HasProgressDeadline reports whether d has a progress deadline (MaxInt32
// means none). Kubernetes: HasProgressDeadline.
func HasProgressDeadline(d *api.Deployment) bool {
	return d.Spec.ProgressDeadlineSeconds != nil && *d.Spec.ProgressDeadlineSeconds != math.MaxInt32
}

// HasRevisionHistoryLimit reports whether d limits its old sets
// (MaxInt32 means no limit). Kubernetes: HasRevisionHistoryLimit.
func HasRevisionHistoryLimit(d *api.Deployment) bool {
	return d.Spec.RevisionHistoryLimit != nil && *d.Spec.RevisionHistoryLimit != math.MaxInt32
}
