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

// statefulSetsFor is how long the statefulsets scenario runs: its last
// action is at 50s.
const statefulSetsFor = 80 * time.Second

// TestStatefulSetInvariants runs the statefulsets scenario under several
// seeds, without and with faults: statefulset-ordered holds at every pod
// creation, and the set ends with web-0 and web-1 on its first template,
// all ready.
func TestStatefulSetInvariants(t *testing.T) {
	sc, err := sim.ScenarioByName("statefulsets")
	require.NoError(t, err)
	for _, faults := range []sim.FaultSet{0, sim.AllFaults} {
		for seed := uint64(1); seed <= 3; seed++ {
			t.Run(fmt.Sprintf("seed%d-faults%v", seed, faults != 0), func(t *testing.T) {
				s, err := sim.New(t.Context(), sim.Config{Seed: seed, Faults: faults})
				require.NoError(t, err)
				sc.Setup(s, statefulSetsFor)
				err = s.RunFor(t.Context(), statefulSetsFor)
				if err == nil {
					err = s.RunUntilQuiet(t.Context(), sim.DefaultConvergeWithin)
				}
				require.NoError(t, err)
				obj, err := s.Server().Get(t.Context(), client.StatefulSets, "default", "web", client.GetOptions{})
				require.NoError(t, err)
				set := obj.(*api.StatefulSet)
				assert.Equal(t, int32(2), set.Status.Replicas)
				assert.Equal(t, int32(2), set.Status.ReadyReplicas)
				assert.Equal(t, int32(2), set.Status.UpdatedReplicas)
				assert.Equal(t, set.Status.UpdateRevision, set.Status.CurrentRevision)
				assert.Equal(t, "nginx:1", set.Spec.Template.Spec.Containers[0].Image)
			})
		}
	}
}
