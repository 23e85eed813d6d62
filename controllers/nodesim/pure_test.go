package nodesim

import (
	"fmt"
	"hash/fnv"
	"net/netip"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/miniplane/miniplane/api"
)

var epoch = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

func TestNextPodIP(t *testing.T) {
	full := map[string]bool{}
	for i := 2; i <= 254; i++ {
		full[fmt.Sprintf("10.244.1.%d", i)] = true
	}
	tests := []struct {
		name    string
		cidr    string
		used    map[string]bool
		want    string
		wantErr bool
	}{
		{"first pod gets .2", nodeCIDR(0), nil, "10.244.0.2", false},
		{"next after the used ones", nodeCIDR(1), map[string]bool{"10.244.1.2": true, "10.244.1.3": true}, "10.244.1.4", false},
		{"freed address reused, lowest first", nodeCIDR(1), map[string]bool{"10.244.1.3": true}, "10.244.1.2", false},
		{"per-node range", nodeCIDR(7), map[string]bool{"10.244.0.2": true}, "10.244.7.2", false},
		{"exhausted: .255 is broadcast", nodeCIDR(1), full, "", true},
		{"tiny range exhausted", "10.0.0.0/30", map[string]bool{"10.0.0.2": true}, "", true},
		{"bad cidr", "nope", nil, "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := nextPodIP(tt.cidr, netip.Addr{}, func(a netip.Addr) bool { return tt.used[a.String()] })
			if tt.wantErr {
				assert.Error(t, err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got.String())
			// Told that all below the answer are taken, it finds it
			// again, looking at none of them.
			again, err := nextPodIP(tt.cidr, got, func(a netip.Addr) bool {
				require.False(t, a.Less(got), "%s looked at, below %s", a, got)
				return tt.used[a.String()]
			})
			require.NoError(t, err)
			assert.Equal(t, got, again)
			_, err = nextPodIP(tt.cidr, netip.MustParseAddr("10.255.255.255"), func(netip.Addr) bool { return false })
			assert.ErrorIs(t, err, errRangeFull, "all below the end of the range taken")
		})
	}
}

// testPod is a pod bound to node-0 in the given phase.
func testPod(phase api.PodPhase, ready bool) *api.Pod {
	p := &api.Pod{
		Metadata: api.ObjectMeta{Namespace: "default", Name: "web", UID: "uid-1"},
		Spec:     api.PodSpec{NodeName: "node-0", Containers: []api.Container{{Name: "app", Image: "nginx"}}},
		Status:   api.PodStatus{Phase: phase},
	}
	if phase == api.PodRunning {
		p.Status = startedStatus(new(statusBuf), p, "10.0.0.1", "10.244.0.2", epoch)
		if ready {
			p.Status = readyStatus(new(statusBuf), p, epoch)
		}
	}
	return p
}

func TestDecide(t *testing.T) {
	sec := time.Second
	base := podFacts{Now: epoch, Since: epoch, StartDelay: sec, ReadyDelay: 2 * sec, TerminationDelay: sec}
	at := func(f podFacts, d time.Duration) podFacts { f.Now = epoch.Add(d); return f }
	terminating := func(p *api.Pod) *api.Pod {
		ts := api.NewTime(epoch.Add(30 * sec))
		p.Metadata.DeletionTimestamp = &ts
		return p
	}
	crashedPod := testPod(api.PodRunning, true)
	crashedPod.Status = crashedStatus(new(statusBuf), crashedPod, epoch)
	accepted := testPod(api.PodPending, false)
	accepted.Status = acceptedStatus(new(statusBuf), accepted, "10.0.0.1", epoch)
	down := base
	down.NodeDown = true
	probed := func(p *api.Pod) *api.Pod {
		p.Spec.Containers[0].ReadinessProbe = &api.Probe{PeriodSeconds: 1}
		return p
	}
	deadline := func(seconds int64, p *api.Pod) *api.Pod {
		p.Spec.ActiveDeadlineSeconds = &seconds
		return p
	}

	tests := []struct {
		name     string
		pod      *api.Pod
		facts    podFacts
		want     action
		wantWait time.Duration
	}{
		{"bound pod accepted at once", testPod(api.PodPending, false), at(base, 400*time.Millisecond), actAccept, 600 * time.Millisecond},
		{"accepted pod waits for StartDelay", accepted, at(base, 400*time.Millisecond), actNone, 600 * time.Millisecond},
		{"accepted pod starts at StartDelay", accepted, at(base, sec), actStart, 0},
		{"pending starts at StartDelay", testPod(api.PodPending, false), at(base, sec), actStart, 0},
		{"probed running waits for ReadyDelay", probed(testPod(api.PodRunning, false)), at(base, sec), actNone, sec},
		{"probed running ready at ReadyDelay", probed(testPod(api.PodRunning, false)), at(base, 2*sec), actReady, 0},
		{"running without a probe ready at once", testPod(api.PodRunning, false), base, actReady, 0},
		{"ready: nothing to do", testPod(api.PodRunning, true), at(base, time.Hour), actNone, 0},
		{"failed: nothing to do", testPod(api.PodFailed, false), at(base, time.Hour), actNone, 0},
		{"crash requested", testPod(api.PodRunning, true), func() podFacts { f := base; f.CrashRequested = true; return f }(), actCrash, 0},
		{"crashed waits for StartDelay", crashedPod, base, actNone, sec},
		{"crashed restarts", crashedPod, at(base, sec), actRestart, 0},
		{"held not ready: probe fails", testPod(api.PodRunning, true), func() podFacts { f := base; f.WantReady = ptr(false); return f }(), actProbeFail, 0},
		{"held not ready stays so", testPod(api.PodRunning, false), func() podFacts { f := at(base, time.Hour); f.WantReady = ptr(false); return f }(), actNone, 0},
		{"ready now ignores ReadyDelay", probed(testPod(api.PodRunning, false)), func() podFacts { f := base; f.WantReady = ptr(true); return f }(), actReady, 0},
		{"terminating waits", terminating(testPod(api.PodRunning, true)), at(base, 300*time.Millisecond), actNone, 700 * time.Millisecond},
		{"terminating stopped: terminal phase first", terminating(testPod(api.PodRunning, true)), at(base, sec), actStop, 0},
		{"terminating and terminal: confirmed at once", terminating(testPod(api.PodSucceeded, false)), base, actConfirmDelete, 0},
		{"failed pod deleted: confirmed at once", terminating(testPod(api.PodFailed, false)), base, actConfirmDelete, 0},
		{"failed pod deleted, node down: not confirmed", terminating(testPod(api.PodFailed, false)), down, actNone, 0},
		{"node down: the kubelet leaves a ready pod alone", testPod(api.PodRunning, true), at(down, sec), actNone, 0},
		{"node down: pending pod is not started", testPod(api.PodPending, false), at(down, 10*sec), actNone, 0},
		{"node down: crashed pod is not restarted", crashedPod, at(down, sec), actNone, 0},
		{"node down: past its deadline, nobody kills it", deadline(1, testPod(api.PodRunning, true)), at(down, 5*sec), actNone, 0},
		{"deadline: ready pod waits for it", deadline(5, testPod(api.PodRunning, true)), at(base, 2*sec), actNone, 3 * sec},
		{"deadline: probed pod waits for the sooner", deadline(5, probed(testPod(api.PodRunning, false))), at(base, sec), actNone, sec},
		{"deadline: sooner than the probe", deadline(1, probed(testPod(api.PodRunning, false))), at(base, 500*time.Millisecond), actNone, 500 * time.Millisecond},
		{"deadline passed: failed", deadline(5, testPod(api.PodRunning, true)), at(base, 5*sec), actDeadline, 0},
		{"deadline before the start: none", deadline(5, testPod(api.PodPending, false)), at(base, 400*time.Millisecond), actAccept, 600 * time.Millisecond},
		{"deadline of a terminating pod: deletion goes on", deadline(1, terminating(testPod(api.PodRunning, true))), at(base, sec), actStop, 0},
		{"node down: terminating pod not confirmed", terminating(testPod(api.PodRunning, false)), at(down, 10*sec), actNone, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, wait := decide(tt.pod, tt.facts)
			assert.Equal(t, tt.want, got, "action")
			assert.Equal(t, tt.wantWait, wait, "wait")
		})
	}
}

func TestStatusTransitions(t *testing.T) {
	now := epoch.Add(5 * time.Second)
	cond := func(st api.PodStatus, typ api.PodConditionType) api.PodCondition {
		c, ok := conditionOf(&api.Pod{Status: st}, typ)
		require.True(t, ok, "condition %s", typ)
		return c
	}
	never := testPod(api.PodRunning, true)
	never.Spec.RestartPolicy = api.RestartPolicyNever
	tests := []struct {
		name  string
		pod   *api.Pod
		build func(*api.Pod) api.PodStatus
		check func(t *testing.T, st api.PodStatus)
	}{
		{"accepted: pending, hostIP, containers creating", testPod(api.PodPending, false),
			func(p *api.Pod) api.PodStatus { return acceptedStatus(new(statusBuf), p, "10.0.0.1", now) },
			func(t *testing.T, st api.PodStatus) {
				assert.Equal(t, api.PodPending, st.Phase)
				assert.Equal(t, "10.0.0.1", st.HostIP)
				assert.Empty(t, st.PodIP)
				require.Len(t, st.ContainerStatuses, 1)
				require.NotNil(t, st.ContainerStatuses[0].State.Waiting)
				assert.Equal(t, "ContainerCreating", st.ContainerStatuses[0].State.Waiting.Reason)
				assert.Equal(t, api.ConditionFalse, cond(st, api.PodReady).Status)
			}},
		{"started: running, IPs, not ready", testPod(api.PodPending, false),
			func(p *api.Pod) api.PodStatus { return startedStatus(new(statusBuf), p, "10.0.0.1", "10.244.0.2", now) },
			func(t *testing.T, st api.PodStatus) {
				assert.Equal(t, api.PodRunning, st.Phase)
				assert.Equal(t, "10.244.0.2", st.PodIP)
				assert.Equal(t, []api.PodIP{{IP: "10.244.0.2"}}, st.PodIPs)
				assert.Equal(t, "10.0.0.1", st.HostIP)
				assert.Equal(t, api.NewTime(now), *st.StartTime)
				require.Len(t, st.ContainerStatuses, 1)
				cs := st.ContainerStatuses[0]
				assert.NotNil(t, cs.State.Running)
				assert.False(t, cs.Ready)
				assert.True(t, *cs.Started)
				assert.Equal(t, "nginx", cs.Image)
				assert.Equal(t, containerID("uid-1", "app", 0), cs.ContainerID)
				assert.Equal(t, api.ConditionTrue, cond(st, api.PodInitialized).Status)
				assert.Equal(t, api.ConditionTrue, cond(st, api.PodScheduled).Status)
				assert.Equal(t, api.ConditionFalse, cond(st, api.ContainersReady).Status)
				assert.Equal(t, api.ConditionFalse, cond(st, api.PodReady).Status)
			}},
		{"ready: conditions true, transition now", testPod(api.PodRunning, false),
			func(p *api.Pod) api.PodStatus { return readyStatus(new(statusBuf), p, now) },
			func(t *testing.T, st api.PodStatus) {
				assert.True(t, st.ContainerStatuses[0].Ready)
				assert.Equal(t, api.ConditionTrue, cond(st, api.PodReady).Status)
				assert.Equal(t, api.NewTime(now), cond(st, api.PodReady).LastTransitionTime)
				assert.Equal(t, api.ConditionTrue, cond(st, api.ContainersReady).Status)
				assert.Equal(t, api.NewTime(epoch), cond(st, api.PodInitialized).LastTransitionTime, "unchanged condition keeps its time")
			}},
		{"crashed: exit 1, restartCount+1, not ready, still Running", testPod(api.PodRunning, true),
			func(p *api.Pod) api.PodStatus { return crashedStatus(new(statusBuf), p, now) },
			func(t *testing.T, st api.PodStatus) {
				assert.Equal(t, api.PodRunning, st.Phase)
				cs := st.ContainerStatuses[0]
				require.NotNil(t, cs.State.Terminated)
				assert.Equal(t, int32(1), cs.State.Terminated.ExitCode)
				assert.Equal(t, int32(1), cs.RestartCount)
				assert.False(t, cs.Ready)
				assert.Equal(t, api.ConditionFalse, cond(st, api.PodReady).Status)
			}},
		{"crashed with restartPolicy Never: Failed", never,
			func(p *api.Pod) api.PodStatus { return crashedStatus(new(statusBuf), p, now) },
			func(t *testing.T, st api.PodStatus) {
				assert.Equal(t, api.PodFailed, st.Phase)
				assert.Equal(t, int32(0), st.ContainerStatuses[0].RestartCount)
			}},
		{"restarted: running again, last state terminated, new ID", func() *api.Pod {
			p := testPod(api.PodRunning, true)
			p.Status = crashedStatus(new(statusBuf), p, epoch)
			return p
		}(),
			func(p *api.Pod) api.PodStatus { return restartedStatus(new(statusBuf), p, now) },
			func(t *testing.T, st api.PodStatus) {
				cs := st.ContainerStatuses[0]
				assert.NotNil(t, cs.State.Running)
				assert.NotNil(t, cs.LastTerminationState.Terminated)
				assert.Equal(t, containerID("uid-1", "app", 1), cs.ContainerID)
				assert.NotEqual(t, containerID("uid-1", "app", 0), cs.ContainerID)
				assert.False(t, cs.Ready)
			}},
		{"stopped: its server exits 0 on SIGTERM, Succeeded", testPod(api.PodRunning, true),
			func(p *api.Pod) api.PodStatus { return stoppedStatus(new(statusBuf), p, now) },
			func(t *testing.T, st api.PodStatus) {
				assert.Equal(t, api.PodSucceeded, st.Phase)
				term := st.ContainerStatuses[0].State.Terminated
				require.NotNil(t, term)
				assert.Equal(t, api.ContainerStateTerminated{ExitCode: 0, Reason: "Completed", StartedAt: api.NewTime(epoch),
					FinishedAt: api.NewTime(now), ContainerID: containerID("uid-1", "app", 0)}, *term)
				assert.False(t, st.ContainerStatuses[0].Ready)
				assert.Equal(t, reasonPodCompleted, cond(st, api.PodReady).Reason)
				assert.Equal(t, api.ConditionFalse, cond(st, api.ContainersReady).Status)
			}},
		{"stopped: a command ignores SIGTERM and is killed, Failed; DisruptionTarget kept", func() *api.Pod {
			p := testPod(api.PodRunning, true)
			p.Spec.Containers[0].Command = []string{"/bin/sh", "-c", "sleep 1000000"}
			p.Status.Conditions = append(p.Status.Conditions, api.PodCondition{Type: "DisruptionTarget", Status: api.ConditionTrue, Reason: "EvictionByEvictionAPI"})
			return p
		}(),
			func(p *api.Pod) api.PodStatus { return stoppedStatus(new(statusBuf), p, now) },
			func(t *testing.T, st api.PodStatus) {
				assert.Equal(t, api.PodFailed, st.Phase)
				term := st.ContainerStatuses[0].State.Terminated
				require.NotNil(t, term)
				assert.Equal(t, int32(137), term.ExitCode)
				assert.Equal(t, "Error", term.Reason)
				assert.Equal(t, reasonContainersNotReady, cond(st, api.PodReady).Reason)
				assert.Equal(t, "EvictionByEvictionAPI", cond(st, "DisruptionTarget").Reason)
			}},
		{"stopped before it started: status unknown, Failed", func() *api.Pod {
			p := testPod(api.PodPending, false)
			p.Status = acceptedStatus(new(statusBuf), p, "10.0.0.1", epoch)
			return p
		}(),
			func(p *api.Pod) api.PodStatus { return stoppedStatus(new(statusBuf), p, now) },
			func(t *testing.T, st api.PodStatus) {
				assert.Equal(t, api.PodFailed, st.Phase)
				assert.Equal(t, api.ContainerStateTerminated{ExitCode: 137, Reason: reasonStatusUnknown, Message: messageStatusUnknown},
					*st.ContainerStatuses[0].State.Terminated)
			}},
		{"probe failed: not ready, containers keep running", testPod(api.PodRunning, true),
			func(p *api.Pod) api.PodStatus { return probeFailedStatus(new(statusBuf), p, now) },
			func(t *testing.T, st api.PodStatus) {
				assert.NotNil(t, st.ContainerStatuses[0].State.Running)
				assert.False(t, st.ContainerStatuses[0].Ready)
				assert.Equal(t, api.ConditionFalse, cond(st, api.PodReady).Status)
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := tt.pod.DeepCopy()
			tt.check(t, tt.build(tt.pod))
			assert.Equal(t, before, tt.pod, "the input pod is not changed")
		})
	}
}

func TestStageOf(t *testing.T) {
	assert.Equal(t, "Pending", stageOf(testPod(api.PodPending, false)).String())
	assert.Equal(t, "Running", stageOf(testPod(api.PodRunning, false)).String())
	assert.Equal(t, "Running/ready", stageOf(testPod(api.PodRunning, true)).String())
	p := testPod(api.PodRunning, true)
	p.Status = crashedStatus(new(statusBuf), p, epoch)
	assert.Equal(t, "Running/crashed", stageOf(p).String())
	none := testPod(api.PodPending, false)
	none.Status.Phase = ""
	assert.Equal(t, stageOf(testPod(api.PodPending, false)), stageOf(none), "no phase is the Pending stage")
	gone := testPod(api.PodRunning, true)
	gone.Metadata.DeletionTimestamp = &api.Time{Time: epoch}
	assert.Equal(t, "Running/terminating/ready", stageOf(gone).String())
	assert.NotEqual(t, stageOf(testPod(api.PodRunning, true)), stageOf(gone), "terminating is another stage")
}

func TestNodeAddressesPastTheFirst256(t *testing.T) {
	tests := []struct {
		i          int
		cidr, host string
	}{
		{0, "10.244.0.0/24", "10.0.0.1"},
		{255, "10.244.255.0/24", "10.0.1.0"},
		{256, "10.245.0.0/24", "10.0.1.1"},
		{999, "10.247.231.0/24", "10.0.3.232"},
		{MaxNodes - 1, "10.255.255.0/24", "10.0.12.0"},
	}
	seen := map[string]bool{}
	for _, tt := range tests {
		assert.Equal(t, tt.cidr, nodeCIDR(tt.i), "node %d", tt.i)
		assert.Equal(t, tt.host, nodeIP(tt.i), "node %d", tt.i)
	}
	for i := range MaxNodes {
		c := nodeCIDR(i)
		assert.False(t, seen[c], "range %s given twice", c)
		seen[c] = true
	}
}

func TestNotReadyMessage(t *testing.T) {
	for _, tt := range []struct {
		containers []string
		want       string
	}{
		{[]string{"app"}, "containers with unready status: [app]"},
		{[]string{"app", "sidecar"}, "containers with unready status: [app sidecar]"},
		{nil, "containers with unready status: []"},
	} {
		pod := &api.Pod{}
		for _, name := range tt.containers {
			pod.Spec.Containers = append(pod.Spec.Containers, api.Container{Name: name})
		}
		assert.Equal(t, tt.want, notReadyMessage(pod))
		assert.True(t, isNotReadyMessage(tt.want, pod), "its own message")
		for _, other := range []string{"", tt.want + " ", "containers with unready status: [app sidecar x]", "containers with unready status: [ap]", "containers with unready status: [appsidecar]", "containers with unready status: [app  sidecar]"} {
			assert.False(t, isNotReadyMessage(other, pod), "%q is not %q", other, tt.want)
		}
	}
}

// TestIDsAsBefore holds containerID and imageID to what they were when
// formatted with fmt through hash/fnv: recorded runs keep their IDs.
func TestIDsAsBefore(t *testing.T) {
	fnvHex := func(format string, args ...any) uint64 {
		h := fnv.New64a()
		fmt.Fprintf(h, format, args...)
		return h.Sum64()
	}
	for _, tt := range []struct {
		uid      api.UID
		name     string
		restarts int32
	}{
		{"uid-1", "app", 0}, {"uid-1", "app", 1}, {"6f1c0e2a-1b2c-4d5e-8f90-123456789abc", "sidecar", 2147483647},
		{"", "", -3}, {"u", "a/b", 10},
	} {
		want := fmt.Sprintf("containerd://%016x", fnvHex("%s/%s/%d", tt.uid, tt.name, tt.restarts))
		assert.Equal(t, want, containerID(tt.uid, tt.name, tt.restarts))
	}
	for _, image := range []string{"nginx:1.27", "", "registry.k8s.io/pause:3.10"} {
		want := fmt.Sprintf("%s@sha256:%016x", image, fnvHex("%s", image))
		assert.Equal(t, want, imageID(image))
		b := new(statusBuf)
		assert.Equal(t, want, b.imageIDOf(image))
		assert.Equal(t, want, b.imageIDOf(image), "remembered")
	}
	b := new(statusBuf)
	assert.Equal(t, imageID("a"), b.imageIDOf("a"))
	assert.Equal(t, imageID("b"), b.imageIDOf("b"), "a new image is not the remembered one")
}

// TestStatusBufReused: a buffer builds status after status, for pods of
// different shapes, each as a fresh buffer would.
func TestStatusBufReused(t *testing.T) {
	now := epoch.Add(time.Second)
	two := testPod(api.PodPending, false)
	two.Spec.Containers = append(two.Spec.Containers, api.Container{Name: "sidecar", Image: "busybox"})
	running := testPod(api.PodRunning, true)
	builds := []struct {
		name  string
		build func(*statusBuf) api.PodStatus
	}{
		{"accepted, two containers", func(b *statusBuf) api.PodStatus { return acceptedStatus(b, two, "10.0.0.1", now) }},
		{"started, two containers", func(b *statusBuf) api.PodStatus { return startedStatus(b, two, "10.0.0.1", "10.244.0.3", now) }},
		{"accepted, one container", func(b *statusBuf) api.PodStatus {
			return acceptedStatus(b, testPod(api.PodPending, false), "10.0.0.2", now)
		}},
		{"ready", func(b *statusBuf) api.PodStatus { return readyStatus(b, running, now) }},
		{"started, one container", func(b *statusBuf) api.PodStatus {
			return startedStatus(b, testPod(api.PodPending, false), "10.0.0.2", "10.244.1.2", now)
		}},
		{"crashed", func(b *statusBuf) api.PodStatus { return crashedStatus(b, running, now) }},
	}
	shared := new(statusBuf)
	for _, bb := range builds {
		got := bb.build(shared)
		assert.Equal(t, bb.build(new(statusBuf)), got, bb.name)
		shared.reset()
	}
}

// TestConfirmDeletionOptions: the kubelet confirms a deletion with grace 0
// on condition of the pod's uid, whichever carrier it borrowed before.
func TestConfirmDeletionOptions(t *testing.T) {
	var cs carriers
	for _, uid := range []api.UID{"uid-1", "uid-2"} {
		cr := cs.lend()
		pod := &api.Pod{Metadata: api.ObjectMeta{Namespace: "default", Name: "web", UID: uid}}
		opts := cr.confirmDeletion(pod)
		require.NotNil(t, opts.GracePeriodSeconds)
		assert.Equal(t, int64(0), *opts.GracePeriodSeconds)
		require.NotNil(t, opts.Preconditions)
		require.NotNil(t, opts.Preconditions.UID)
		assert.Equal(t, uid, *opts.Preconditions.UID)
		assert.Nil(t, opts.Preconditions.ResourceVersion)
		cs.giveBack(cr)
	}
}

// TestNodeIPsRange: a node's range is parsed once and parsed again only
// when it changes; each answer is parsePodCIDR's.
func TestNodeIPsRange(t *testing.T) {
	var n nodeIPs
	for _, cidr := range []string{"10.244.0.0/24", "10.244.0.0/24", "10.244.1.7/24", "not a range", "not a range", "", "10.244.0.0/24"} {
		want, wantErr := parsePodCIDR(cidr)
		got, err := n.rangeOf(cidr)
		assert.Equal(t, want, got, cidr)
		assert.Equal(t, wantErr, err, cidr)
	}
	n.prefix = netip.MustParsePrefix("10.9.9.0/24")
	got, err := n.rangeOf("10.244.0.0/24")
	require.NoError(t, err)
	assert.Equal(t, netip.MustParsePrefix("10.9.9.0/24"), got, "the range last parsed is not parsed again")
}

// conditionOf returns the pod's condition of typ, if it has one.
func conditionOf(pod *api.Pod, typ api.PodConditionType) (api.PodCondition, bool) {
	for _, c := range pod.Status.Conditions {
		if c.Type == typ {
			return c, true
		}
	}
	return api.PodCondition{}, false
}
