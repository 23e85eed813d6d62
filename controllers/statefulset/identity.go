package statefulset

import (
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/controllers/deployment"
	"github.com/miniplane/miniplane/controllers/history"
)

// The labels a stateful set's pods carry. Kubernetes: appsv1.StatefulSetPodNameLabel,
// appsv1.PodIndexLabel and appsv1.StatefulSetRevisionLabel.
const (
	PodNameLabel  = "statefulset.kubernetes.io/pod-name"
	PodIndexLabel = "apps.kubernetes.io/pod-index"
	RevisionLabel = history.HashLabel
)

// The pod management policies, update strategies and claim retention
// policies. Kubernetes: appsv1.
const (
	OrderedReady = "OrderedReady"
	Parallel     = "Parallel"

	RollingUpdate = "RollingUpdate"
	OnDelete      = "OnDelete"

	Retain = "Retain"
	Delete = "Delete"
)

// The kind a pod's and a revision's controller reference names.
const (
	controllerKind       = "StatefulSet"
	controllerAPIVersion = "apps/v1"
)

// ParentAndOrdinal splits a pod name "<set>-<ordinal>" into the set's name
// and the ordinal; ordinal is -1 when the name has no such form.
// Kubernetes: getParentNameAndOrdinal.
func ParentAndOrdinal(name string) (parent string, ordinal int) {
	i := strings.LastIndexByte(name, '-')
	if i <= 0 || i == len(name)-1 {
		return "", -1
	}
	digits := name[i+1:]
	for _, r := range digits {
		if r < '0' || r > '9' {
			return "", -1
		}
	}
	n, err := strconv.ParseInt(digits, 10, 32)
	if err != nil {
		return "", -1
	}
	return name[:i], int(n)
}

// Ordinal is pod's ordinal, or -1. Kubernetes: getOrdinal.
func Ordinal(pod *api.Pod) int {
	_, o := ParentAndOrdinal(pod.Metadata.Name)
	return o
}

// PodName is the name of set's pod at ordinal. Kubernetes: getPodName.
func PodName(set *api.StatefulSet, ordinal int) string {
	return set.Metadata.Name + "-" + strconv.Itoa(ordinal)
}

// ClaimName is the name of the claim template's claim for set's pod at
// ordinal: "<template>-<set>-<ordinal>". Kubernetes:
// getPersistentVolumeClaimName.
func ClaimName(set *api.StatefulSet, template *api.PersistentVolumeClaim, ordinal int) string {
	return template.Metadata.Name + "-" + set.Metadata.Name + "-" + strconv.Itoa(ordinal)
}

// StartOrdinal is set's first ordinal. Kubernetes: getStartOrdinal.
func StartOrdinal(set *api.StatefulSet) int {
	if set.Spec.Ordinals != nil {
		return int(set.Spec.Ordinals.Start)
	}
	return 0
}

// Replicas is set's desired pod count.
func Replicas(set *api.StatefulSet) int {
	if set.Spec.Replicas == nil {
		return 1
	}
	return int(*set.Spec.Replicas)
}

// InRange reports whether ordinal is one set should run. Kubernetes:
// podInOrdinalRange.
func InRange(set *api.StatefulSet, ordinal int) bool {
	start := StartOrdinal(set)
	return ordinal >= start && ordinal < start+Replicas(set)
}

// IsMember reports whether pod's name makes it one of set's. Kubernetes:
// isMemberOf.
func IsMember(set *api.StatefulSet, pod *api.Pod) bool {
	parent, _ := ParentAndOrdinal(pod.Metadata.Name)
	return parent == set.Metadata.Name
}

// IdentityMatches reports whether pod has the name, namespace and
// pod-name label of its ordinal in set. Kubernetes: identityMatches.
func IdentityMatches(set *api.StatefulSet, pod *api.Pod) bool {
	parent, ordinal := ParentAndOrdinal(pod.Metadata.Name)
	return ordinal >= 0 && parent == set.Metadata.Name && pod.Metadata.Name == PodName(set, ordinal) &&
		pod.Metadata.Namespace == set.Metadata.Namespace && pod.Metadata.Labels[PodNameLabel] == pod.Metadata.Name
}

// updateIdentity gives pod the name, namespace and labels of its ordinal.
// Kubernetes: updateIdentity.
func updateIdentity(set *api.StatefulSet, pod *api.Pod) {
	ordinal := Ordinal(pod)
	pod.Metadata.Name = PodName(set, ordinal)
	pod.Metadata.Namespace = set.Metadata.Namespace
	if pod.Metadata.Labels == nil {
		pod.Metadata.Labels = map[string]string{}
	}
	pod.Metadata.Labels[PodNameLabel] = pod.Metadata.Name
	pod.Metadata.Labels[PodIndexLabel] = strconv.Itoa(ordinal)
}

// Claims are the claims set's pod at ordinal mounts, one per volume claim
// template, in the templates' order: named by ClaimName, labelled with the
// template's labels and the set's selector. Kubernetes:
// getPersistentVolumeClaims.
func Claims(set *api.StatefulSet, ordinal int) []*api.PersistentVolumeClaim {
	out := make([]*api.PersistentVolumeClaim, 0, len(set.Spec.VolumeClaimTemplates))
	for i := range set.Spec.VolumeClaimTemplates {
		t := &set.Spec.VolumeClaimTemplates[i]
		claim := &api.PersistentVolumeClaim{Spec: *t.Spec.DeepCopy()}
		claim.Metadata.Name = ClaimName(set, t, ordinal)
		claim.Metadata.Namespace = set.Metadata.Namespace
		claim.Metadata.Annotations = maps.Clone(t.Metadata.Annotations)
		labels := maps.Clone(t.Metadata.Labels)
		if set.Spec.Selector != nil && len(set.Spec.Selector.MatchLabels) > 0 {
			if labels == nil {
				labels = map[string]string{}
			}
			maps.Copy(labels, set.Spec.Selector.MatchLabels)
		}
		claim.Metadata.Labels = labels
		out = append(out, claim)
	}
	return out
}

// updateStorage mounts set's claims in pod: a volume per claim template,
// named as the template, replacing any of the template's volumes of that
// name. Kubernetes: updateStorage.
func updateStorage(set *api.StatefulSet, pod *api.Pod) {
	claims := Claims(set, Ordinal(pod))
	volumes := make([]api.Volume, 0, len(claims)+len(pod.Spec.Volumes))
	names := map[string]bool{}
	for i, claim := range claims {
		name := set.Spec.VolumeClaimTemplates[i].Metadata.Name
		names[name] = true
		volumes = append(volumes, api.Volume{Name: name, VolumeSource: api.VolumeSource{
			PersistentVolumeClaim: &api.PersistentVolumeClaimVolumeSource{ClaimName: claim.Metadata.Name},
		}})
	}
	for _, v := range pod.Spec.Volumes {
		if !names[v.Name] {
			volumes = append(volumes, v)
		}
	}
	if len(volumes) == 0 {
		volumes = nil
	}
	pod.Spec.Volumes = volumes
}

// StorageMatches reports whether pod mounts each of set's claims for its
// ordinal. Kubernetes: storageMatches.
func StorageMatches(set *api.StatefulSet, pod *api.Pod) bool {
	ordinal := Ordinal(pod)
	if ordinal < 0 {
		return false
	}
	for i, claim := range Claims(set, ordinal) {
		name := set.Spec.VolumeClaimTemplates[i].Metadata.Name
		j := slices.IndexFunc(pod.Spec.Volumes, func(v api.Volume) bool { return v.Name == name })
		if j < 0 || pod.Spec.Volumes[j].PersistentVolumeClaim == nil || pod.Spec.Volumes[j].PersistentVolumeClaim.ClaimName != claim.Metadata.Name {
			return false
		}
	}
	return true
}

// NewPod is set's pod at ordinal from set's template: named
// "<set>-<ordinal>", with that hostname and the set's service as
// subdomain, the pod-name and pod-index labels, set's claims mounted,
// controlled by set, labelled with revision. Kubernetes: newStatefulSetPod
// and setPodRevision.
func NewPod(set *api.StatefulSet, ordinal int, revision string) *api.Pod {
	t := set.Spec.Template.DeepCopy()
	pod := &api.Pod{Metadata: api.ObjectMeta{
		Labels: t.Metadata.Labels, Annotations: t.Metadata.Annotations, Finalizers: t.Metadata.Finalizers,
		OwnerReferences: []api.OwnerReference{controllerRef(set)},
	}, Spec: t.Spec}
	pod.Metadata.Name = PodName(set, ordinal)
	updateIdentity(set, pod)
	pod.Spec.Hostname = pod.Metadata.Name
	pod.Spec.Subdomain = set.Spec.ServiceName
	updateStorage(set, pod)
	pod.Metadata.Labels[RevisionLabel] = revision
	return pod
}

// controllerRef is the owner reference that makes set a pod's or a
// revision's controller.
func controllerRef(set *api.StatefulSet) api.OwnerReference {
	return deployment.NewControllerRef(controllerAPIVersion, controllerKind, &set.Metadata)
}

// retentionPolicy is set's claim retention policy with Retain for what is
// unset. Kubernetes: getPersistentVolumeClaimRetentionPolicy.
func retentionPolicy(set *api.StatefulSet) api.StatefulSetPersistentVolumeClaimRetentionPolicy {
	p := api.StatefulSetPersistentVolumeClaimRetentionPolicy{WhenDeleted: Retain, WhenScaled: Retain}
	if q := set.Spec.PersistentVolumeClaimRetentionPolicy; q != nil {
		if q.WhenDeleted != "" {
			p.WhenDeleted = q.WhenDeleted
		}
		if q.WhenScaled != "" {
			p.WhenScaled = q.WhenScaled
		}
	}
	return p
}

// ClaimOwners returns claim's owner references as set's retention policy
// wants them for pod: a (non-controller) reference to the set when
// whenDeleted is Delete, unless the pod is scaled away and whenScaled is
// Delete, in which case the reference is to the pod — so that the garbage
// collector deletes the claim with its owner. References to others are
// kept. Kubernetes: updateClaimOwnerRefForSetAndPod.
func ClaimOwners(set *api.StatefulSet, pod *api.Pod, claim *api.PersistentVolumeClaim) []api.OwnerReference {
	policy := retentionPolicy(set)
	scaledDown := !InRange(set, Ordinal(pod))
	toSet := policy.WhenDeleted == Delete && !(scaledDown && policy.WhenScaled == Delete)
	toPod := scaledDown && policy.WhenScaled == Delete
	refs := slices.DeleteFunc(slices.Clone(claim.Metadata.OwnerReferences), func(r api.OwnerReference) bool {
		return r.UID == set.Metadata.UID || r.UID == pod.Metadata.UID
	})
	if toSet {
		refs = append(refs, api.OwnerReference{APIVersion: controllerAPIVersion, Kind: controllerKind, Name: set.Metadata.Name, UID: set.Metadata.UID})
	}
	if toPod {
		refs = append(refs, api.OwnerReference{APIVersion: "v1", Kind: "Pod", Name: pod.Metadata.Name, UID: pod.Metadata.UID})
	}
	if len(refs) == 0 {
		return nil
	}
	return refs
}

// claimOwnersMatch reports whether claim's references are already those
// ClaimOwners wants, in any order. Kubernetes: claimOwnerMatchesSetAndPod.
func claimOwnersMatch(set *api.StatefulSet, pod *api.Pod, claim *api.PersistentVolumeClaim) bool {
	want := ClaimOwners(set, pod, claim)
	have := claim.Metadata.OwnerReferences
	if len(want) != len(have) {
		return false
	}
	for _, w := range want {
		if !slices.ContainsFunc(have, func(h api.OwnerReference) bool { return h.UID == w.UID }) {
			return false
		}
	}
	return true
}
