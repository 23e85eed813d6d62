package deployment

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/miniplane/miniplane/api"
)

// TestRollingScalesCarryTheirFenceposts: each scale a rolling update plans
// carries the figures it was decided with, as they were before the plan.
// 4 replicas at 25%/25%: a surge of 1 (rounded up), 1 unavailable
// (rounded down).
func TestRollingScalesCarryTheirFenceposts(t *testing.T) {
	d := newDeployment("foo", 4, nil, pct("25%"), pct("25%"), map[string]string{"foo": "bar"})
	available := func(r *api.ReplicaSet, n int32) *api.ReplicaSet { r.Status.AvailableReplicas = n; return r }
	tests := []struct {
		name     string
		old, new *api.ReplicaSet
		plan     func(all []*api.ReplicaSet, old, new *api.ReplicaSet) []Scale
		wantTo   int32
		want     Fenceposts
	}{
		{
			name: "the new set grows by the surge",
			old:  available(rs("foo-v1", 4, nil, noTimestamp), 4), new: rs("foo-v2", 0, nil, noTimestamp),
			plan: func(all []*api.ReplicaSet, _, new *api.ReplicaSet) []Scale {
				plan, err := ReconcileNewReplicaSet(all, new, d)
				require.NoError(t, err)
				return plan
			},
			wantTo: 1, want: Fenceposts{Replicas: 4, MaxSurge: 1, MaxUnavailable: 1, Pods: 4, Available: 4},
		},
		{
			name: "the old set shrinks by the unavailability allowed",
			old:  available(rs("foo-v1", 4, nil, noTimestamp), 4), new: rs("foo-v2", 1, nil, noTimestamp),
			plan: func(all []*api.ReplicaSet, old, new *api.ReplicaSet) []Scale {
				return ReconcileOldReplicaSets(all, []*api.ReplicaSet{old}, new, d)
			},
			wantTo: 3, want: Fenceposts{Replicas: 4, MaxSurge: 1, MaxUnavailable: 1, Pods: 5, Available: 4},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			plan := tt.plan([]*api.ReplicaSet{tt.old, tt.new}, tt.old, tt.new)
			require.Len(t, plan, 1)
			assert.Equal(t, tt.wantTo, plan[0].To)
			require.NotNil(t, plan[0].Why)
			assert.Equal(t, tt.want, *plan[0].Why)
			assert.Equal(t, int32(5), plan[0].Why.MaxPods())
			assert.Equal(t, int32(3), plan[0].Why.MinAvailable())
		})
	}
}

// TestFencepostsAnnotations: the figures survive the event's annotations,
// and annotations without all of them are none.
func TestFencepostsAnnotations(t *testing.T) {
	f := Fenceposts{Replicas: 4, MaxSurge: 1, MaxUnavailable: 1, Pods: 5, Available: 3}
	got, ok := FencepostsOf(f.Annotations())
	require.True(t, ok)
	assert.Equal(t, f, got)
	partial := f.Annotations()
	delete(partial, AnnotationAvailable)
	_, ok = FencepostsOf(partial)
	assert.False(t, ok)
	_, ok = FencepostsOf(nil)
	assert.False(t, ok)
}
