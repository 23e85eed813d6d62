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

// jobsFor is how long the jobs scenario runs: its last action is at 20s,
// and the flaky job's back-off takes it to about a minute.
const jobsFor = 90 * time.Second

// TestJobInvariants runs the jobs scenario under several seeds, without
// and with faults: job-parallelism holds at every pod created and
// job-complete once settled; batch and more end Complete with their
// completions succeeded, and flaky Failed by its back-off limit.
func TestJobInvariants(t *testing.T) {
	sc, err := sim.ScenarioByName("jobs")
	require.NoError(t, err)
	for _, faults := range []sim.FaultSet{0, sim.AllFaults} {
		for seed := uint64(1); seed <= 3; seed++ {
			t.Run(fmt.Sprintf("seed%d-faults%v", seed, faults != 0), func(t *testing.T) {
				s, err := sim.New(t.Context(), sim.Config{Seed: seed, Faults: faults})
				require.NoError(t, err)
				sc.Setup(s, jobsFor)
				err = s.RunFor(t.Context(), jobsFor)
				if err == nil {
					err = s.RunUntilQuiet(t.Context(), sim.DefaultConvergeWithin)
				}
				require.NoError(t, err)
				for name, want := range map[string]struct {
					condition string
					succeeded int32
				}{"batch": {api.JobComplete, 6}, "more": {api.JobComplete, 4}, "flaky": {api.JobFailed, 0}} {
					obj, err := s.Server().Get(t.Context(), client.Jobs, "default", name, client.GetOptions{})
					require.NoError(t, err)
					job := obj.(*api.Job)
					var got []string
					for _, c := range job.Status.Conditions {
						if c.Status == api.ConditionTrue {
							got = append(got, c.Type)
						}
					}
					assert.Contains(t, got, want.condition, "job %s: conditions %+v", name, job.Status.Conditions)
					assert.Equal(t, want.succeeded, job.Status.Succeeded, "job %s", name)
				}
			})
		}
	}
}
