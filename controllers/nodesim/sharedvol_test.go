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
// (PodExec), as the conformance test "pod should support shared volumes
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
	res, err := e.c.PodExec(p, "main", []string{"/bin/sh", "-c", "cat /usr/share/volumeshare/shareddata.txt"})
	require.NoError(t, err)
	assert.Equal(t, int32(1), res.ExitCode, "not written yet")
	assert.Equal(t, "cat: can't open '/usr/share/volumeshare/shareddata.txt': No such file or directory\n", res.Stdout+res.Stderr)

	e.advance(5 * time.Second)
	p = e.Pod("shared")
	res, err = e.c.PodExec(p, "main", []string{"/bin/sh", "-c", "cat /usr/share/volumeshare/shareddata.txt"})
	require.NoError(t, err)
	assert.Equal(t, int32(0), res.ExitCode)
	assert.Equal(t, "Hello from the busy-box sub-container\n", res.Stdout)
	res, err = e.c.PodExec(p, "main", []string{"test", "-f", "/usr/share/volumeshare/shareddata.txt"})
	require.NoError(t, err)
	assert.Equal(t, int32(0), res.ExitCode)

	_, err = e.c.PodExec(p, "sub", []string{"true"})
	assert.ErrorContains(t, err, `container "sub" in pod "shared" is not running`, "sub has exited")
	_, err = e.c.PodExec(p, "nope", []string{"true"})
	assert.ErrorContains(t, err, `container "nope" in pod "shared" is not running`)
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

// TestHostPathOfTheNodesHostsFile: a hostPath volume of /etc/hosts
// (FileOrCreate) shows the node's own hosts file, as the conformance test
// KubeletManagedEtcHosts mounts it beside the kubelet-managed one; a
// FileOrCreate path the node lacks is made an empty file.
func TestHostPathOfTheNodesHostsFile(t *testing.T) {
	e := lifeEnv(t)
	e.CreatePod("hosts", command(api.RestartPolicyNever, "busybox", "sleep", "1000"), func(p *api.Pod) {
		p.Spec.NodeName = "node-0"
		p.Spec.Volumes = []api.Volume{
			{Name: "host-etc-hosts", VolumeSource: api.VolumeSource{HostPath: &api.HostPathVolumeSource{Path: "/etc/hosts", Type: ptr("FileOrCreate")}}},
			{Name: "made", VolumeSource: api.VolumeSource{HostPath: &api.HostPathVolumeSource{Path: "/var/made.log", Type: ptr("FileOrCreate")}}},
		}
		p.Spec.Containers[0].VolumeMounts = []api.VolumeMount{{Name: "host-etc-hosts", MountPath: "/etc/hosts-original"}, {Name: "made", MountPath: "/log"}}
	})
	e.settle()
	e.advance(time.Second)
	p := e.Pod("hosts")
	require.Equal(t, api.PodRunning, p.Status.Phase)
	res, err := e.c.PodExec(p, p.Spec.Containers[0].Name, []string{"cat", "/etc/hosts-original"})
	require.NoError(t, err)
	assert.Equal(t, int32(0), res.ExitCode, res.Stderr)
	assert.Contains(t, res.Stdout, "127.0.0.1\tlocalhost\n")
	assert.Contains(t, res.Stdout, p.Status.HostIP+"\tnode-0\n", "the node's name at its IP")
	assert.NotContains(t, res.Stdout, "Kubernetes-managed", "the node's file, not the pod's")
	res, err = e.c.PodExec(p, p.Spec.Containers[0].Name, []string{"test", "-f", "/log"})
	require.NoError(t, err)
	assert.Equal(t, int32(0), res.ExitCode, "FileOrCreate makes a file")
}

// TestExecWritesAreKeptInSharedVolumes: a file an exec'd command writes
// into an emptyDir is there for the next exec at once, through another
// mount of the volume (a subPathExpr one, as the conformance test
// "Variable Expansion should succeed in writing subpaths in container"
// reads it), and after the pod's next sync for its other containers; a
// write outside the volumes stays in the container's own files.
func TestExecWritesAreKeptInSharedVolumes(t *testing.T) {
	e := lifeEnv(t)
	e.CreatePod("subpaths", func(p *api.Pod) {
		p.Metadata.Annotations = map[string]string{"mysubpath": "mypath"}
		p.Spec.Volumes = []api.Volume{{Name: "workdir1", VolumeSource: api.VolumeSource{EmptyDir: &api.EmptyDirVolumeSource{}}}}
		p.Spec.Containers = []api.Container{
			{Name: "main", Image: "busybox", Command: []string{"sh", "-c", "tail -f /dev/null"},
				Env: []api.EnvVar{{Name: "POD_NAME", Value: "foo"}, {Name: "ANNOTATION", ValueFrom: &api.EnvVarSource{FieldRef: &api.ObjectFieldSelector{APIVersion: "v1", FieldPath: "metadata.annotations['mysubpath']"}}}},
				VolumeMounts: []api.VolumeMount{
					{Name: "workdir1", MountPath: "/subpath_mount", SubPathExpr: "$(ANNOTATION)/$(POD_NAME)"},
					{Name: "workdir1", MountPath: "/volume_mount"},
				}},
			{Name: "other", Image: "busybox", Command: []string{"sleep", "100000"},
				VolumeMounts: []api.VolumeMount{{Name: "workdir1", MountPath: "/w"}}},
		}
	})
	e.settle()
	e.advance(time.Second)
	p := e.Pod("subpaths")
	require.Equal(t, api.PodRunning, p.Status.Phase)
	exec := func(ct string, argv ...string) int32 {
		res, err := e.c.PodExec(p, ct, argv)
		require.NoError(t, err)
		return res.ExitCode
	}
	require.Equal(t, int32(0), exec("main", "sh", "-c", "touch /volume_mount/mypath/foo/test.log; touch /root-file"))
	assert.Equal(t, int32(0), exec("main", "sh", "-c", "test -f /subpath_mount/test.log"), "the next exec sees it through the subPathExpr mount")
	assert.Equal(t, int32(0), exec("main", "test", "-f", "/root-file"), "a write outside the volumes stays in the container's own files")

	e.settle()
	p = e.Pod("subpaths")
	assert.Equal(t, int32(0), exec("other", "test", "-f", "/w/mypath/foo/test.log"), "the other container, after the sync")
	assert.Equal(t, int32(0), exec("main", "test", "-f", "/subpath_mount/test.log"), "still there once the sync kept it")
	assert.Equal(t, int32(0), exec("main", "test", "-f", "/root-file"), "its own file, still there once the sync kept it")
	assert.Equal(t, int32(1), exec("other", "test", "-f", "/root-file"), "the other container's files are its own")
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
