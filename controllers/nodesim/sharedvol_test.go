package nodesim

import (
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/client/record"
)

// failOnce is the script of Kubernetes' e2e Job fixture "failOnce"
// (test/e2e/framework/job/fixtures.go): fail the first run, succeed once
// the marker file it left in /data is there.
const failOnce = `
			if [[ -r /data/foo ]]
			then
				exit 0
			else
				touch /data/foo
				exit 1
			fi
		`

// withData gives the pod the volume "data" of source src, mounted at
// /data by its first container.
func withData(src api.VolumeSource) func(*api.Pod) {
	return func(p *api.Pod) {
		p.Spec.Volumes = []api.Volume{{Name: "data", VolumeSource: src}}
		p.Spec.Containers[0].VolumeMounts = []api.VolumeMount{{Name: "data", MountPath: "/data"}}
	}
}

// TestEmptyDirSharedBetweenContainers: a file one container writes into
// an emptyDir is there for another container of the pod that mounts it
// (elsewhere), from the time it was written: its exec'd commands read it
// (Exec), as the conformance test "pod should support shared volumes
// between containers" reads it with cat.
func TestEmptyDirSharedBetweenContainers(t *testing.T) {
	e := lifeEnv(t)
	e.CreatePod("shared", func(p *api.Pod) {
		p.Spec.RestartPolicy = api.RestartPolicyNever
		p.Spec.Volumes = []api.Volume{{Name: "shared-data", VolumeSource: api.VolumeSource{EmptyDir: &api.EmptyDirVolumeSource{}}}}
		p.Spec.Containers = []api.Container{
			{Name: "main", Image: "busybox", Command: []string{"/bin/sh"}, Args: []string{"-c", "sleep 1000000"},
				VolumeMounts: []api.VolumeMount{{Name: "shared-data", MountPath: "/usr/share/volumeshare"}}},
			{Name: "sub", Image: "busybox", Command: []string{"/bin/sh"},
				Args:         []string{"-c", "sleep 5; echo Hello from the busy-box sub-container > /pod-data/shareddata.txt"},
				VolumeMounts: []api.VolumeMount{{Name: "shared-data", MountPath: "/pod-data"}}},
		}
	})
	e.settle()
	e.advance(time.Second)
	p := e.Pod("shared")
	require.Equal(t, api.PodRunning, p.Status.Phase)
	code, out, err := e.c.Exec(p, "main", []string{"/bin/sh", "-c", "cat /usr/share/volumeshare/shareddata.txt"})
	require.NoError(t, err)
	assert.Equal(t, int32(1), code, "not written yet")
	assert.Equal(t, "cat: can't open '/usr/share/volumeshare/shareddata.txt': No such file or directory", out)

	e.advance(5 * time.Second)
	p = e.Pod("shared")
	code, out, err = e.c.Exec(p, "main", []string{"/bin/sh", "-c", "cat /usr/share/volumeshare/shareddata.txt"})
	require.NoError(t, err)
	assert.Equal(t, int32(0), code)
	assert.Equal(t, "Hello from the busy-box sub-container", out)
	code, _, err = e.c.Exec(p, "main", []string{"test", "-f", "/usr/share/volumeshare/shareddata.txt"})
	require.NoError(t, err)
	assert.Equal(t, int32(0), code)

	_, _, err = e.c.Exec(p, "sub", []string{"true"})
	assert.ErrorContains(t, err, "container sub is not running in pod shared", "sub has exited")
	_, _, err = e.c.Exec(p, "nope", []string{"true"})
	assert.ErrorContains(t, err, "container nope is not valid for pod shared")
}

// TestEmptyDirKeptAcrossRestarts: the Job fixture failOnce, restarted in
// place (OnFailure), finds the marker its first run left in the emptyDir
// and succeeds: the conformance test "should run a job to completion when
// tasks sometimes fail and are locally restarted".
func TestEmptyDirKeptAcrossRestarts(t *testing.T) {
	e := lifeEnv(t)
	e.CreatePod("once", command(api.RestartPolicyOnFailure, "busybox", "/bin/sh", "-c", failOnce),
		withData(api.VolumeSource{EmptyDir: &api.EmptyDirVolumeSource{}}))
	e.settle()
	e.advance(time.Second)
	p := e.Pod("once")
	require.Equal(t, api.PodSucceeded, p.Status.Phase)
	cs := status0(p)
	assert.Equal(t, int32(1), cs.RestartCount)
	assert.Equal(t, int32(1), cs.LastTerminationState.Terminated.ExitCode)
	assert.Equal(t, int32(0), cs.State.Terminated.ExitCode)

	e.CreatePod("other", command(api.RestartPolicyNever, "busybox", "/bin/sh", "-c", failOnce),
		withData(api.VolumeSource{EmptyDir: &api.EmptyDirVolumeSource{}}))
	e.settle()
	e.advance(time.Second)
	assert.Equal(t, api.PodFailed, e.Pod("other").Status.Phase, "another pod's emptyDir starts empty")
}

// TestHostPathSharedOnANode: a file a pod writes into a hostPath is there
// for the pods that mount the directory on the same node, not on another:
// the Job fixture failOnce over a hostPath fails once per node.
func TestHostPathSharedOnANode(t *testing.T) {
	e := newEnv(t, Config{Recorders: func(string, string) *record.EventRecorder { return nil }})
	hostPath := withData(api.VolumeSource{HostPath: &api.HostPathVolumeSource{Path: "/tmp/job-e2e/abc", Type: ptr("DirectoryOrCreate")}})
	on := func(node string) func(*api.Pod) { return func(p *api.Pod) { p.Spec.NodeName = node } }
	never := command(api.RestartPolicyNever, "busybox", "/bin/sh", "-c", failOnce)
	e.CreatePod("first", never, hostPath, on("node-0"))
	e.settle()
	e.advance(time.Second)
	require.Equal(t, api.PodFailed, e.Pod("first").Status.Phase)

	e.CreatePod("second", never, hostPath, on("node-0"))
	e.CreatePod("elsewhere", never, hostPath, on("node-1"))
	e.settle()
	e.advance(time.Second)
	assert.Equal(t, api.PodSucceeded, e.Pod("second").Status.Phase, "the marker is on node-0")
	assert.Equal(t, api.PodFailed, e.Pod("elsewhere").Status.Phase, "node-1 has no marker")
}

// TestRestartCountInAnEmptyDir: the conformance test "Container Runtime
// blackbox test when starting a container that exits should run with the
// expected status" counts each container's runs in a file of a memory
// emptyDir, which persists across the container's restarts: under Always
// it runs on after two restarts, under OnFailure it succeeds after one,
// under Never it fails.
func TestRestartCountInAnEmptyDir(t *testing.T) {
	script, err := os.ReadFile("container/testdata/restart-count.sh") // the test's script
	require.NoError(t, err)
	e := lifeEnv(t)
	for _, tc := range []struct {
		name     string
		policy   api.RestartPolicy
		phase    api.PodPhase
		restarts int32
		running  bool
	}{
		{"terminate-cmd-rpa", api.RestartPolicyAlways, api.PodRunning, 2, true},
		{"terminate-cmd-rpof", api.RestartPolicyOnFailure, api.PodSucceeded, 1, false},
		{"terminate-cmd-rpn", api.RestartPolicyNever, api.PodFailed, 0, false},
	} {
		e.CreatePod(tc.name, command(tc.policy, "busybox", "sh", "-c", string(script)), func(p *api.Pod) {
			p.Spec.Volumes = []api.Volume{{Name: "restart-count", VolumeSource: api.VolumeSource{EmptyDir: &api.EmptyDirVolumeSource{Medium: "Memory"}}}}
			p.Spec.Containers[0].VolumeMounts = []api.VolumeMount{{Name: "restart-count", MountPath: "/restart-count"}}
		})
		e.settle()
		for range 6 {
			e.advance(10 * time.Second) // past the restart back-off
		}
		p := e.Pod(tc.name)
		assert.Equal(t, tc.phase, p.Status.Phase, tc.name)
		assert.Equal(t, tc.restarts, status0(p).RestartCount, tc.name)
		assert.Equal(t, tc.running, status0(p).State.Running != nil, tc.name)
		assert.Equal(t, tc.running, api.IsPodReady(p), tc.name)
	}
}
