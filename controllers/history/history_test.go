package history

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/miniplane/miniplane/api"
)

func parentOf(image string, limit *int32) Parent {
	meta := &api.ObjectMeta{Namespace: "default", Name: "web", UID: "u1"}
	return Parent{Meta: meta, Ref: api.OwnerReference{Kind: "StatefulSet", Name: "web", UID: "u1"},
		Template:     &api.PodTemplateSpec{Spec: api.PodSpec{Containers: []api.Container{{Name: "c", Image: image}}}},
		HistoryLimit: limit}
}

func revisionOf(t *testing.T, image string, number int64) *api.ControllerRevision {
	r, err := Snapshot(parentOf(image, nil), number)
	require.NoError(t, err)
	return r
}

// TestDecide ports the history cases of the daemon set's and stateful
// set's tests: a first template makes revision 1; a new one is numbered
// above the old; going back renumbers the old revision; a second revision
// of the current template is a duplicate; a revision without the hash
// label is labelled.
func TestDecide(t *testing.T) {
	v1, v2 := revisionOf(t, "nginx:1", 1), revisionOf(t, "nginx:2", 2)
	unlabelled := revisionOf(t, "nginx:3", 3)
	delete(unlabelled.Metadata.Labels, HashLabel)
	dup := revisionOf(t, "nginx:2", 1)
	dup.Metadata.Name = "web-dup"
	for _, tt := range []struct {
		name      string
		image     string
		revisions []*api.ControllerRevision
		create    int64 // the number of the revision to create, 0: none
		renumber  int64 // Current's new number, 0: none
		old, dups int
		labelled  int
	}{
		{"first template", "nginx:1", nil, 1, 0, 0, 0, 0},
		{"new template", "nginx:2", []*api.ControllerRevision{v1}, 2, 0, 1, 0, 0},
		{"current, numbered highest", "nginx:2", []*api.ControllerRevision{v1, v2}, 0, 0, 1, 0, 0},
		{"back to the first", "nginx:1", []*api.ControllerRevision{v1, v2}, 0, 3, 1, 0, 0},
		{"a duplicate", "nginx:2", []*api.ControllerRevision{v2, dup}, 0, 0, 0, 1, 0},
		{"an unlabelled revision", "nginx:4", []*api.ControllerRevision{unlabelled}, 4, 0, 1, 0, 1},
	} {
		t.Run(tt.name, func(t *testing.T) {
			h, err := Decide(parentOf(tt.image, nil), tt.revisions)
			require.NoError(t, err)
			if tt.create > 0 {
				require.NotNil(t, h.Create)
				assert.Equal(t, tt.create, h.Create.Revision)
				assert.Equal(t, Name("web", Hash(parentOf(tt.image, nil))), h.Create.Metadata.Name)
			} else {
				assert.Nil(t, h.Create)
				require.NotNil(t, h.Current)
			}
			if tt.renumber > 0 {
				require.NotNil(t, h.Renumber)
				assert.Equal(t, tt.renumber, h.Renumber.Revision)
			} else {
				assert.Nil(t, h.Renumber)
			}
			assert.Len(t, h.Old, tt.old)
			assert.Len(t, h.Duplicates, tt.dups)
			assert.Len(t, h.Label, tt.labelled)
		})
	}
}

// TestToDelete: the oldest revisions beyond the limit go, sparing live
// ones. Kubernetes: cleanupHistory, truncateHistory.
func TestToDelete(t *testing.T) {
	old := []*api.ControllerRevision{revisionOf(t, "a", 3), revisionOf(t, "b", 1), revisionOf(t, "c", 2)}
	names := func(rs []*api.ControllerRevision) []int64 {
		var out []int64
		for _, r := range rs {
			out = append(out, r.Revision)
		}
		return out
	}
	none := func(*api.ControllerRevision) bool { return false }
	one := int32(1)
	zero := int32(0)
	assert.Empty(t, ToDelete(parentOf("x", nil), old, none), "the default keeps 10")
	assert.Equal(t, []int64{1, 2}, names(ToDelete(parentOf("x", &one), old, none)))
	assert.Equal(t, []int64{1, 3}, names(ToDelete(parentOf("x", &zero), old, func(r *api.ControllerRevision) bool { return r.Revision == 2 })))
}

// TestPatchRoundTrip: a revision records its template as a replacing
// patch, and Match tells it from another's.
func TestPatchRoundTrip(t *testing.T) {
	r := revisionOf(t, "nginx:1", 1)
	assert.Contains(t, string(r.Data), `"$patch":"replace"`)
	assert.True(t, Match(parentOf("nginx:1", nil).Template, r))
	assert.False(t, Match(parentOf("nginx:2", nil).Template, r))
}
