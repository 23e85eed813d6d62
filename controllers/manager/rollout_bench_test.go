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

// Issue 27's figure is 1,000 deployments of 100 replicas; CI runs a
// hundredth of that as a smoke test:
//
//	go test ./controllers/manager/ -run='^$' -bench=DeploymentRollout -benchtime=1x -deployments=1000
var benchDeployments = flag.Int("deployments", 10, "deployments of 100 replicas in BenchmarkDeploymentRollout")

// The images of the benchmark's two revisions.
const (
	rolloutImageOld = "nginx:1.27"
	rolloutImageNew = "nginx:1.28"
)

// BenchmarkDeploymentRollout creates -deployments Deployments of 100
// replicas (the default RollingUpdate strategy: 25 % surge, 25 %
// unavailable) on an empty control plane and waits until every one is
// complete: every pod Ready, every deployment Available with its rollout
// complete. Then it changes every deployment's image and waits until every
// rollout is complete again: every deployment's updated, available and
// ready replicas its 100, its old replica set at 0, and only the new
// image's pods left. It reports each phase's wall and CPU time and
// allocation per pod (created, then replaced) and logs, with -v, the cost
// per pod by component as BenchmarkControlPlaneScale does. Issue 27's aim
// is a rollout costing at most 1.5× the CPU of the create: the
// cpu-rollout/create metric.
//
// The nodes are half as many again as the deployments: a node takes 110
// pods, and 100 per node would leave the rollout's surge (25 more per
// deployment, and the old pods still terminating) waiting for room, which
// would measure the scheduler's retries on a full cluster, not a rollout.
func BenchmarkDeploymentRollout(b *testing.B) {
	const replicas = 100
	n := *benchDeployments
	pods := n * replicas
	for b.Loop() {
		ctx := context.Background()
		p := newBenchPlane(b, n+n/2)
		srv := p.srv

		create := p.startPhase("create")
		for i := range n {
			name := fmt.Sprintf("app-%04d", i)
			labels := map[string]string{"app": name}
			r := int32(replicas)
			_, err := srv.Create(ctx, &api.Deployment{
				Metadata: api.ObjectMeta{Namespace: "default", Name: name},
				Spec: api.DeploymentSpec{
					Replicas: &r,
					Selector: &api.LabelSelector{MatchLabels: labels},
					Template: api.PodTemplateSpec{
						Metadata: api.ObjectMeta{Labels: labels},
						Spec:     api.PodSpec{Containers: []api.Container{{Name: "app", Image: rolloutImageOld}}},
					},
				},
			})
			require.NoError(b, err)
		}
		p.settleWithin(time.Hour, func() string { return notRolledOut(b, srv, n, replicas, rolloutImageOld, 1) })
		createCost := create.end(pods, n) // a Deployment each

		rollout := p.startPhase("rollout")
		for i := range n {
			obj, err := srv.Get(ctx, client.Deployments, "default", fmt.Sprintf("app-%04d", i), client.GetOptions{})
			require.NoError(b, err)
			d := obj.(*api.Deployment).DeepCopy()
			d.Spec.Template.Spec.Containers[0].Image = rolloutImageNew
			_, err = srv.Update(ctx, d)
			require.NoError(b, err)
		}
		p.settleWithin(time.Hour, func() string { return notRolledOut(b, srv, n, replicas, rolloutImageNew, 2) })
		rolloutCost := rollout.end(pods, n) // an image change each

		peakBytes := p.stop()
		for _, c := range []phaseCost{createCost, rolloutCost} {
			b.ReportMetric(c.wall.Seconds(), "s-"+c.name)
			b.ReportMetric(c.cpu.Seconds(), "cpu-s-"+c.name)
			b.ReportMetric(float64(c.alloc.bytes)/float64(c.pods), "alloc-B/pod-"+c.name)
			b.ReportMetric(float64(c.alloc.objects)/float64(c.pods), "allocs/pod-"+c.name)
			b.ReportMetric(float64(c.storeWrites)/float64(c.pods), "writes/pod-"+c.name)
		}
		b.ReportMetric(rolloutCost.cpu.Seconds()/createCost.cpu.Seconds(), "cpu-rollout/create")
		b.ReportMetric(float64(peakBytes)/(1<<20), "MiB-peak-heap")
		b.ReportMetric(float64(pods), "pods")
		b.ReportMetric(float64(p.steps), "clock-steps")
		if createCost.shares != nil && rolloutCost.shares != nil {
			fmt.Print(costTable(createCost, rolloutCost)) // printed: a benchmark's log is cut to ten lines
		}
	}
}

// notRolledOut says what keeps the n deployments from having completed
// their rollout ("" once they have): each must have completed its
// rollout to image: its status observes its generation and counts
// replicas pods, all updated, ready and available; its Available condition
// is True and its Progressing condition says the new replica set is
// available. Of its sets (sets each), the one with image has replicas
// ready pods and the others none; and the namespace holds exactly
// n×replicas pods, none terminating, each Ready and running image.
func notRolledOut(b *testing.B, srv *apiserver.Server, n int, replicas int32, image string, sets int) string {
	ctx := context.Background()
	list, err := srv.List(ctx, client.Pods, "default", client.ListOptions{ResourceVersion: "0"})
	require.NoError(b, err)
	if len(list.Items) != n*int(replicas) {
		return fmt.Sprintf("%d pods, want %d", len(list.Items), n*int(replicas))
	}
	for _, obj := range list.Items {
		pod := obj.(*api.Pod)
		if pod.Metadata.DeletionTimestamp != nil || pod.Spec.Containers[0].Image != image || !podReady(pod) {
			return fmt.Sprintf("pod %s on %q: deleting %v, %s, phase %s, conditions %+v", pod.Metadata.Name, pod.Spec.NodeName,
				pod.Metadata.DeletionTimestamp != nil, pod.Spec.Containers[0].Image, pod.Status.Phase, pod.Status.Conditions)
		}
	}
	ds, _, err := client.For[*api.Deployment](srv).List(ctx, "default", client.ListOptions{})
	require.NoError(b, err)
	if len(ds) != n {
		return fmt.Sprintf("%d deployments, want %d", len(ds), n)
	}
	for _, d := range ds {
		s := d.Status
		if s.ObservedGeneration != d.Metadata.Generation || s.Replicas != replicas || s.UpdatedReplicas != replicas ||
			s.ReadyReplicas != replicas || s.AvailableReplicas != replicas || s.UnavailableReplicas != 0 ||
			!hasCondition(s.Conditions, api.DeploymentAvailable, api.ConditionTrue, "") ||
			!hasCondition(s.Conditions, api.DeploymentProgressing, api.ConditionTrue, "NewReplicaSetAvailable") {
			return fmt.Sprintf("deployment %s at generation %d: status %+v", d.Metadata.Name, d.Metadata.Generation, s)
		}
	}
	rss, _, err := client.For[*api.ReplicaSet](srv).List(ctx, "default", client.ListOptions{})
	require.NoError(b, err)
	if len(rss) != n*sets {
		return fmt.Sprintf("%d replica sets, want %d", len(rss), n*sets)
	}
	for _, rs := range rss {
		want := int32(0)
		if rs.Spec.Template.Spec.Containers[0].Image == image {
			want = replicas
		}
		if rs.Spec.Replicas == nil || *rs.Spec.Replicas != want || rs.Status.Replicas != want || rs.Status.ReadyReplicas != want ||
			rs.Status.AvailableReplicas != want || rs.Status.ObservedGeneration != rs.Metadata.Generation {
			return fmt.Sprintf("replica set %s (generation %d) wants %d: spec %v, status %+v", rs.Metadata.Name, rs.Metadata.Generation, want, rs.Spec.Replicas, rs.Status)
		}
	}
	return ""
}

// hasCondition reports whether conds holds a condition of type typ with
// status, and with reason unless reason is "".
func hasCondition(conds []api.DeploymentCondition, typ string, status api.ConditionStatus, reason string) bool {
	for _, c := range conds {
		if c.Type == typ {
			return c.Status == status && (reason == "" || c.Reason == reason)
		}
	}
	return false
}

// podReady reports whether pod's Ready condition is True.
func podReady(pod *api.Pod) bool {
	for _, c := range pod.Status.Conditions {
		if c.Type == api.PodReady {
			return c.Status == api.ConditionTrue
		}
	}
	return false
}
