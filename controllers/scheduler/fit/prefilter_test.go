package fit

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestPreFilterMessage: a PreFilter's verdict is the whole reason, then
// preemption's, as kube-scheduler's FitError prints them.
func TestPreFilterMessage(t *testing.T) {
	for _, tt := range []struct {
		name  string
		nodes int
		want  string
	}{
		{"three nodes", 3, "0/3 nodes are available: pod has unbound immediate PersistentVolumeClaims. preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling."},
		{"no nodes", 0, NoNodesMessage},
	} {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, PreFilterMessage(tt.nodes, ReasonUnboundImmediateClaims))
		})
	}
}
