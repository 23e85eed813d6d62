package container

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/miniplane/miniplane/api"
)

func TestShouldRestart(t *testing.T) {
	for _, tc := range []struct {
		policy api.RestartPolicy
		code   int32
		want   bool
	}{
		{api.RestartPolicyAlways, 0, true}, {api.RestartPolicyAlways, 1, true}, {"", 0, true},
		{api.RestartPolicyOnFailure, 0, false}, {api.RestartPolicyOnFailure, 3, true},
		{api.RestartPolicyNever, 0, false}, {api.RestartPolicyNever, 3, false},
	} {
		assert.Equal(t, tc.want, ShouldRestart(tc.policy, tc.code), "%s %d", tc.policy, tc.code)
	}
	assert.Equal(t, "Completed", TerminatedReason(0))
	assert.Equal(t, "Error", TerminatedReason(3))
}

// TestBackoffCrashLoop walks a container that exits at once, for ever:
// the kubelet restarts it at once the first time, then 10s, 20s, 40s, ...
// after each exit, at most 5m, and starts again at 10s once the last
// restart is ten minutes behind an exit.
func TestBackoffCrashLoop(t *testing.T) {
	t0 := time.Unix(1_000_000, 0)
	var b Backoff
	now := t0
	var waits []time.Duration
	for range 8 {
		finished := now
		assert.True(t, b.Due(finished).Equal(finished) || b.InBackoffSince(finished, finished))
		due := b.Due(finished)
		waits = append(waits, due.Sub(finished))
		assert.False(t, b.InBackoffSince(finished, due), "not held back at its due time")
		b = b.Next(finished, due)
		now = due
	}
	assert.Equal(t, []time.Duration{0, 10 * time.Second, 20 * time.Second, 40 * time.Second, 80 * time.Second,
		160 * time.Second, 300 * time.Second, 300 * time.Second}, waits)

	// A run of more than ten minutes after the last restart resets it.
	finished := now.Add(2*MaxBackoff + time.Second)
	assert.False(t, b.InBackoffSince(finished, finished))
	assert.Equal(t, InitialBackoff, b.Next(finished, finished).Delay)
	// A run of exactly ten minutes does not.
	finished = now.Add(2 * MaxBackoff)
	assert.True(t, b.InBackoffSince(finished, finished))
}

func TestBackoffSinceUpdate(t *testing.T) {
	t0 := time.Unix(1_000_000, 0)
	var b Backoff
	assert.False(t, b.InBackoffSinceUpdate(t0))
	b = b.Next(t0, t0)
	assert.True(t, b.InBackoffSinceUpdate(t0.Add(9*time.Second)))
	assert.False(t, b.InBackoffSinceUpdate(t0.Add(10*time.Second)))
	b = b.Next(t0.Add(10*time.Second), t0.Add(10*time.Second))
	assert.Equal(t, 20*time.Second, b.Delay)
}

func TestCrashLoopMessage(t *testing.T) {
	pod := &api.Pod{Metadata: api.ObjectMeta{Name: "web", Namespace: "default", UID: "u-1"}}
	assert.Equal(t, "back-off 1m20s restarting failed container=app pod=web_default(u-1)", CrashLoopMessage(80*time.Second, "app", pod))
}

func TestPhase(t *testing.T) {
	running := api.ContainerStatus{State: api.ContainerState{Running: &api.ContainerStateRunning{}}}
	creating := api.ContainerStatus{State: api.ContainerState{Waiting: &api.ContainerStateWaiting{Reason: "ContainerCreating"}}}
	exited := func(code int32) api.ContainerStatus {
		return api.ContainerStatus{State: api.ContainerState{Terminated: &api.ContainerStateTerminated{ExitCode: code}}}
	}
	backingOff := api.ContainerStatus{
		State:                api.ContainerState{Waiting: &api.ContainerStateWaiting{Reason: "CrashLoopBackOff"}},
		LastTerminationState: api.ContainerState{Terminated: &api.ContainerStateTerminated{ExitCode: 1}},
	}
	for _, tc := range []struct {
		name   string
		policy api.RestartPolicy
		cs     []api.ContainerStatus
		want   api.PodPhase
	}{
		{"creating", api.RestartPolicyAlways, []api.ContainerStatus{creating}, api.PodPending},
		{"one creating, one running", api.RestartPolicyAlways, []api.ContainerStatus{running, creating}, api.PodPending},
		{"running", api.RestartPolicyNever, []api.ContainerStatus{running}, api.PodRunning},
		{"one done, one running", api.RestartPolicyNever, []api.ContainerStatus{exited(0), running}, api.PodRunning},
		{"crash loop", api.RestartPolicyAlways, []api.ContainerStatus{backingOff}, api.PodRunning},
		{"completed, Always", api.RestartPolicyAlways, []api.ContainerStatus{exited(0)}, api.PodRunning},
		{"completed, Never", api.RestartPolicyNever, []api.ContainerStatus{exited(0)}, api.PodSucceeded},
		{"completed, OnFailure", api.RestartPolicyOnFailure, []api.ContainerStatus{exited(0)}, api.PodSucceeded},
		{"failed, Never", api.RestartPolicyNever, []api.ContainerStatus{exited(0), exited(3)}, api.PodFailed},
		{"failed, OnFailure", api.RestartPolicyOnFailure, []api.ContainerStatus{exited(3)}, api.PodRunning},
		{"none", api.RestartPolicyNever, nil, api.PodPending},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, Phase(tc.policy, tc.cs))
		})
	}
}
