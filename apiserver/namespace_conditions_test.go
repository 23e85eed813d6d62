package apiserver

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/miniplane/miniplane/api"
)

// TestNamespaceConditions: the conditions for what remains, in the
// controller's order, keeping a transition time while a condition holds.
func TestNamespaceConditions(t *testing.T) {
	t0 := api.NewTime(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	t1 := api.NewTime(t0.Add(time.Minute))
	pods := namespaceRemains{byResource: map[string]int{"pods.": 2, "jobs.batch": 1}}
	tests := []struct {
		name     string
		stored   []api.NamespaceCondition
		left     namespaceRemains
		wantType string
		want     api.NamespaceCondition
	}{
		{name: "nothing left: all false", left: namespaceRemains{}, wantType: "NamespaceContentRemaining",
			want: api.NamespaceCondition{Type: "NamespaceContentRemaining", Status: api.ConditionFalse, LastTransitionTime: t1,
				Reason: "ContentRemoved", Message: "All content successfully removed"}},
		{name: "resources left, sorted", left: pods, wantType: "NamespaceContentRemaining",
			want: api.NamespaceCondition{Type: "NamespaceContentRemaining", Status: api.ConditionTrue, LastTransitionTime: t1,
				Reason: "SomeResourcesRemain", Message: "Some resources are remaining: jobs.batch has 1 resource instances, pods. has 2 resource instances"}},
		{name: "unchanged keeps its time",
			stored: []api.NamespaceCondition{{Type: "NamespaceFinalizersRemaining", Status: api.ConditionFalse, LastTransitionTime: t0,
				Reason: "ContentHasNoFinalizers", Message: "All content-preserving finalizers finished"}},
			left: pods, wantType: "NamespaceFinalizersRemaining",
			want: api.NamespaceCondition{Type: "NamespaceFinalizersRemaining", Status: api.ConditionFalse, LastTransitionTime: t0,
				Reason: "ContentHasNoFinalizers", Message: "All content-preserving finalizers finished"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := namespaceConditions(tt.stored, tt.left, t1)
			require.Len(t, got, len(namespaceConditionTypes))
			for i, c := range got {
				assert.Equal(t, namespaceConditionTypes[i].typ, c.Type, "in the controller's order")
				if c.Type == tt.wantType {
					assert.Equal(t, tt.want, c)
				}
			}
		})
	}
}
