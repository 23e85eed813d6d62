package plane_test

import (
	"context"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/client"
	"github.com/miniplane/miniplane/controllers/manager"
	"github.com/miniplane/miniplane/controllers/nodesim"
	"github.com/miniplane/miniplane/plane"
	"github.com/miniplane/miniplane/plane/planetest"
)

// TestEvictedJobPodIsIgnoredUnderItsFailurePolicy follows an evicted Job
// pod through the whole plane, as the conformance test "Job should allow
// to use a pod failure policy to ignore failure matching on
// DisruptionTarget condition" does: the eviction gives the pod the
// DisruptionTarget condition, the kubelet stops its container (a command,
// killed: exit 137), writes the terminal phase Failed and only then
// confirms the deletion, and the Job controller, under a rule that ignores
// DisruptionTarget, lets the failure go uncounted and makes a new pod.
// Under a rule that counts the exit code instead, the same eviction is a
// failure that exceeds a backoffLimit of 0.
func TestEvictedJobPodIsIgnoredUnderItsFailurePolicy(t *testing.T) {
	tests := []struct {
		name       string
		rule       api.PodFailurePolicyRule
		wantFailed int32 // the failures the Job counts
		wantEnded  bool  // the Job ends Failed (BackoffLimitExceeded)
	}{
		{"DisruptionTarget ignored: not counted, replaced", api.PodFailurePolicyRule{
			Action:          api.PodFailurePolicyActionIgnore,
			OnPodConditions: []api.PodFailurePolicyOnPodConditionsPattern{{Type: "DisruptionTarget", Status: api.ConditionTrue}},
		}, 0, false},
		{"exit code 137 counted: the Job fails", api.PodFailurePolicyRule{
			Action:      api.PodFailurePolicyActionCount,
			OnExitCodes: &api.PodFailurePolicyOnExitCodesRequirement{Operator: api.PodFailurePolicyOnExitCodesOpIn, Values: []int32{137}},
		}, 1, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				ctx := context.Background()
				p := planetest.Start(t, plane.Config{Seed: 1, Options: options(func(o *manager.Options) { o.Nodes = 1 }),
					NodeSim: nodesim.Config{StartDelay: 100 * time.Millisecond, ReadyDelay: 100 * time.Millisecond}})
				srv := p.Server()
				_, err := client.For[*api.Job](srv).Create(ctx, evictableJob(tt.rule))
				require.NoError(t, err)

				running := func() *api.Pod {
					pods, _, err := client.For[*api.Pod](srv).List(ctx, "default", client.ListOptions{})
					require.NoError(t, err)
					for _, pod := range pods {
						if pod.Status.Phase == api.PodRunning && pod.Metadata.DeletionTimestamp == nil {
							return pod
						}
					}
					return nil
				}
				waitFor(t, "the Job's pod to run", func() bool { return running() != nil })
				victim := running()
				_, err = srv.Evict(ctx, &api.Eviction{Metadata: api.ObjectMeta{Namespace: "default", Name: victim.Metadata.Name}})
				require.NoError(t, err)

				job := func() *api.Job {
					j, err := client.For[*api.Job](srv).Get(ctx, "default", "evicted")
					require.NoError(t, err)
					return j
				}
				ended := func(j *api.Job) bool {
					for _, c := range j.Status.Conditions {
						if c.Type == api.JobFailed && c.Status == api.ConditionTrue {
							return true
						}
					}
					return false
				}
				gone := func() bool {
					_, err := client.For[*api.Pod](srv).Get(ctx, "default", victim.Metadata.Name)
					return err != nil
				}
				if tt.wantEnded {
					waitFor(t, "the Job to fail", func() bool { return ended(job()) })
				} else {
					waitFor(t, "the evicted pod gone and another running", func() bool {
						next := running()
						return gone() && next != nil && next.Metadata.UID != victim.Metadata.UID
					})
				}
				j := job()
				assert.Equal(t, tt.wantFailed, j.Status.Failed, "failures counted")
				assert.Equal(t, tt.wantEnded, ended(j))
				assert.Nil(t, j.Status.UncountedTerminatedPods.Failed, "nothing left to count")
			})
		})
	}
}

// evictableJob is a Job of one pod that runs until stopped, allowing no
// failure (backoffLimit 0), under a pod failure policy of rule.
func evictableJob(rule api.PodFailurePolicyRule) *api.Job {
	one, zero, grace := int32(1), int32(0), int64(1)
	return &api.Job{
		TypeMeta: api.TypeMeta{APIVersion: "batch/v1", Kind: "Job"},
		Metadata: api.ObjectMeta{Namespace: "default", Name: "evicted"},
		Spec: api.JobSpec{
			Parallelism: &one, Completions: &one, BackoffLimit: &zero,
			PodFailurePolicy: &api.PodFailurePolicy{Rules: []api.PodFailurePolicyRule{rule}},
			Template: api.PodTemplateSpec{Spec: api.PodSpec{
				RestartPolicy: api.RestartPolicyNever, TerminationGracePeriodSeconds: &grace,
				Containers: []api.Container{{Name: "c", Image: "busybox", Command: []string{"sleep", "3600"}}},
			}},
		},
	}
}
