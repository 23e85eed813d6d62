package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/miniplane/miniplane/controllers/manager"
	"github.com/miniplane/miniplane/plane"
)

// TestUIInstancesListEveryQueue: the page's workqueue table has every
// controller's queue: each controller-manager instance's, then the
// kubelets', the scheduler's (unless --scheduler=none) and the node
// lifecycle controller's, each run once per cluster.
func TestUIInstancesListEveryQueue(t *testing.T) {
	tests := []struct {
		scheduler string
		want      []string
	}{
		{"builtin", []string{"cm-1", "nodesim", "scheduler", "nodelifecycle"}},
		{"none", []string{"cm-1", "nodesim", "nodelifecycle"}},
	}
	for _, tt := range tests {
		t.Run(tt.scheduler, func(t *testing.T) {
			opts := manager.DefaultOptions()
			opts.Scheduler = tt.scheduler
			p, err := plane.New(plane.Config{Options: &opts, Seed: 1})
			require.NoError(t, err)
			var got []string
			for _, in := range uiInstances(p) {
				got = append(got, in.Identity)
				if in.Identity != "cm-1" {
					require.Len(t, in.Queues, 1, in.Identity)
					assert.Equal(t, in.Identity, in.Queues[0].Name, "a component's queue is named after it")
					assert.True(t, in.Leading, "%s runs without election", in.Identity)
				}
			}
			assert.Equal(t, tt.want, got)
		})
	}
}
