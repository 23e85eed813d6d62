package ui

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/client"
)

// deployment creates a Deployment as kubectl does.
func (c *cluster) deployment(name string, replicas int32, image string) *api.Deployment {
	c.t.Helper()
	d := &api.Deployment{Metadata: api.ObjectMeta{Name: name, Namespace: "default"}}
	d.Spec.Replicas = &replicas
	d.Spec.Selector = &api.LabelSelector{MatchLabels: map[string]string{"app": name}}
	d.Spec.Template.Metadata.Labels = map[string]string{"app": name}
	d.Spec.Template.Spec.Containers = []api.Container{{Name: "web", Image: image}}
	out, err := c.srv.Create(as("kubectl-create"), d)
	require.NoError(c.t, err)
	return out.(*api.Deployment)
}

// setImage changes the Deployment's image as `kubectl set image` does,
// returning the write's revision.
func (c *cluster) setImage(name, image string) int64 {
	c.t.Helper()
	obj, err := c.srv.Get(context.Background(), client.Deployments, "default", name, client.GetOptions{})
	require.NoError(c.t, err)
	d := obj.DeepCopyObject().(*api.Deployment)
	d.Spec.Template.Spec.Containers[0].Image = image
	_, err = c.srv.Update(as("kubectl-set"), d)
	require.NoError(c.t, err)
	return c.rev()
}

// replicaSetFor creates the Deployment's ReplicaSet of revision rev as
// the deployment controller does, named after its hash.
func (c *cluster) replicaSetFor(d *api.Deployment, hash string, rev int, replicas int32, image string) *api.ReplicaSet {
	c.t.Helper()
	yes := true
	labels := map[string]string{"app": d.Metadata.Name, "pod-template-hash": hash}
	rs := &api.ReplicaSet{Metadata: api.ObjectMeta{Name: d.Metadata.Name + "-" + hash, Namespace: "default", Labels: labels,
		Annotations:     map[string]string{revisionAnnotation: strconv.Itoa(rev)},
		OwnerReferences: []api.OwnerReference{{APIVersion: "apps/v1", Kind: "Deployment", Name: d.Metadata.Name, UID: d.Metadata.UID, Controller: &yes}}}}
	rs.Spec.Replicas = &replicas
	rs.Spec.Selector = &api.LabelSelector{MatchLabels: labels}
	rs.Spec.Template.Metadata.Labels = labels
	rs.Spec.Template.Spec.Containers = []api.Container{{Name: "web", Image: image}}
	out, err := c.srv.Create(as("deployment"), rs)
	require.NoError(c.t, err)
	return out.(*api.ReplicaSet)
}

// scaleReplicaSet sets the ReplicaSet's replicas as the deployment
// controller does in a rolling update.
func (c *cluster) scaleReplicaSet(name string, replicas int32) int64 {
	c.t.Helper()
	obj, err := c.srv.Get(context.Background(), client.ReplicaSets, "default", name, client.GetOptions{})
	require.NoError(c.t, err)
	rs := obj.DeepCopyObject().(*api.ReplicaSet)
	rs.Spec.Replicas = &replicas
	_, err = c.srv.Update(as("deployment"), rs)
	require.NoError(c.t, err)
	return c.rev()
}

// podOfReplicaSet creates a pod the ReplicaSet owns, as the replica set
// controller does, with status st (Pending, unbound, when nil); it
// returns the creation's revision.
func (c *cluster) podOfReplicaSet(rs *api.ReplicaSet, name, node string, st *api.PodStatus) int64 {
	c.t.Helper()
	yes := true
	p := &api.Pod{Metadata: api.ObjectMeta{Name: name, Namespace: "default", Labels: rs.Spec.Template.Metadata.Labels,
		OwnerReferences: []api.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: rs.Metadata.Name, UID: rs.Metadata.UID, Controller: &yes}}}}
	p.Spec = rs.Spec.Template.Spec
	_, err := c.srv.Create(as("replicaset"), p)
	require.NoError(c.t, err)
	created := c.rev()
	if node != "" {
		_, err = c.srv.Bind(context.Background(), "default", name, node)
		require.NoError(c.t, err)
	}
	if st != nil {
		_, err = c.srv.UpdateStatus(as("kubelet"), &api.Pod{Metadata: api.ObjectMeta{Name: name, Namespace: "default"}, Status: *st})
		require.NoError(c.t, err)
	}
	return created
}

// Pod statuses as the kubelet writes them.
func running(ready bool) *api.PodStatus {
	st := &api.PodStatus{Phase: api.PodRunning, PodIP: "10.0.0.9"}
	st.ContainerStatuses = []api.ContainerStatus{{Name: "web", Ready: ready, State: api.ContainerState{Running: &api.ContainerStateRunning{}}}}
	cond := api.ConditionFalse
	if ready {
		cond = api.ConditionTrue
	}
	st.Conditions = []api.PodCondition{{Type: api.PodReady, Status: cond}}
	return st
}

func waiting(phase api.PodPhase, reason string, restarts int32) *api.PodStatus {
	return &api.PodStatus{Phase: phase, ContainerStatuses: []api.ContainerStatus{{Name: "web", RestartCount: restarts,
		State: api.ContainerState{Waiting: &api.ContainerStateWaiting{Reason: reason}}}}}
}

func terminated(phase api.PodPhase, reason string, code int32) *api.PodStatus {
	return &api.PodStatus{Phase: phase, ContainerStatuses: []api.ContainerStatus{{Name: "web",
		State: api.ContainerState{Terminated: &api.ContainerStateTerminated{Reason: reason, ExitCode: code}}}}}
}

// rollingUpdate is a Deployment web halfway through a rolling update from
// nginx:1.26 (revision 1, 2 of 3 left) to nginx:1.27 (revision 2, 2 of 3
// made, one ready), with a bare ReplicaSet beside it.
type rollingUpdate struct {
	before, setImage int64 // the revision before the rollout, and kubectl's write
	oldRS, newRS     *api.ReplicaSet
	newRSCreated     int64
	scaledUp         int64
	newPods          []int64
}

func startRollingUpdate(t *testing.T, c *cluster) rollingUpdate {
	var ru rollingUpdate
	c.node("node-0")
	d := c.deployment("web", 3, "nginx:1.26")
	ru.oldRS = c.replicaSetFor(d, "6d4cf56db6", 1, 3, "nginx:1.26")
	for i := range 3 {
		c.podOfReplicaSet(ru.oldRS, fmt.Sprintf("web-6d4cf56db6-%c", 'a'+i), "node-0", running(true))
	}
	ru.before = c.rev()
	ru.setImage = c.setImage("web", "nginx:1.27")
	ru.newRS = c.replicaSetFor(d, "7f8b9c5d4", 2, 1, "nginx:1.27")
	ru.newRSCreated = c.rev()
	ru.newPods = append(ru.newPods, c.podOfReplicaSet(ru.newRS, "web-7f8b9c5d4-x", "node-0", running(true)))
	c.scaleReplicaSet("web-6d4cf56db6", 2)
	ru.scaledUp = c.scaleReplicaSet("web-7f8b9c5d4", 2)
	ru.newPods = append(ru.newPods, c.podOfReplicaSet(ru.newRS, "web-7f8b9c5d4-y", "node-0", running(false)))

	obj, err := c.srv.Get(context.Background(), client.Deployments, "default", "web", client.GetOptions{})
	require.NoError(t, err)
	dep := obj.DeepCopyObject().(*api.Deployment)
	dep.Status = api.DeploymentStatus{ObservedGeneration: dep.Metadata.Generation, Replicas: 5, UpdatedReplicas: 2, ReadyReplicas: 4, AvailableReplicas: 4,
		Conditions: []api.DeploymentCondition{
			{Type: api.DeploymentAvailable, Status: api.ConditionTrue, Reason: "MinimumReplicasAvailable"},
			{Type: api.DeploymentProgressing, Status: api.ConditionTrue, Reason: "ReplicaSetUpdated"},
		}}
	_, err = c.srv.UpdateStatus(as("deployment"), dep)
	require.NoError(t, err)

	labels := map[string]string{"app": "cache"}
	bare := &api.ReplicaSet{Metadata: api.ObjectMeta{Name: "cache", Namespace: "default"}}
	bare.Spec.Replicas = new(int32)
	bare.Spec.Selector = &api.LabelSelector{MatchLabels: labels}
	bare.Spec.Template.Metadata.Labels = labels
	bare.Spec.Template.Spec.Containers = []api.Container{{Name: "redis", Image: "redis"}}
	_, err = c.srv.Create(as("kubectl"), bare)
	require.NoError(t, err)
	return ru
}

func TestSnapshotGroupsADeploymentsReplicaSetsAndPods(t *testing.T) {
	c := newCluster(t, 0)
	ru := startRollingUpdate(t, c)

	var s Snapshot
	require.Equal(t, http.StatusOK, c.get("/ui/api/snapshot", &s))
	require.Len(t, s.Deployments, 1)
	d := s.Deployments[0]
	assert.Equal(t, "web", d.Name)
	assert.Equal(t, []string{"nginx:1.27"}, d.Images)
	assert.Equal(t, int32(3), d.Desired)
	assert.Equal(t, int32(2), d.Updated)
	assert.Equal(t, "RollingUpdate", d.Strategy)
	assert.Equal(t, []ConditionView{{Type: "Available", Status: "True", Reason: "MinimumReplicasAvailable"},
		{Type: "Progressing", Status: "True", Reason: "ReplicaSetUpdated"}}, d.Conditions)
	assert.False(t, d.RolledOut)
	assert.Equal(t, `Waiting for deployment "web" rollout to finish: 2 out of 3 new replicas have been updated...`, d.Rollout)

	require.Len(t, d.ReplicaSets, 2, "both ReplicaSets, grouped under their Deployment")
	newRS, oldRS := d.ReplicaSets[0], d.ReplicaSets[1]
	assert.Equal(t, ru.newRS.Metadata.Name, newRS.Name, "newest first")
	assert.Equal(t, int64(2), newRS.Revision)
	assert.Equal(t, int32(2), newRS.Desired)
	assert.Equal(t, []string{"nginx:1.27"}, newRS.Images)
	assert.Equal(t, "Rr", newRS.Pods.Grid)
	assert.Equal(t, []string{"web-7f8b9c5d4-x", "web-7f8b9c5d4-y"}, []string{newRS.Pods.Listed[0].Name, newRS.Pods.Listed[1].Name})
	assert.Equal(t, ru.oldRS.Metadata.Name, oldRS.Name)
	assert.Equal(t, int64(1), oldRS.Revision)
	assert.Equal(t, int32(2), oldRS.Desired)
	assert.Equal(t, "RRR", oldRS.Pods.Grid, "the old pods still run: nothing has deleted one yet")

	require.Len(t, s.ReplicaSets, 1, "a ReplicaSet no Deployment controls stands alone")
	assert.Equal(t, "cache", s.ReplicaSets[0].Name)
	assert.Equal(t, int32(0), s.ReplicaSets[0].Desired)

	// The past: before kubectl set image, one ReplicaSet.
	var then Snapshot
	require.Equal(t, http.StatusOK, c.get(fmt.Sprintf("/ui/api/snapshot?revision=%d", ru.before), &then))
	require.Len(t, then.Deployments, 1)
	require.Len(t, then.Deployments[0].ReplicaSets, 1)
	assert.Equal(t, []string{"nginx:1.26"}, then.Deployments[0].Images)
	assert.Equal(t, "RRR", then.Deployments[0].ReplicaSets[0].Pods.Grid)
	assert.Empty(t, then.ReplicaSets)
}

func TestPodsAreCountedAsKubectlPrintsTheirStatus(t *testing.T) {
	c := newCluster(t, 0)
	c.node("node-0")
	d := c.deployment("jobs", 7, "busybox")
	rs := c.replicaSetFor(d, "5b7c", 1, 7, "busybox")
	c.podOfReplicaSet(rs, "jobs-a", "node-0", running(true))
	c.podOfReplicaSet(rs, "jobs-b", "node-0", terminated(api.PodSucceeded, "Completed", 0))
	c.podOfReplicaSet(rs, "jobs-c", "node-0", terminated(api.PodFailed, "Error", 1))
	c.podOfReplicaSet(rs, "jobs-d", "node-0", waiting(api.PodRunning, "CrashLoopBackOff", 4))
	c.podOfReplicaSet(rs, "jobs-e", "node-0", waiting(api.PodPending, "ImagePullBackOff", 0))
	c.podOfReplicaSet(rs, "jobs-f", "", nil)
	c.podOfReplicaSet(rs, "jobs-g", "node-0", waiting(api.PodPending, "ContainerCreating", 0))

	var s Snapshot
	require.Equal(t, http.StatusOK, c.get("/ui/api/snapshot", &s))
	assert.Equal(t, PodCounts{Total: 7, Ready: 1, Status: map[string]int{
		"Running": 1, "Completed": 1, "Error": 1, "CrashLoopBackOff": 1, "ImagePullBackOff": 1, "Pending": 1, "ContainerCreating": 1,
	}}, s.Pods)
	require.Len(t, s.Nodes, 2)
	assert.Equal(t, "RDFFFP", s.Nodes[0].Grid, "ready, done, and three failing; ContainerCreating is on its way")
	assert.Equal(t, 6, s.Nodes[0].Counts.Total)
	listed := s.Deployments[0].ReplicaSets[0].Pods.Listed
	require.Len(t, listed, 7)
	assert.Equal(t, PodView{Namespace: "default", Name: "jobs-d", Phase: "Running", Status: "CrashLoopBackOff", Restarts: 4, State: "F", Node: "node-0"}, listed[3])
}

func TestTheTimelineLeadsFromARolloutsPodsToKubectlSetImage(t *testing.T) {
	c := newCluster(t, 0)
	ru := startRollingUpdate(t, c)

	tl := rowsOf(t, c, "/ui/api/timeline?limit=1000")
	byRev := map[int64]Row{}
	for _, r := range tl.Rows {
		byRev[r.Revision] = r
	}
	assert.Equal(t, "kubectl-set", byRev[ru.setImage].Actor)
	assert.Nil(t, byRev[ru.setImage].Cause)

	created := byRev[ru.newRSCreated]
	require.NotNil(t, created.Cause)
	assert.Equal(t, "deployment", created.Cause.Controller)
	assert.Equal(t, "default/web", created.Cause.Key)
	assert.Equal(t, ru.setImage, created.Cause.TriggerRevision, "the new ReplicaSet follows kubectl set image")

	rollout := &RolloutStart{Deployment: "default/web", Revision: ru.setImage, Actor: "kubectl-set"}
	first := byRev[ru.newPods[0]]
	require.NotNil(t, first.Cause)
	assert.Equal(t, &Cause{Controller: "replicaset", Key: "default/" + ru.newRS.Metadata.Name, TriggerRevision: ru.newRSCreated,
		Inferred: true, Rule: RuleOwner, Rollout: rollout}, first.Cause, "a pod of the new ReplicaSet: its creation, and the rollout")
	second := byRev[ru.newPods[1]]
	require.NotNil(t, second.Cause)
	assert.Equal(t, ru.scaledUp, second.Cause.TriggerRevision, "the second pod follows the deployment controller scaling its ReplicaSet up")
	assert.Equal(t, rollout, second.Cause.Rollout)

	// The pods of the first revision belong to the Deployment's creation.
	oldPod := tl.Rows[len(tl.Rows)-1]
	for _, r := range tl.Rows {
		if r.Kind == "Pod" && r.Name == "web-6d4cf56db6-a" && r.Verb == api.WatchAdded {
			oldPod = r
		}
	}
	require.NotNil(t, oldPod.Cause)
	require.NotNil(t, oldPod.Cause.Rollout)
	assert.Equal(t, "kubectl-create", oldPod.Cause.Rollout.Actor)
}
