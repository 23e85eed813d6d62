package apiserver

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/miniplane/miniplane/api"
)

// TestGCFinalizers checks that a delete's policy sets the garbage
// collector's two finalizers as Kubernetes does, keeps every other one in
// its place, and returns the very slice it was given when nothing changes.
func TestGCFinalizers(t *testing.T) {
	const orphan, foreground = api.FinalizerOrphanDependents, api.FinalizerDeleteDependents
	tests := []struct {
		name       string
		finalizers []string
		policy     api.DeletionPropagation
		want       []string
		same       bool // the input slice itself comes back
	}{
		{"background, none", nil, api.DeletePropagationBackground, nil, true},
		{"background keeps others", []string{"example.com/a"}, api.DeletePropagationBackground, []string{"example.com/a"}, true},
		{"background drops both", []string{orphan, "example.com/a", foreground}, api.DeletePropagationBackground, []string{"example.com/a"}, false},
		{"orphan adds orphan last", []string{"example.com/a"}, api.DeletePropagationOrphan, []string{"example.com/a", orphan}, false},
		{"orphan drops foreground", []string{foreground, "example.com/a"}, api.DeletePropagationOrphan, []string{"example.com/a", orphan}, false},
		{"orphan already there", []string{orphan}, api.DeletePropagationOrphan, []string{orphan}, true},
		{"foreground adds foreground", nil, api.DeletePropagationForeground, []string{foreground}, false},
		{"foreground drops a repeated orphan", []string{orphan, orphan}, api.DeletePropagationForeground, []string{foreground}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := gcFinalizers(tc.finalizers, tc.policy)
			assert.Equal(t, tc.want, got)
			if tc.same && len(tc.finalizers) > 0 {
				assert.Same(t, &tc.finalizers[0], &got[0], "unchanged: no new slice")
			}
		})
	}
}
