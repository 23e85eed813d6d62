package statefulset

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/miniplane/miniplane/api"
)

// TestParentAndOrdinal ports TestGetParentNameAndOrdinal.
func TestParentAndOrdinal(t *testing.T) {
	for _, tt := range []struct {
		name, parent string
		ordinal      int
	}{
		{"web-0", "web", 0},
		{"my-web-12", "my-web", 12},
		{"web-", "", -1},
		{"web", "", -1},
		{"web-x1", "", -1},
		{"-1", "", -1},
	} {
		t.Run(tt.name, func(t *testing.T) {
			parent, ordinal := ParentAndOrdinal(tt.name)
			assert.Equal(t, tt.parent, parent)
			assert.Equal(t, tt.ordinal, ordinal)
		})
	}
}

// TestIdentity ports TestIdentityMatches, TestStorageMatches,
// TestUpdateIdentity and TestNewStatefulSetPod's identity: a new pod has
// its identity and storage; changing its name, namespace or pod-name label
// breaks the identity, and updateIdentity mends it; a missing or renamed
// claim volume breaks the storage.
func TestIdentity(t *testing.T) {
	set := newSet(3)
	for _, tt := range []struct {
		name             string
		change           func(*api.Pod)
		identity, stored bool
	}{
		{"new pod", func(*api.Pod) {}, true, true},
		{"another set's name", func(p *api.Pod) { p.Metadata.Name = "db-1" }, false, true},
		{"another namespace", func(p *api.Pod) { p.Metadata.Namespace = "other" }, false, true},
		{"pod-name label lost", func(p *api.Pod) { delete(p.Metadata.Labels, PodNameLabel) }, false, true},
		{"claim volume lost", func(p *api.Pod) { p.Spec.Volumes = nil }, true, false},
		{"claim volume renamed", func(p *api.Pod) { p.Spec.Volumes[0].PersistentVolumeClaim.ClaimName = "www-web-9" }, true, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			p := NewPod(set, 1, "rev")
			tt.change(p)
			assert.Equal(t, tt.identity, IdentityMatches(set, p))
			assert.Equal(t, tt.stored, StorageMatches(set, p))
			if !tt.identity && Ordinal(p) >= 0 {
				updateIdentity(set, p)
				assert.True(t, IdentityMatches(set, p), "updateIdentity mends it")
			}
		})
	}
}

// TestNewPod ports TestNewStatefulSetPod and TestUpdateStorage: name,
// hostname, subdomain, labels, controller, and the claim volume replacing
// a template volume of the same name.
func TestNewPod(t *testing.T) {
	set := newSet(3)
	set.Spec.Template.Spec.Volumes = []api.Volume{{Name: "www"}, {Name: "scratch"}}
	p := NewPod(set, 2, "web-abc")
	assert.Equal(t, "web-2", p.Metadata.Name)
	assert.Equal(t, "web-2", p.Spec.Hostname)
	assert.Equal(t, "web", p.Spec.Subdomain)
	assert.Equal(t, map[string]string{"app": "web", PodNameLabel: "web-2", PodIndexLabel: "2", RevisionLabel: "web-abc"}, p.Metadata.Labels)
	ref := api.GetControllerOf(&p.Metadata)
	if assert.NotNil(t, ref) {
		assert.Equal(t, "StatefulSet", ref.Kind)
	}
	var names []string
	for _, v := range p.Spec.Volumes {
		names = append(names, v.Name)
	}
	assert.Equal(t, []string{"www", "scratch"}, names)
	assert.Equal(t, "www-web-2", p.Spec.Volumes[0].PersistentVolumeClaim.ClaimName)
	assert.Empty(t, set.Spec.Template.Metadata.Labels[PodNameLabel], "the template is not changed")
}

// TestClaims ports TestGetPersistentVolumeClaims: one claim per template,
// named <template>-<set>-<ordinal>, labelled with the selector.
func TestClaims(t *testing.T) {
	set := newSet(3)
	set.Spec.VolumeClaimTemplates[0].Metadata.Labels = map[string]string{"tier": "data"}
	claims := Claims(set, 1)
	if assert.Len(t, claims, 1) {
		assert.Equal(t, "www-web-1", claims[0].Metadata.Name)
		assert.Equal(t, "default", claims[0].Metadata.Namespace)
		assert.Equal(t, map[string]string{"tier": "data", "app": "web"}, claims[0].Metadata.Labels)
	}
}

// TestClaimOwners ports TestUpdateClaimOwnerRefForSetAndPod's policy
// table: which of set and pod own the claim, for each retention policy,
// for a pod in range and one scaled away.
func TestClaimOwners(t *testing.T) {
	owners := func(refs []api.OwnerReference) []string {
		var out []string
		for _, r := range refs {
			out = append(out, r.Kind)
		}
		return out
	}
	for _, tt := range []struct {
		name                string
		whenDeleted, scaled string
		ordinal             int
		want                []string
	}{
		{"retain, retain", Retain, Retain, 0, nil},
		{"delete, retain", Delete, Retain, 0, []string{"StatefulSet"}},
		{"retain, delete, in range", Retain, Delete, 0, nil},
		{"retain, delete, scaled away", Retain, Delete, 5, []string{"Pod"}},
		{"delete, delete, in range", Delete, Delete, 0, []string{"StatefulSet"}},
		{"delete, delete, scaled away", Delete, Delete, 5, []string{"Pod"}},
		{"delete, retain, scaled away", Delete, Retain, 5, []string{"StatefulSet"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			set := newSet(3)
			set.Metadata.UID = "set-uid"
			set.Spec.PersistentVolumeClaimRetentionPolicy = &api.StatefulSetPersistentVolumeClaimRetentionPolicy{WhenDeleted: tt.whenDeleted, WhenScaled: tt.scaled}
			pod := NewPod(set, tt.ordinal, "r")
			pod.Metadata.UID = "pod-uid"
			claim := Claims(set, tt.ordinal)[0]
			claim.Metadata.OwnerReferences = []api.OwnerReference{{Kind: "Pod", Name: pod.Metadata.Name, UID: "pod-uid"}}
			got := ClaimOwners(set, pod, claim)
			assert.Equal(t, tt.want, owners(got))
			claim.Metadata.OwnerReferences = got
			assert.True(t, claimOwnersMatch(set, pod, claim))
		})
	}
}
