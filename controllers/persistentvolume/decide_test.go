package persistentvolume

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/miniplane/miniplane/api"
)

func claimOf(class *string, size string, modes ...api.PersistentVolumeAccessMode) *api.PersistentVolumeClaim {
	return &api.PersistentVolumeClaim{
		Metadata: api.ObjectMeta{Namespace: "default", Name: "data", UID: "c1"},
		Spec: api.PersistentVolumeClaimSpec{StorageClassName: class, AccessModes: modes,
			Resources: api.VolumeResourceRequirements{Requests: api.ResourceList{"storage": size}}},
	}
}

func volumeOf(name, class, size string, modes ...api.PersistentVolumeAccessMode) *api.PersistentVolume {
	return &api.PersistentVolume{Metadata: api.ObjectMeta{Name: name},
		Spec: api.PersistentVolumeSpec{StorageClassName: class, AccessModes: modes, Capacity: api.ResourceList{"storage": size},
			PersistentVolumeSource: api.PersistentVolumeSource{HostPath: &api.HostPathVolumeSource{Path: "/x"}}}}
}

func ptr[T any](v T) *T { return &v }

// TestDecideClaim ports pv_controller's binding and provisioning cases:
// the smallest fitting volume wins, a volume already naming the claim wins
// over all, class, access modes and size must fit; without a volume, no
// class waits (FailedBinding), an unknown class fails (ProvisioningFailed),
// another provisioner is waited for (ExternalProvisioning), the simulated
// one provisions. Kubernetes: binder_test.go's TestSync 1-x cases and
// provision_test.go's TestProvisionSync, index_test.go's
// TestMatchVolume.
func TestDecideClaim(t *testing.T) {
	rwo, rwx := api.ReadWriteOnce, api.ReadWriteMany
	standard := &api.StorageClass{Metadata: api.ObjectMeta{Name: "standard"}, Provisioner: Provisioner}
	other := &api.StorageClass{Metadata: api.ObjectMeta{Name: "ebs"}, Provisioner: "ebs.csi.aws.com"}
	classes := map[string]*api.StorageClass{"standard": standard, "ebs": other}
	mine := volumeOf("mine", "standard", "1Gi", rwo)
	mine.Spec.ClaimRef = &api.ObjectReference{Namespace: "default", Name: "data", UID: "c1"}
	taken := volumeOf("taken", "", "5Gi", rwo)
	taken.Spec.ClaimRef = &api.ObjectReference{Namespace: "default", Name: "else", UID: "c2"}
	for _, tt := range []struct {
		name      string
		claim     *api.PersistentVolumeClaim
		volumes   []*api.PersistentVolume
		bind      string
		provision bool
		reason    string
	}{
		{"smallest fitting volume", claimOf(ptr(""), "1Gi", rwo), []*api.PersistentVolume{volumeOf("big", "", "10Gi", rwo), volumeOf("small", "", "2Gi", rwo), volumeOf("tiny", "", "500Mi", rwo)}, "small", false, ""},
		{"a volume naming the claim first", claimOf(ptr("standard"), "1Gi", rwo), []*api.PersistentVolume{volumeOf("free", "standard", "1Gi", rwo), mine}, "mine", false, ""},
		{"a volume of another class is not", claimOf(ptr(""), "1Gi", rwo), []*api.PersistentVolume{volumeOf("classy", "standard", "1Gi", rwo)}, "", false, "FailedBinding"},
		{"access modes must be there", claimOf(ptr(""), "1Gi", rwx), []*api.PersistentVolume{volumeOf("rwo", "", "1Gi", rwo)}, "", false, "FailedBinding"},
		{"a volume bound elsewhere is not free", claimOf(ptr(""), "1Gi", rwo), []*api.PersistentVolume{taken}, "", false, "FailedBinding"},
		{"no class, no volume", claimOf(ptr(""), "1Gi", rwo), nil, "", false, "FailedBinding"},
		{"unknown class", claimOf(ptr("gold"), "1Gi", rwo), nil, "", false, "ProvisioningFailed"},
		{"another provisioner", claimOf(ptr("ebs"), "1Gi", rwo), nil, "", false, "ExternalProvisioning"},
		{"the simulated provisioner", claimOf(ptr("standard"), "1Gi", rwo), nil, "", true, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			d := DecideClaim(tt.claim, tt.volumes, classes)
			if tt.bind != "" {
				if assert.NotNil(t, d.Bind) {
					assert.Equal(t, tt.bind, d.Bind.Metadata.Name)
				}
			} else {
				assert.Nil(t, d.Bind)
			}
			assert.Equal(t, tt.provision, d.Provision != nil)
			if tt.reason != "" && assert.NotNil(t, d.Event) {
				assert.Equal(t, tt.reason, d.Event.Reason)
			}
		})
	}
}

// TestNewVolume: the provisioned volume is pvc-<uid>, of the claim's size
// and modes, of its class and policy, naming it, annotated provisioned-by.
func TestNewVolume(t *testing.T) {
	retain := api.PersistentVolumeReclaimRetain
	class := &api.StorageClass{Metadata: api.ObjectMeta{Name: "standard"}, Provisioner: Provisioner, ReclaimPolicy: &retain}
	pv := NewVolume(claimOf(ptr("standard"), "3Gi", api.ReadWriteOnce), class)
	assert.Equal(t, "pvc-c1", pv.Metadata.Name)
	assert.Equal(t, "3Gi", pv.Spec.Capacity["storage"])
	assert.Equal(t, []api.PersistentVolumeAccessMode{api.ReadWriteOnce}, pv.Spec.AccessModes)
	assert.Equal(t, "standard", pv.Spec.StorageClassName)
	assert.Equal(t, retain, pv.Spec.PersistentVolumeReclaimPolicy)
	assert.Equal(t, api.UID("c1"), pv.Spec.ClaimRef.UID)
	assert.Equal(t, Provisioner, pv.Metadata.Annotations[AnnDynamicallyProvisioned])
}

// TestDecideVolume ports syncVolume's phases: Available without a claim,
// Bound when the claim names it back, Released when the claim is gone or
// replaced, and deleted then only if provisioned here with policy Delete.
// Kubernetes: binder_test.go's TestSync 2-x and recycle/delete cases.
func TestDecideVolume(t *testing.T) {
	claim := claimOf(ptr("standard"), "1Gi")
	claim.Spec.VolumeName = "pv"
	replaced := claimOf(ptr("standard"), "1Gi")
	replaced.Metadata.UID = "c9"
	ref := &api.ObjectReference{Namespace: "default", Name: "data", UID: "c1"}
	vol := func(ref *api.ObjectReference, policy api.PersistentVolumeReclaimPolicy, ours bool) *api.PersistentVolume {
		pv := volumeOf("pv", "standard", "1Gi")
		pv.Spec.ClaimRef, pv.Spec.PersistentVolumeReclaimPolicy = ref, policy
		if ours {
			pv.Metadata.Annotations = map[string]string{AnnDynamicallyProvisioned: Provisioner}
		}
		return pv
	}
	for _, tt := range []struct {
		name  string
		pv    *api.PersistentVolume
		claim *api.PersistentVolumeClaim
		want  VolumeDecision
	}{
		{"no claim", vol(nil, api.PersistentVolumeReclaimDelete, true), nil, VolumeDecision{Phase: api.VolumeAvailable}},
		{"bound both ways", vol(ref, api.PersistentVolumeReclaimDelete, true), claim, VolumeDecision{Phase: api.VolumeBound}},
		{"claim gone, ours, Delete", vol(ref, api.PersistentVolumeReclaimDelete, true), nil, VolumeDecision{Phase: api.VolumeReleased, Delete: true}},
		{"claim replaced, ours, Delete", vol(ref, api.PersistentVolumeReclaimDelete, true), replaced, VolumeDecision{Phase: api.VolumeReleased, Delete: true}},
		{"claim gone, Retain", vol(ref, api.PersistentVolumeReclaimRetain, true), nil, VolumeDecision{Phase: api.VolumeReleased}},
		{"claim gone, not ours", vol(ref, api.PersistentVolumeReclaimDelete, false), nil, VolumeDecision{Phase: api.VolumeReleased}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, DecideVolume(tt.pv, tt.claim))
		})
	}
}
