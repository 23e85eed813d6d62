package manager_test

import (
	"context"
	"flag"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/apiserver"
	"github.com/miniplane/miniplane/client"
)

// Issue 31's figure is 1,000 Jobs of 10 completions; CI runs a hundredth
// of that as a smoke test:
//
//	go test ./controllers/manager/ -run='^$' -bench=JobsToComplete -benchtime=1x -jobs=1000
var benchJobs = flag.Int("jobs", 10, "jobs of 10 completions in BenchmarkJobsToComplete")

// BenchmarkJobsToComplete creates -jobs Jobs, each of 10 completions run
// 10 at a time by pods whose command runs 5 virtual seconds (`sleep 5`,
// restartPolicy Never), on an empty control plane, and waits until every
// Job is Complete with 10 succeeded pods. It reports wall and CPU time and
// allocation per pod, beside BenchmarkDeploymentRollout's, and logs, with
// -v, the cost per pod by component.
//
// A node takes 110 pods; finished pods free their room, but the nodes are
// enough for every pod at once, so that the figure measures the job
// controller and the pods' lives, not the scheduler's retries.
func BenchmarkJobsToComplete(b *testing.B) {
	const completions = 10
	n := *benchJobs
	pods := n * completions
	for b.Loop() {
		ctx := context.Background()
		p := newBenchPlane(b, pods/100+1)
		srv := p.srv

		run := p.startPhase("jobs")
		for i := range n {
			c := int32(completions)
			_, err := srv.Create(ctx, &api.Job{
				Metadata: api.ObjectMeta{Namespace: "default", Name: fmt.Sprintf("batch-%04d", i)},
				Spec: api.JobSpec{
					Completions: &c,
					Parallelism: &c,
					Template: api.PodTemplateSpec{Spec: api.PodSpec{
						RestartPolicy: api.RestartPolicyNever,
						Containers:    []api.Container{{Name: "work", Image: "busybox", Command: []string{"sleep", "5"}}},
					}},
				},
			})
			require.NoError(b, err)
		}
		p.settleWithin(time.Hour, func() string { return notComplete(b, srv, n, completions) })
		cost := run.end(pods, n) // a Job each

		peakBytes := p.stop()
		b.ReportMetric(cost.wall.Seconds(), "s-jobs")
		b.ReportMetric(cost.cpu.Seconds(), "cpu-s-jobs")
		b.ReportMetric(cost.cpu.Seconds()/float64(pods)*1e6, "cpu-µs/pod")
		b.ReportMetric(float64(cost.alloc.bytes)/float64(pods), "alloc-B/pod")
		b.ReportMetric(float64(cost.alloc.objects)/float64(pods), "allocs/pod")
		b.ReportMetric(float64(cost.storeWrites)/float64(pods), "writes/pod")
		b.ReportMetric(float64(peakBytes)/(1<<20), "MiB-peak-heap")
		b.ReportMetric(float64(pods), "pods")
		b.ReportMetric(float64(p.steps), "clock-steps")
		if cost.shares != nil {
			fmt.Print(costTable(cost)) // printed: a benchmark's log is cut to ten lines
		}
	}
}

// notComplete says what keeps the n jobs from being complete ("" once
// they are): each has its Complete condition True, completions succeeded
// pods and none active or failed, and the namespace holds n×completions
// pods, each Succeeded.
func notComplete(b *testing.B, srv *apiserver.Server, n int, completions int32) string {
	ctx := context.Background()
	jobs, _, err := client.For[*api.Job](srv).List(ctx, "default", client.ListOptions{})
	require.NoError(b, err)
	if len(jobs) != n {
		return fmt.Sprintf("%d jobs, want %d", len(jobs), n)
	}
	for _, j := range jobs {
		s := j.Status
		complete := false
		for _, c := range s.Conditions {
			complete = complete || (c.Type == api.JobComplete && c.Status == api.ConditionTrue)
		}
		if !complete || s.Succeeded != completions || s.Active != 0 || s.Failed != 0 {
			return fmt.Sprintf("job %s: status %+v", j.Metadata.Name, s)
		}
	}
	list, err := srv.List(ctx, client.Pods, "default", client.ListOptions{ResourceVersion: "0"})
	require.NoError(b, err)
	if len(list.Items) != n*int(completions) {
		return fmt.Sprintf("%d pods, want %d", len(list.Items), n*int(completions))
	}
	for _, obj := range list.Items {
		if pod := obj.(*api.Pod); pod.Status.Phase != api.PodSucceeded {
			return fmt.Sprintf("pod %s: phase %s", pod.Metadata.Name, pod.Status.Phase)
		}
	}
	return ""
}
