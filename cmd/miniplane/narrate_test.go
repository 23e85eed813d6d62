package main

import (
	"bytes"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/client"
	"github.com/miniplane/miniplane/controllers/deployment"
	"github.com/miniplane/miniplane/controllers/replication"
)

// narration is a narrator on a hand-driven clock, fed watch events
// directly.
type narration struct {
	n   *narrator
	out *bytes.Buffer
	now time.Time
}

func newNarration(firstRev int64) *narration {
	start := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	out := &bytes.Buffer{}
	x := &narration{n: newNarrator(out, false, start), out: out, now: start}
	x.n.now = func() time.Time { return x.now }
	x.n.next = firstRev
	return x
}

// deliver hands the narrator events as a watch would, each with the
// revision given.
func (x *narration) deliver(evs ...client.WatchEvent) { x.n.arrived(x.now, evs) }

// lines returns what was told, without the time column.
func (x *narration) lines() []string {
	var out []string
	for l := range strings.SplitSeq(strings.TrimRight(x.out.String(), "\n"), "\n") {
		if len(l) > 10 {
			l = strings.Join(strings.Fields(l[10:]), " ")
		}
		out = append(out, l)
	}
	return out
}

func at(rev int64, typ string, obj api.Object) client.WatchEvent {
	obj.GetObjectMeta().ResourceVersion = strconv.FormatInt(rev, 10)
	return client.WatchEvent{Type: typ, Object: obj}
}

func rcWeb() *api.ReplicationController {
	return &api.ReplicationController{Metadata: api.ObjectMeta{Namespace: "default", Name: "web", UID: "rc-uid"}}
}

// webPod is pod name of the RC web, bound to node if it is not "".
func webPod(name, node string, mutate ...func(*api.Pod)) *api.Pod {
	yes := true
	p := &api.Pod{Metadata: api.ObjectMeta{Namespace: "default", Name: name,
		OwnerReferences: []api.OwnerReference{{Kind: "ReplicationController", Name: "web", UID: "rc-uid", Controller: &yes}}}}
	p.Spec.NodeName = node
	for _, m := range mutate {
		m(p)
	}
	return p
}

func running(ip string) func(*api.Pod) {
	return func(p *api.Pod) {
		p.Status.Phase = api.PodRunning
		p.Status.PodIP = ip
		p.Status.Conditions = []api.PodCondition{{Type: api.PodReady, Status: api.ConditionTrue}}
	}
}

func event(reason, involved, message string, annotations map[string]string) *api.Event {
	return &api.Event{
		Metadata:       api.ObjectMeta{Namespace: "default", Name: involved + "." + reason, Annotations: annotations},
		InvolvedObject: api.ObjectReference{Namespace: "default", Name: involved},
		Reason:         reason, Message: message,
		Source: api.EventSource{Component: map[bool]string{true: "replication-controller", false: "kubelet"}[involved == "web"]},
	}
}

// TestNarratorTellsInRevisionOrderWithReportsBesideTheirWrites: watch
// events that arrive out of order are told in revision order; an Event
// that reports a write (here written after the scheduler and kubelet had
// already acted) is told beside that write; a line of the script waits for
// the revisions before it; the figures are the Event's annotations.
func TestNarratorTellsInRevisionOrderWithReportsBesideTheirWrites(t *testing.T) {
	x := newNarration(10)
	facts := map[string]string{replication.AnnotationExpectedCreations: "1", replication.AnnotationExpectedDeletions: "0"}
	// The pods watch runs ahead of the events watch.
	x.deliver(
		at(11, api.WatchAdded, webPod("web-a", "")),
		at(12, api.WatchModified, webPod("web-a", "node-1")),
		at(13, api.WatchModified, webPod("web-a", "node-1", running("10.244.1.2"))),
	)
	x.n.sayAfter(10, x.now, youKubectl, "scaled replicationcontroller web to 1")
	assert.Equal(t, []string{""}, x.lines(), "nothing before revision 10 (the RC) is told")
	x.deliver(at(10, api.WatchModified, rcWeb()))
	assert.Equal(t, []string{"you (kubectl) scaled replicationcontroller web to 1"}, x.lines(),
		"the script's line, then the pod's creation waits for the Event that reports it")
	x.deliver(
		at(14, api.WatchAdded, event(replication.ReasonSuccessfulCreate, "web", "Created pod: web-a", facts)),
		at(15, api.WatchAdded, event("Scheduled", "web-a", "Successfully assigned default/web-a to node-1", nil)),
		at(16, api.WatchAdded, event("Started", "web-a", "Started containers", nil)),
	)
	assert.Equal(t, []string{
		"you (kubectl) scaled replicationcontroller web to 1",
		"replication-controller Created pod: web-a (expectations: 1 creations, 0 deletions not yet observed)",
		"scheduler Successfully assigned default/web-a to node-1",
		"kubelet node-1 web-a: Started containers",
		"kubelet node-1 pod web-a is ready at 10.244.1.2",
	}, x.lines())
	assert.True(t, x.n.told(16), "the Events told early still move the revision on")
	assert.Equal(t, 1, x.n.count("", replication.ReasonSuccessfulCreate), "told once")
}

// TestNarratorGivesUpOnAReportThatDoesNotCome: a write whose Event never
// comes (a user deleted the pod, or the recorder dropped it) holds the
// story back for gapTimeout only; so does a revision no watch delivers.
func TestNarratorGivesUpOnAReportThatDoesNotCome(t *testing.T) {
	x := newNarration(1)
	x.deliver(at(1, api.WatchAdded, rcWeb()), at(2, api.WatchModified, webPod("web-a", "node-1")))
	x.deliver(at(4, api.WatchModified, webPod("web-a", "node-1", running("10.244.1.2"))))
	assert.Equal(t, []string{""}, x.lines(), "waiting for the Scheduled event")
	x.now = x.now.Add(gapTimeout + time.Millisecond)
	x.n.mu.Lock()
	x.n.skipGapLocked(x.now)
	x.n.mu.Unlock()
	require.True(t, x.n.told(2))
	assert.False(t, x.n.told(3), "revision 3 has not come: 4 waits for it")
	x.n.mu.Lock()
	x.n.skipGapLocked(x.now.Add(time.Millisecond))
	x.n.mu.Unlock()
	assert.True(t, x.n.told(4))
	assert.Equal(t, []string{"kubelet node-1 pod web-a is ready at 10.244.1.2"}, x.lines())
}

// TestNarratorAttributesNotReady: a pod made not ready by its node's loss
// is the node lifecycle's line; by a crash, its kubelet's.
func TestNarratorAttributesNotReady(t *testing.T) {
	x := newNarration(1)
	notReady := func(reason, message string, restarts int32) func(*api.Pod) {
		return func(p *api.Pod) {
			p.Status.Phase = api.PodRunning
			p.Status.Conditions = []api.PodCondition{{Type: api.PodReady, Status: api.ConditionFalse, Reason: reason, Message: message}}
			p.Status.ContainerStatuses = []api.ContainerStatus{{Name: "web", RestartCount: restarts}}
		}
	}
	x.n.pods["default/web-a"] = &podMemo{node: "node-1", running: true, ready: true}
	x.n.pods["default/web-b"] = &podMemo{node: "node-2", running: true, ready: true}
	x.deliver(
		at(1, api.WatchModified, webPod("web-a", "node-1", notReady("NodeNotReady", "node node-1 is not ready", 0))),
		at(2, api.WatchModified, webPod("web-b", "node-2", notReady("ContainersNotReady", "containers with unready status: [web]", 1))),
	)
	assert.Equal(t, []string{
		"node-lifecycle pod web-a is not ready: node node-1 is not ready",
		"kubelet node-2 pod web-b is not ready (restarts: 1)",
	}, x.lines())
}

// TestPodRankFacts shows what the ranking compares, as the API stores it:
// whole seconds.
func TestPodRankFacts(t *testing.T) {
	readyAt := time.Date(2026, 3, 1, 12, 0, 4, 900e6, time.UTC)
	p := webPod("web-a", "node-1", running("10.244.1.2"))
	p.Status.Conditions[0].LastTransitionTime = api.NewTime(readyAt)
	p.Metadata.CreationTimestamp = api.NewTime(readyAt.Add(-2 * time.Second))
	p.Metadata.UID = "0123456789abcdef"
	assert.Equal(t, "ready since 12:00:04, 0 restarts, created 12:00:02, uid 01234567…", podRankFacts(p))
	p.Status.Conditions[0].Status = api.ConditionFalse
	assert.Equal(t, "not ready, 0 restarts, created 12:00:02, uid 01234567…", podRankFacts(p))
}

// shopRS is replica set name of the deployment shop, asking for replicas.
func shopRS(name, revision string, replicas int32) *api.ReplicaSet {
	yes := true
	return &api.ReplicaSet{
		Metadata: api.ObjectMeta{Namespace: "default", Name: name, UID: api.UID("uid-" + name),
			Labels:          map[string]string{deployment.PodTemplateHashLabel: strings.TrimPrefix(name, "shop-")},
			Annotations:     map[string]string{deployment.RevisionAnnotation: revision},
			OwnerReferences: []api.OwnerReference{{Kind: "Deployment", Name: "shop", UID: "d-uid", Controller: &yes}}},
		Spec: api.ReplicaSetSpec{Replicas: &replicas, Template: api.PodTemplateSpec{
			Spec: api.PodSpec{Containers: []api.Container{{Name: "shop", Image: "nginx:1.27"}}}}},
	}
}

// scaling is the deployment controller's ScalingReplicaSet event, with the
// figures it decided with.
func scaling(name, message string, why deployment.Fenceposts) *api.Event {
	return &api.Event{
		Metadata:       api.ObjectMeta{Namespace: "default", Name: name, Annotations: why.Annotations()},
		InvolvedObject: api.ObjectReference{Namespace: "default", Kind: "Deployment", Name: "shop"},
		Reason:         deployment.ReasonScalingReplicaSet, Message: message,
		Source: api.EventSource{Component: "deployment-controller"},
	}
}

// TestNarratorTellsARollout: a replica set the deployment controller makes
// is told with its revision, then the ScalingReplicaSet event that reports
// it with the figures the controller decided with, before the pods the
// replica set controller makes meanwhile; a resize is told by its event,
// found also when it is a bump of a combined one; a set made the new one
// again by a rollback is told with its new revision; the deployment's
// conditions are told as they change.
func TestNarratorTellsARollout(t *testing.T) {
	x := newNarration(1)
	why := deployment.Fenceposts{Replicas: 4, MaxSurge: 1, MaxUnavailable: 1, Pods: 4, Available: 4}
	pod := func(name string) *api.Pod {
		yes := true
		return &api.Pod{Metadata: api.ObjectMeta{Namespace: "default", Name: name,
			OwnerReferences: []api.OwnerReference{{Kind: "ReplicaSet", Name: "shop-v2", Controller: &yes}}}}
	}
	shop := &api.Deployment{Metadata: api.ObjectMeta{Namespace: "default", Name: "shop",
		Annotations: map[string]string{deployment.RevisionAnnotation: "2"}}}
	shop.Status.Conditions = []api.DeploymentCondition{{Type: api.DeploymentProgressing, Status: api.ConditionTrue,
		Reason: deployment.NewReplicaSetReason, Message: `Created new replica set "shop-v2"`}}
	x.n.rss["default/shop-v1"] = &rsMemo{replicas: 4, available: 4, revision: "1"}
	x.deliver(
		at(1, api.WatchAdded, shopRS("shop-v2", "2", 1)),
		at(2, api.WatchAdded, pod("shop-v2-a")), // the replica set controller, before the report
		at(3, api.WatchAdded, scaling("e1", "Scaled up replica set shop-v2 from 0 to 1", why)),
		at(4, api.WatchAdded, event(replication.ReasonSuccessfulCreate, "shop-v2", "Created pod: shop-v2-a", nil)),
		at(5, api.WatchModified, shop),
	)
	why.Pods = 5
	x.deliver(
		at(6, api.WatchModified, shopRS("shop-v1", "1", 3)),
		at(7, api.WatchModified, scaling("e2", combinedPrefix+"Scaled down replica set shop-v1 from 4 to 3", why)),
		at(8, api.WatchModified, shopRS("shop-v1", "3", 3)),
	)
	assert.Equal(t, []string{
		"deployment-controller created replica set shop-v2 (revision 2, pod-template-hash v2): nginx:1.27",
		"deployment-controller Scaled up replica set shop-v2 from 0 to 1 (max surge 1 → at most 5 pods, 4 now; max unavailable 1 → at least 3 available, 4 now)",
		"kubelet Created pod: shop-v2-a",
		"deployment-controller deployment shop is at revision 2",
		`deployment-controller deployment shop Progressing=True (NewReplicaSetCreated): Created new replica set "shop-v2"`,
		"deployment-controller Scaled down replica set shop-v1 from 4 to 3 (max surge 1 → at most 5 pods, 5 now; max unavailable 1 → at least 3 available, 4 now)",
		"deployment-controller replica set shop-v1 is the new one again: revision 3 (was 1)",
	}, x.lines())
	assert.Equal(t, 1, x.n.combinedEvents(deployment.ReasonScalingReplicaSet))
	assert.Equal(t, 2, x.n.count("deployment-controller", deployment.ReasonScalingReplicaSet))
}
