package api

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestPodStatusReason checks kubectl's STATUS of a pod in the states a
// learner meets, as printPod prints them.
func TestPodStatusReason(t *testing.T) {
	waiting := func(reason string) ContainerState {
		return ContainerState{Waiting: &ContainerStateWaiting{Reason: reason}}
	}
	terminated := func(reason string, code int32) ContainerState {
		return ContainerState{Terminated: &ContainerStateTerminated{Reason: reason, ExitCode: code}}
	}
	running := ContainerState{Running: &ContainerStateRunning{}}
	now := Time{}
	tests := []struct {
		name string
		pod  Pod
		want string
	}{
		{"pending, not scheduled", Pod{Status: PodStatus{Phase: PodPending}}, "Pending"},
		{"creating", Pod{Status: PodStatus{Phase: PodPending, ContainerStatuses: []ContainerStatus{{State: waiting("ContainerCreating")}}}}, "ContainerCreating"},
		{"image pull failed", Pod{Status: PodStatus{Phase: PodPending, ContainerStatuses: []ContainerStatus{{State: waiting("ErrImagePull")}}}}, "ErrImagePull"},
		{"image pull backing off", Pod{Status: PodStatus{Phase: PodPending, ContainerStatuses: []ContainerStatus{{State: waiting("ImagePullBackOff")}}}}, "ImagePullBackOff"},
		{"running", Pod{Status: PodStatus{Phase: PodRunning, ContainerStatuses: []ContainerStatus{{State: running, Ready: true}}}}, "Running"},
		{"running, not ready", Pod{Status: PodStatus{Phase: PodRunning, ContainerStatuses: []ContainerStatus{{State: running}}}}, "Running"},
		{"crash looping", Pod{Status: PodStatus{Phase: PodRunning, ContainerStatuses: []ContainerStatus{{State: waiting("CrashLoopBackOff"), RestartCount: 4}}}}, "CrashLoopBackOff"},
		{"completed", Pod{Status: PodStatus{Phase: PodSucceeded, ContainerStatuses: []ContainerStatus{{State: terminated("Completed", 0)}}}}, "Completed"},
		{"error", Pod{Status: PodStatus{Phase: PodFailed, ContainerStatuses: []ContainerStatus{{State: terminated("Error", 1)}}}}, "Error"},
		{"exit code without reason", Pod{Status: PodStatus{Phase: PodFailed, ContainerStatuses: []ContainerStatus{{State: terminated("", 3)}}}}, "ExitCode:3"},
		{"one container completed, one running and ready", Pod{Status: PodStatus{Phase: PodRunning,
			Conditions:        []PodCondition{{Type: PodReady, Status: ConditionTrue}},
			ContainerStatuses: []ContainerStatus{{State: terminated("Completed", 0)}, {State: running, Ready: true}}}}, "Running"},
		{"one container completed, one running, pod not ready", Pod{Status: PodStatus{Phase: PodRunning,
			ContainerStatuses: []ContainerStatus{{State: terminated("Completed", 0)}, {State: running, Ready: true}}}}, "NotReady"},
		{"init container running", Pod{Spec: PodSpec{InitContainers: []Container{{}, {}}}, Status: PodStatus{Phase: PodPending,
			InitContainerStatuses: []ContainerStatus{{State: terminated("Completed", 0)}, {State: running}}}}, "Init:1/2"},
		{"init container crashing", Pod{Spec: PodSpec{InitContainers: []Container{{}}}, Status: PodStatus{Phase: PodPending,
			InitContainerStatuses: []ContainerStatus{{State: waiting("CrashLoopBackOff")}}}}, "Init:CrashLoopBackOff"},
		{"evicted", Pod{Status: PodStatus{Phase: PodFailed, Reason: "Evicted"}}, "Evicted"},
		{"terminating", Pod{Metadata: ObjectMeta{DeletionTimestamp: &now}, Status: PodStatus{Phase: PodRunning}}, "Terminating"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, PodStatusReason(&tt.pod))
		})
	}
}
