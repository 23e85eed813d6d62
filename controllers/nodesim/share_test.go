package nodesim

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/miniplane/miniplane/api"
)

// statusStep is one status write of the kubelet: a builder, and markReady
// after it where runPod makes the status ready in the same write.
type statusStep struct {
	name  string
	build func(b *statusBuf, p *api.Pod) api.PodStatus
}

// lifeSteps takes a pod through every status builder, at the second at.
func lifeSteps(hostIP, podIP string, at func(int) time.Time) []statusStep {
	return []statusStep{
		{"bound", func(b *statusBuf, p *api.Pod) api.PodStatus {
			st := ownStatus(b, p) // PodScheduled, as the binding writes it
			st.Conditions = setCondition(st.Conditions, api.PodScheduled, api.ConditionTrue, "", "", at(0))
			return st
		}},
		{"accepted", func(b *statusBuf, p *api.Pod) api.PodStatus { return acceptedStatus(b, p, hostIP, at(1)) }},
		{"started", func(b *statusBuf, p *api.Pod) api.PodStatus { return startedStatus(b, p, hostIP, podIP, at(2)) }},
		{"ready", func(b *statusBuf, p *api.Pod) api.PodStatus { return readyStatus(b, p, at(3)) }},
		{"probe failed", func(b *statusBuf, p *api.Pod) api.PodStatus { return probeFailedStatus(b, p, at(4)) }},
		{"ready again", func(b *statusBuf, p *api.Pod) api.PodStatus { return readyStatus(b, p, at(5)) }},
		{"crashed", func(b *statusBuf, p *api.Pod) api.PodStatus { return crashedStatus(b, p, at(6)) }},
		{"restarted and ready", func(b *statusBuf, p *api.Pod) api.PodStatus {
			st := restartedStatus(b, p, at(7))
			markReady(&st, at(7))
			return st
		}},
		{"crashed again", func(b *statusBuf, p *api.Pod) api.PodStatus { return crashedStatus(b, p, at(8)) }},
		{"restarted", func(b *statusBuf, p *api.Pod) api.PodStatus { return restartedStatus(b, p, at(9)) }},
	}
}

// sharePods are pods of different shapes, two of them alike (same node,
// same times: they share most of their statuses).
func sharePods() []*api.Pod {
	pod := func(name, node string, containers ...string) *api.Pod {
		p := &api.Pod{
			Metadata: api.ObjectMeta{Namespace: "default", Name: name, UID: api.UID("uid-" + name)},
			Spec:     api.PodSpec{NodeName: node},
			Status:   api.PodStatus{Phase: api.PodPending},
		}
		for _, c := range containers {
			p.Spec.Containers = append(p.Spec.Containers, api.Container{Name: c, Image: c + ":1"})
		}
		return p
	}
	return []*api.Pod{pod("a", "node-0", "app"), pod("b", "node-0", "app"), pod("c", "node-1", "app", "sidecar"), pod("d", "node-1")}
}

// TestPublishedStatusEqual: a status published with sharing is equal, in
// every field, to the status built (publish changes where pieces live, not
// what they hold) and to one published the plain way (a fresh buffer, every
// piece made anew); and no published status changes afterwards, while the
// buffer builds the next statuses of the same and other pods from it (no
// builder writes through a shared piece, and nothing published points into
// the scratch block).
func TestPublishedStatusEqual(t *testing.T) {
	b := &statusBuf{share: newStatusShare()}
	type version struct {
		name      string
		got, want api.PodStatus
	}
	var versions []version
	pods := sharePods()
	ips := map[string][2]string{"node-0": {"10.0.0.1", "10.244.0.2"}, "node-1": {"10.0.0.2", "10.244.1.2"}}
	at := func(i int) time.Time { return epoch.Add(time.Duration(i) * time.Second) }
	for step := range lifeSteps("", "", at) {
		for _, p := range pods {
			addrs := ips[p.Spec.NodeName]
			s := lifeSteps(addrs[0], addrs[1], at)[step]
			built := s.build(b, p)
			fresh := s.build(new(statusBuf), p)
			want := fresh.DeepCopy()
			plain := new(statusBuf).publish(&p.Status, s.build(new(statusBuf), p))
			assert.Equal(t, *want, built, "%s %s: built", p.Metadata.Name, s.name)
			got := b.publish(&p.Status, built)
			b.reset()
			assert.Equal(t, *want, got, "%s %s: published", p.Metadata.Name, s.name)
			assert.Equal(t, plain, got, "%s %s: published the plain way", p.Metadata.Name, s.name)
			versions = append(versions, version{p.Metadata.Name + " " + s.name, got, *want})
			p.Status = got
		}
	}
	// Scribble over the scratch block: a published status pointing into it
	// would change.
	for i := range b.conds {
		b.conds[i] = api.PodCondition{Type: "scribbled", Reason: "scribbled"}
	}
	b.hostIPs[0].IP, b.podIPs[0].IP, b.startTime, b.yes, b.no = "x", "x", api.NewTime(epoch.Add(time.Hour)), false, true
	for i := range b.containers[:cap(b.containers)] {
		b.containers[:cap(b.containers)][i] = api.ContainerStatus{Name: "scribbled"}
	}
	for i := range b.pub[:cap(b.pub)] {
		b.pub[:cap(b.pub)][i] = api.ContainerStatus{Name: "scribbled"}
	}
	for i := range b.running[:cap(b.running)] {
		b.running[:cap(b.running)][i] = api.ContainerStateRunning{StartedAt: api.NewTime(epoch.Add(time.Hour))}
	}
	for i := range b.waiting[:cap(b.waiting)] {
		b.waiting[:cap(b.waiting)][i] = api.ContainerStateWaiting{Reason: "scribbled"}
	}
	for _, v := range versions {
		assert.Equal(t, v.want, v.got, "%s: unchanged since published", v.name)
	}
}

// TestPublishShares: pods that reach a stage at the same second on the same
// node share every piece of their statuses but their container statuses and
// pod IPs; a piece that did not change is the old status's.
func TestPublishShares(t *testing.T) {
	b := &statusBuf{share: newStatusShare()}
	at := func(i int) time.Time { return epoch.Add(time.Duration(i) * time.Second) }
	pods := sharePods()[:2]
	steps := lifeSteps("10.0.0.1", "", at)
	var prev [2]api.PodStatus
	for _, s := range []statusStep{steps[1], steps[2], steps[3]} {
		var got [2]api.PodStatus
		for i, p := range pods {
			prev[i] = p.Status
			ip := "10.244.0." + string(rune('2'+i))
			if s.name == "started" {
				s = lifeSteps("10.0.0.1", ip, at)[2]
			}
			got[i] = b.publish(&p.Status, s.build(b, p))
			b.reset()
			p.Status = got[i]
		}
		a, c := got[0], got[1]
		require.Len(t, a.Conditions, 4, s.name)
		assert.Same(t, &a.Conditions[0], &c.Conditions[0], "%s: conditions", s.name)
		assert.Same(t, a.StartTime, c.StartTime, "%s: start time", s.name)
		assert.Same(t, &a.HostIPs[0], &c.HostIPs[0], "%s: host IPs", s.name)
		require.Len(t, a.ContainerStatuses, 1, s.name)
		x, y := a.ContainerStatuses[0], c.ContainerStatuses[0]
		assert.Same(t, x.Started, y.Started, "%s: started", s.name)
		if x.State.Running != nil {
			assert.NotSame(t, &a.ContainerStatuses[0], &c.ContainerStatuses[0], "%s: container statuses with IDs are a pod's own", s.name)
			assert.Same(t, x.State.Running, y.State.Running, "%s: running state", s.name)
			assert.NotSame(t, &a.PodIPs[0], &c.PodIPs[0], "%s: pod IPs are a pod's own", s.name)
		} else {
			assert.Same(t, &a.ContainerStatuses[0], &c.ContainerStatuses[0], "%s: container statuses without IDs", s.name)
			assert.Same(t, x.State.Waiting, y.State.Waiting, "%s: waiting state", s.name)
		}
		if prev[0].StartTime != nil {
			assert.Same(t, prev[0].StartTime, a.StartTime, "%s: the old start time", s.name)
			assert.Same(t, &prev[0].HostIPs[0], &a.HostIPs[0], "%s: the old host IPs", s.name)
		}
		if s.name == "ready" {
			assert.Same(t, &prev[0].PodIPs[0], &a.PodIPs[0], "ready: the old pod IPs")
			assert.Same(t, prev[0].ContainerStatuses[0].State.Running, x.State.Running, "ready: the old running state")
		}
	}
}

// TestStatusShareRecent: a value asked for again is handed out again while
// it is among the last few; an older one is made anew, equal.
func TestStatusShareRecent(t *testing.T) {
	var r recent[api.Time]
	first := r.get(api.NewTime(epoch))
	assert.Same(t, first, r.get(api.NewTime(epoch)))
	for i := 1; i <= len(r.last); i++ {
		r.get(api.NewTime(epoch.Add(time.Duration(i) * time.Second)))
	}
	again := r.get(api.NewTime(epoch))
	assert.NotSame(t, first, again, "pushed out")
	assert.Equal(t, *first, *again)
}
