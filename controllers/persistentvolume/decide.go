package persistentvolume

import (
	"fmt"
	"slices"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/controllers/scheduler/fit"
)

// The annotations binding writes. Kubernetes: storagehelpers' AnnBindCompleted,
// AnnBoundByController and AnnDynamicallyProvisioned.
const (
	AnnBindCompleted          = "pv.kubernetes.io/bind-completed"
	AnnBoundByController      = "pv.kubernetes.io/bound-by-controller"
	AnnDynamicallyProvisioned = "pv.kubernetes.io/provisioned-by"
)

// Provisioner is the provisioner this controller simulates: a claim of a
// class it provisions gets a volume made for it.
const Provisioner = "miniplane.io/simulated"

// Event is an event to record on a claim.
type Event struct {
	Warning         bool
	Reason, Message string
}

// ClaimDecision is what a sync does for an unbound claim: bind it to
// Bind, or create Provision (which a later sync binds), or neither, with
// Event saying why.
type ClaimDecision struct {
	Bind      *api.PersistentVolume
	Provision *api.PersistentVolume
	Event     *Event
}

// className is the claim's class; "" is none.
func className(claim *api.PersistentVolumeClaim) string {
	if claim.Spec.StorageClassName == nil {
		return ""
	}
	return *claim.Spec.StorageClassName
}

func storage(l api.ResourceList) (int64, bool) {
	q, ok := l["storage"]
	if !ok {
		return 0, false
	}
	return fit.Units(string(q), 1)
}

// boundTo reports whether pv's claimRef names claim (by UID when it has
// one, as the binder writes it; by name when pre-bound by hand).
func boundTo(pv *api.PersistentVolume, claim *api.PersistentVolumeClaim) bool {
	ref := pv.Spec.ClaimRef
	return ref != nil && ref.Namespace == claim.Metadata.Namespace && ref.Name == claim.Metadata.Name &&
		(ref.UID == "" || ref.UID == claim.Metadata.UID)
}

// FindVolume is the volume claim should bind to: one already bound to it,
// else the smallest free one of its class, access modes, volume mode and
// selector at least as big as it asks. Kubernetes: findBestMatchForClaim
// and findMatchingVolume.
func FindVolume(claim *api.PersistentVolumeClaim, volumes []*api.PersistentVolume) *api.PersistentVolume {
	var best *api.PersistentVolume
	var bestSize int64
	want, _ := storage(claim.Spec.Resources.Requests)
	for _, pv := range volumes {
		if pv.Metadata.DeletionTimestamp != nil {
			continue
		}
		if boundTo(pv, claim) {
			return pv
		}
		if pv.Spec.ClaimRef != nil || pv.Spec.StorageClassName != className(claim) || !matches(claim, pv) {
			continue
		}
		size, ok := storage(pv.Spec.Capacity)
		if !ok || size < want {
			continue
		}
		if best == nil || size < bestSize || (size == bestSize && pv.Metadata.Name < best.Metadata.Name) {
			best, bestSize = pv, size
		}
	}
	return best
}

// matches checks access modes, volume mode and selector.
func matches(claim *api.PersistentVolumeClaim, pv *api.PersistentVolume) bool {
	for _, m := range claim.Spec.AccessModes {
		if !slices.Contains(pv.Spec.AccessModes, m) {
			return false
		}
	}
	if mode(claim.Spec.VolumeMode) != mode(pv.Spec.VolumeMode) {
		return false
	}
	if claim.Spec.Selector != nil {
		sel, err := api.LabelSelectorAsSelector(claim.Spec.Selector)
		if err != nil || !sel.Matches(pv.Metadata.Labels) {
			return false
		}
	}
	return true
}

func mode(m *api.PersistentVolumeMode) api.PersistentVolumeMode {
	if m == nil {
		return api.PersistentVolumeFilesystem
	}
	return *m
}

// DecideClaim is what to do for an unbound claim: bind it to a volume
// that fits; else, with no class, wait, saying so; with a class that does
// not exist, fail to provision; with this controller's provisioner,
// provision a volume "pvc-<claim uid>"; with another, wait for it.
// Kubernetes: syncUnboundClaim and provisionClaimOperation.
func DecideClaim(claim *api.PersistentVolumeClaim, volumes []*api.PersistentVolume, classes map[string]*api.StorageClass) ClaimDecision {
	if pv := FindVolume(claim, volumes); pv != nil {
		return ClaimDecision{Bind: pv}
	}
	name := className(claim)
	if name == "" {
		return ClaimDecision{Event: &Event{Reason: "FailedBinding", Message: "no persistent volumes available for this claim and no storage class is set"}}
	}
	class, ok := classes[name]
	if !ok {
		return ClaimDecision{Event: &Event{Warning: true, Reason: "ProvisioningFailed", Message: fmt.Sprintf("storageclass.storage.k8s.io %q not found", name)}}
	}
	if class.Provisioner != Provisioner {
		return ClaimDecision{Event: &Event{Reason: "ExternalProvisioning", Message: fmt.Sprintf(
			"Waiting for a volume to be created either by the external provisioner '%s' or manually by the system administrator. If volume creation is delayed, please verify that the provisioner is running and correctly registered.",
			class.Provisioner)}}
	}
	return ClaimDecision{Provision: NewVolume(claim, class)}
}

// NewVolume is the volume the simulated provisioner makes for claim:
// "pvc-<uid>", of the size, access modes and volume mode it asks, of its
// class with the class's reclaim policy, already naming the claim, on a
// host path. Kubernetes: provisionClaimOperation and the provisioners'
// Provision.
func NewVolume(claim *api.PersistentVolumeClaim, class *api.StorageClass) *api.PersistentVolume {
	name := "pvc-" + string(claim.Metadata.UID)
	reclaim := api.PersistentVolumeReclaimDelete
	if class.ReclaimPolicy != nil {
		reclaim = *class.ReclaimPolicy
	}
	return &api.PersistentVolume{
		Metadata: api.ObjectMeta{Name: name, Annotations: map[string]string{AnnDynamicallyProvisioned: Provisioner}},
		Spec: api.PersistentVolumeSpec{
			Capacity:                      api.ResourceList{"storage": claim.Spec.Resources.Requests["storage"]},
			PersistentVolumeSource:        api.PersistentVolumeSource{HostPath: &api.HostPathVolumeSource{Path: "/tmp/miniplane/volumes/" + name}},
			AccessModes:                   slices.Clone(claim.Spec.AccessModes),
			ClaimRef:                      claimRef(claim),
			PersistentVolumeReclaimPolicy: reclaim,
			StorageClassName:              class.Metadata.Name,
			VolumeMode:                    claim.Spec.VolumeMode,
		},
	}
}

func claimRef(claim *api.PersistentVolumeClaim) *api.ObjectReference {
	return &api.ObjectReference{Kind: "PersistentVolumeClaim", APIVersion: "v1", Namespace: claim.Metadata.Namespace,
		Name: claim.Metadata.Name, UID: claim.Metadata.UID, ResourceVersion: claim.Metadata.ResourceVersion}
}

// BindVolume is pv bound to claim, or nil when it already is. Kubernetes:
// bindVolumeToClaim.
func BindVolume(pv *api.PersistentVolume, claim *api.PersistentVolumeClaim) *api.PersistentVolume {
	if ref := pv.Spec.ClaimRef; ref != nil && ref.UID == claim.Metadata.UID && ref.Name == claim.Metadata.Name {
		return nil
	}
	next := pv.DeepCopy()
	if next.Spec.ClaimRef == nil {
		if next.Metadata.Annotations == nil {
			next.Metadata.Annotations = map[string]string{}
		}
		next.Metadata.Annotations[AnnBoundByController] = "yes"
	}
	next.Spec.ClaimRef = claimRef(claim)
	return next
}

// BindClaim is claim bound to pv, or nil when it already is. Kubernetes:
// bindClaimToVolume.
func BindClaim(claim *api.PersistentVolumeClaim, pv *api.PersistentVolume) *api.PersistentVolumeClaim {
	a := claim.Metadata.Annotations
	if claim.Spec.VolumeName == pv.Metadata.Name && a[AnnBindCompleted] == "yes" {
		return nil
	}
	next := claim.DeepCopy()
	if next.Metadata.Annotations == nil {
		next.Metadata.Annotations = map[string]string{}
	}
	if next.Spec.VolumeName == "" {
		next.Metadata.Annotations[AnnBoundByController] = "yes"
	}
	next.Spec.VolumeName = pv.Metadata.Name
	next.Metadata.Annotations[AnnBindCompleted] = "yes"
	return next
}

// ClaimStatus is claim's status once bound to pv.
func ClaimStatus(claim *api.PersistentVolumeClaim, pv *api.PersistentVolume) api.PersistentVolumeClaimStatus {
	st := *claim.Status.DeepCopy()
	st.Phase = api.ClaimBound
	st.AccessModes = slices.Clone(pv.Spec.AccessModes)
	st.Capacity = api.ResourceList{"storage": pv.Spec.Capacity["storage"]}
	return st
}

// VolumeDecision is what a sync does for a volume: set its phase, or
// delete it.
type VolumeDecision struct {
	Phase  api.PersistentVolumePhase
	Delete bool
}

// DecideVolume is what to do for pv given its claim (nil when gone): a
// volume naming no claim is Available; one whose claim names it back is
// Bound; one whose claim is gone is Released, and deleted when its policy
// is Delete and this controller provisioned it. Kubernetes: syncVolume and
// reclaimVolume.
func DecideVolume(pv *api.PersistentVolume, claim *api.PersistentVolumeClaim) VolumeDecision {
	ref := pv.Spec.ClaimRef
	switch {
	case ref == nil:
		return VolumeDecision{Phase: api.VolumeAvailable}
	case claim != nil && (ref.UID == "" || ref.UID == claim.Metadata.UID):
		if claim.Spec.VolumeName == pv.Metadata.Name {
			return VolumeDecision{Phase: api.VolumeBound}
		}
		if ref.UID == "" {
			return VolumeDecision{Phase: api.VolumeAvailable} // pre-bound, waiting for its claim
		}
		return VolumeDecision{Phase: pv.Status.Phase} // half bound: the claim's sync finishes it
	case ref.UID == "":
		return VolumeDecision{Phase: api.VolumeAvailable} // pre-bound to a claim not yet made
	}
	d := VolumeDecision{Phase: api.VolumeReleased}
	if pv.Spec.PersistentVolumeReclaimPolicy == api.PersistentVolumeReclaimDelete && pv.Metadata.Annotations[AnnDynamicallyProvisioned] == Provisioner {
		d.Delete = true
	}
	return d
}
