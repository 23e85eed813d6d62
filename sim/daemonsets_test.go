package sim_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/client"
	"github.com/miniplane/miniplane/sim"
)

// daemonSetsFor is how long the daemonsets scenario runs: its last action
// is at 45s.
const daemonSetsFor = 75 * time.Second

// TestDaemonSetInvariants runs the daemonsets scenario under several seeds,
// without and with faults: daemonset-one-per-node and daemonset-complete
// hold once settled, and the daemon set ends on its first template on all
// four nodes.
func TestDaemonSetInvariants(t *testing.T) {
	sc, err := sim.ScenarioByName("daemonsets")
	require.NoError(t, err)
	for _, faults := range []sim.FaultSet{0, sim.AllFaults} {
		for seed := uint64(1); seed <= 3; seed++ {
			t.Run(fmt.Sprintf("seed%d-faults%v", seed, faults != 0), func(t *testing.T) {
				s, err := sim.New(t.Context(), sim.Config{Seed: seed, Faults: faults})
				require.NoError(t, err)
				sc.Setup(s, daemonSetsFor)
				err = s.RunFor(t.Context(), daemonSetsFor)
				if err == nil {
					err = s.RunUntilQuiet(t.Context(), sim.DefaultConvergeWithin)
				}
				require.NoError(t, err)
				obj, err := s.Server().Get(t.Context(), client.DaemonSets, "default", "agent", client.GetOptions{})
				require.NoError(t, err)
				ds := obj.(*api.DaemonSet)
				assert.Equal(t, int32(4), ds.Status.DesiredNumberScheduled)
				assert.Equal(t, int32(4), ds.Status.UpdatedNumberScheduled)
				assert.Equal(t, int32(4), ds.Status.NumberAvailable)
				assert.Equal(t, "nginx:1", ds.Spec.Template.Spec.Containers[0].Image)
			})
		}
	}
}

// TestSweepDaemonSets sweeps the daemonsets scenario with every fault on:
// every invariant holds, daemonset-complete included (150 seeds held when
// it was written; a node-down fault once left the joining node's copied
// status not ready, and its pod unscheduled, for good).
func TestSweepDaemonSets(t *testing.T) {
	seeds := uint64(60)
	if testing.Short() || raceDetector {
		seeds = 10
	}
	for seed := uint64(1); seed <= seeds; seed++ {
		res := mustRun(t, sim.Config{Seed: seed, Faults: sim.AllFaults}, "daemonsets", daemonSetsFor)
		if res.Violation != nil {
			t.Fatalf("seed %d:\n%s", seed, res.Violation.Report())
		}
	}
}
