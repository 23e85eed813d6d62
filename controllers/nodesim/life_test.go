package nodesim

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/client"
	"github.com/miniplane/miniplane/client/record"
)

// lifeEnv is an env whose components each have their own recorder, as in
// the assembled plane (newEnv makes them).
func lifeEnv(t *testing.T) *env {
	return newEnv(t, Config{Recorders: func(string, string) *record.EventRecorder { return nil }})
}

func command(policy api.RestartPolicy, image string, argv ...string) func(*api.Pod) {
	return func(p *api.Pod) {
		p.Spec.RestartPolicy = policy
		p.Spec.Containers[0].Image = image
		p.Spec.Containers[0].Command = argv
	}
}

func (e *env) logText(name string, previous bool) []string {
	e.t.Helper()
	l, err := e.c.ContainerLog(e.Pod(name), "app", previous, 0)
	require.NoError(e.t, err)
	var out []string
	for _, line := range l.Lines {
		out = append(out, line.Text)
	}
	return out
}

// events returns the pod's events as "source reason: message".
func (e *env) events(name string) []string {
	e.t.Helper()
	list, err := e.srv.List(e.ctx, client.Events, "default", client.ListOptions{})
	require.NoError(e.t, err)
	var out []string
	for _, o := range list.Items {
		ev := o.(*api.Event)
		if ev.InvolvedObject.Name == name {
			out = append(out, ev.Source.Component+"/"+ev.Source.Host+" "+ev.Reason+": "+ev.Message)
		}
	}
	return out
}

func status0(p *api.Pod) api.ContainerStatus { return p.Status.ContainerStatuses[0] }

func TestEchoNeverSucceeds(t *testing.T) {
	e := lifeEnv(t)
	e.CreatePod("hello", command(api.RestartPolicyNever, "busybox", "echo", "hello", "world"))
	e.settle()
	assert.Equal(t, api.PodPending, e.Pod("hello").Status.Phase)
	e.advance(time.Second) // pulled, started, and done
	p := e.Pod("hello")
	require.Equal(t, api.PodSucceeded, p.Status.Phase)
	term := status0(p).State.Terminated
	require.NotNil(t, term)
	assert.Equal(t, "Completed", term.Reason)
	assert.Equal(t, int32(0), term.ExitCode)
	assert.Zero(t, status0(p).RestartCount)
	ready, _ := conditionOf(p, api.PodReady)
	assert.Equal(t, api.ConditionFalse, ready.Status)
	assert.Equal(t, "PodCompleted", ready.Reason)
	assert.Equal(t, []string{"hello world"}, e.logText("hello", false))
	evs := e.events("hello")
	assert.Contains(t, evs, "default-scheduler/ Scheduled: Successfully assigned default/hello to node-0")
	assert.Contains(t, evs, `kubelet/node-0 Pulling: Pulling image "busybox"`)
	assert.Contains(t, evs, "kubelet/node-0 Created: Created container app")
	assert.Contains(t, evs, "kubelet/node-0 Started: Started container app")
	e.advance(time.Hour)
	assert.Equal(t, api.PodSucceeded, e.Pod("hello").Status.Phase, "a finished pod stays so")
}

func TestExitThreeFails(t *testing.T) {
	e := lifeEnv(t)
	e.CreatePod("bad", command(api.RestartPolicyNever, "busybox", "sh", "-c", "echo failing; sleep 5; exit 3"))
	e.settle()
	e.advance(time.Second)
	p := e.Pod("bad")
	assert.Equal(t, api.PodRunning, p.Status.Phase)
	assert.True(t, api.IsPodReady(p), "ready while it runs")
	assert.Equal(t, []string{"failing"}, e.logText("bad", false))
	e.advance(5 * time.Second)
	p = e.Pod("bad")
	require.Equal(t, api.PodFailed, p.Status.Phase)
	term := status0(p).State.Terminated
	require.NotNil(t, term)
	assert.Equal(t, int32(3), term.ExitCode)
	assert.Equal(t, "Error", term.Reason)
}

// TestCrashLoopBacksOff: a container that exits at once under Always is
// restarted at once, then after 10s, 20s, 40s, showing CrashLoopBackOff
// in between, and its previous run's log stays readable.
func TestCrashLoopBacksOff(t *testing.T) {
	e := lifeEnv(t)
	e.CreatePod("loop", command(api.RestartPolicyAlways, "busybox", "sh", "-c", "echo oops; exit 1"))
	e.settle()
	e.advance(time.Second) // started, exited, restarted at once, exited again
	p := e.Pod("loop")
	cs := status0(p)
	assert.Equal(t, api.PodRunning, p.Status.Phase)
	assert.Equal(t, int32(1), cs.RestartCount)
	require.NotNil(t, cs.State.Waiting)
	assert.Equal(t, "CrashLoopBackOff", cs.State.Waiting.Reason)
	assert.Equal(t, "back-off 10s restarting failed container=app pod=loop_default("+string(p.Metadata.UID)+")", cs.State.Waiting.Message)
	require.NotNil(t, cs.LastTerminationState.Terminated)
	assert.Equal(t, int32(1), cs.LastTerminationState.Terminated.ExitCode)
	assert.False(t, api.IsPodReady(p))
	assert.Equal(t, []string{"oops"}, e.logText("loop", false), "the last run's log")
	assert.Equal(t, []string{"oops"}, e.logText("loop", true), "the previous run's log")

	for _, step := range []struct {
		wait     time.Duration
		restarts int32
		backoff  string
	}{{9 * time.Second, 1, "10s"}, {time.Second, 2, "20s"}, {19 * time.Second, 2, "20s"}, {time.Second, 3, "40s"}, {40 * time.Second, 4, "1m20s"}} {
		e.advance(step.wait)
		cs = status0(e.Pod("loop"))
		assert.Equal(t, step.restarts, cs.RestartCount, "after %v", step.wait)
		require.NotNil(t, cs.State.Waiting)
		assert.Contains(t, cs.State.Waiting.Message, "back-off "+step.backoff+" ")
	}
	assert.Contains(t, e.events("loop"), "kubelet/node-0 BackOff: Back-off restarting failed container app in pod loop_default("+string(p.Metadata.UID)+")")
}

func TestMissingImageBacksOff(t *testing.T) {
	e := lifeEnv(t)
	e.CreatePod("ghost", command(api.RestartPolicyAlways, "nginx:does-not-exist"))
	e.settle()
	e.advance(time.Second) // the pull fails
	p := e.Pod("ghost")
	assert.Equal(t, api.PodPending, p.Status.Phase)
	w := status0(p).State.Waiting
	require.NotNil(t, w)
	assert.Equal(t, "ErrImagePull", w.Reason)
	assert.Contains(t, w.Message, "not found")
	assert.NotEmpty(t, p.Status.PodIP, "the sandbox has its IP")
	e.advance(time.Second)
	w = status0(e.Pod("ghost")).State.Waiting
	require.NotNil(t, w)
	assert.Equal(t, "ImagePullBackOff", w.Reason)
	assert.Equal(t, `Back-off pulling image "nginx:does-not-exist"`, w.Message)
	e.advance(9 * time.Second) // 10s after the failure: pulls again, for 1s
	assert.Equal(t, "ImagePullBackOff", status0(e.Pod("ghost")).State.Waiting.Reason)
	e.advance(time.Second)
	assert.Equal(t, "ErrImagePull", status0(e.Pod("ghost")).State.Waiting.Reason)
	evs := e.events("ghost")
	assert.Contains(t, evs, "kubelet/node-0 Failed: Error: ErrImagePull")
	assert.Contains(t, evs, `kubelet/node-0 BackOff: Back-off pulling image "nginx:does-not-exist"`)
	assert.Contains(t, evs, "kubelet/node-0 Failed: Error: ImagePullBackOff")

	_, err := e.c.ContainerLog(e.Pod("ghost"), "app", false, 0)
	assert.ErrorContains(t, err, "is waiting to start: ErrImagePull")
}

func TestNeverPullPolicyWithoutTheImage(t *testing.T) {
	e := lifeEnv(t)
	e.CreatePod("local", command(api.RestartPolicyAlways, "busybx"), func(p *api.Pod) { p.Spec.Containers[0].ImagePullPolicy = api.PullNever })
	e.settle()
	w := status0(e.Pod("local")).State.Waiting
	require.NotNil(t, w)
	assert.Equal(t, "ErrImageNeverPull", w.Reason)
	assert.Equal(t, `Container image "busybx" is not present with pull policy of Never`, w.Message)
}

func TestUnknownCommandRunsUntilStopped(t *testing.T) {
	e := lifeEnv(t)
	e.CreatePod("srv", command(api.RestartPolicyAlways, "nginx", "nginx", "-g", "daemon off;"))
	e.settle()
	e.advance(time.Second)
	p := e.Pod("srv")
	assert.True(t, api.IsPodReady(p))
	logs := e.logText("srv", false)
	require.Len(t, logs, 1)
	assert.Contains(t, logs[0], "is not a command the simulator runs")
	e.deletePod("srv")
	assert.Contains(t, e.events("srv"), "kubelet/node-0 Killing: Stopping container app")
	e.advance(time.Second)
	assert.True(t, e.PodGone("srv"))
}

func TestCrashPodOnLifePath(t *testing.T) {
	e := lifeEnv(t)
	e.CreatePod("sleeper", command(api.RestartPolicyOnFailure, "busybox", "sleep", "3600"))
	e.settle()
	e.advance(time.Second)
	require.NoError(t, e.c.CrashPod(e.ctx, "default", "sleeper"))
	e.settle()
	cs := status0(e.Pod("sleeper"))
	assert.Equal(t, int32(1), cs.RestartCount, "restarted at once, the first time")
	require.NotNil(t, cs.State.Running)
	assert.Equal(t, "Error", cs.LastTerminationState.Terminated.Reason)
}

// TestPlainPodsKeepTheFastPath: a pod with no command and an image that
// exists is not on the life path.
func TestPlainPodsKeepTheFastPath(t *testing.T) {
	e := lifeEnv(t)
	e.runReady("web")
	e.c.mu.Lock()
	defer e.c.mu.Unlock()
	assert.Equal(t, kindPlain, e.c.state["default/web"].kind)
	assert.Empty(t, e.c.lives)
}

// TestActiveDeadlineFailsThePod: a pod given spec.activeDeadlineSeconds
// after it started (the conformance test "should allow
// activeDeadlineSeconds to be updated") is failed with DeadlineExceeded
// once it has been active that long, on either path.
func TestActiveDeadlineFailsThePod(t *testing.T) {
	for _, tc := range []struct {
		name   string
		mutate func(*api.Pod)
	}{
		{"fast path", func(*api.Pod) {}},
		{"life path", command(api.RestartPolicyAlways, "busybox", "sleep", "3600")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := lifeEnv(t)
			e.CreatePod("p", tc.mutate)
			e.settle()
			e.advance(2 * time.Second)
			p := e.Pod("p").DeepCopy()
			require.Equal(t, api.PodRunning, p.Status.Phase)
			deadline := int64(5)
			p.Spec.ActiveDeadlineSeconds = &deadline
			_, err := client.For[*api.Pod](e.srv).Update(e.ctx, p)
			require.NoError(t, err)
			e.settle()
			e.advance(2 * time.Second)
			require.Equal(t, api.PodRunning, e.Pod("p").Status.Phase, "not before its deadline")
			e.advance(2 * time.Second)
			p = e.Pod("p")
			assert.Equal(t, api.PodFailed, p.Status.Phase)
			assert.Equal(t, "DeadlineExceeded", p.Status.Reason)
			assert.Equal(t, "Pod was active on the node longer than the specified deadline", p.Status.Message)
			require.NotNil(t, status0(p).State.Terminated)
			assert.Equal(t, int32(137), status0(p).State.Terminated.ExitCode)
			assert.False(t, api.IsPodReady(p))
			assert.Contains(t, e.events("p"), "kubelet/node-0 DeadlineExceeded: Pod was active on the node longer than the specified deadline")
		})
	}
}

// TestInitContainers runs pods shaped as Kubernetes' InitContainer
// conformance tests (test/e2e/common/node/init_container.go): the init
// containers run one after the other before the app containers, which
// wait PodInitializing meanwhile; one that fails is restarted unless the
// pod's restartPolicy is Never, which fails the pod.
func TestInitContainers(t *testing.T) {
	inits := func(policy api.RestartPolicy, init1, init2 string, app ...string) func(*api.Pod) {
		return func(p *api.Pod) {
			p.Spec.RestartPolicy = policy
			p.Spec.InitContainers = []api.Container{
				{Name: "init1", Image: "busybox", Command: []string{init1}},
				{Name: "init2", Image: "busybox", Command: []string{init2}},
			}
			p.Spec.Containers[0].Image, p.Spec.Containers[0].Command = "busybox", app
		}
	}
	for _, tc := range []struct {
		name          string
		pod           func(*api.Pod)
		after         time.Duration
		wantPhase     api.PodPhase
		wantInit      api.ConditionStatus
		wantMessage   string
		wantInitCodes []int32 // -1: not terminated
		wantRestarts  int32   // of init1
		wantAppWaits  bool
	}{
		{"RestartNever: all succeed", inits(api.RestartPolicyNever, "/bin/true", "/bin/true", "/bin/true"), 3 * time.Second,
			api.PodSucceeded, api.ConditionTrue, "", []int32{0, 0}, 0, false},
		{"RestartAlways: the app runs", inits(api.RestartPolicyAlways, "/bin/true", "/bin/true"), 3 * time.Second,
			api.PodRunning, api.ConditionTrue, "", []int32{0, 0}, 0, false},
		{"RestartAlways: a failing init container is restarted", inits(api.RestartPolicyAlways, "/bin/false", "/bin/true"), 60 * time.Second,
			api.PodPending, api.ConditionFalse, "containers with incomplete status: [init1 init2]", []int32{-1, -1}, 3, true},
		{"RestartNever: a failing init container fails the pod", inits(api.RestartPolicyNever, "/bin/true", "/bin/false", "/bin/true"), 3 * time.Second,
			api.PodFailed, api.ConditionFalse, "containers with incomplete status: [init2]", []int32{0, 1}, 0, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := lifeEnv(t)
			e.CreatePod("p", tc.pod)
			e.settle()
			accepted := e.Pod("p")
			require.Len(t, accepted.Status.InitContainerStatuses, 2)
			for _, cs := range append(accepted.Status.InitContainerStatuses, accepted.Status.ContainerStatuses...) {
				require.NotNil(t, cs.State.Waiting, cs.Name)
				assert.Equal(t, "PodInitializing", cs.State.Waiting.Reason, "%s, as the kubelet accepts the pod", cs.Name)
			}
			for d := time.Duration(0); d < tc.after; d += time.Second {
				e.advance(time.Second)
			}
			p := e.Pod("p")
			assert.Equal(t, tc.wantPhase, p.Status.Phase)
			c, ok := conditionOf(p, api.PodInitialized)
			require.True(t, ok)
			assert.Equal(t, tc.wantInit, c.Status)
			assert.Equal(t, tc.wantMessage, c.Message)
			require.Len(t, p.Status.InitContainerStatuses, 2)
			for i, want := range tc.wantInitCodes {
				cs := p.Status.InitContainerStatuses[i]
				if want < 0 {
					assert.Nil(t, cs.State.Terminated, cs.Name)
					continue
				}
				require.NotNil(t, cs.State.Terminated, cs.Name)
				assert.Equal(t, want, cs.State.Terminated.ExitCode, cs.Name)
				assert.Equal(t, want == 0, cs.Ready, cs.Name)
			}
			assert.Equal(t, tc.wantRestarts, p.Status.InitContainerStatuses[0].RestartCount)
			if tc.wantAppWaits {
				require.NotNil(t, status0(p).State.Waiting)
				assert.Equal(t, "PodInitializing", status0(p).State.Waiting.Reason)
				if tc.wantInitCodes[1] < 0 {
					require.NotNil(t, p.Status.InitContainerStatuses[1].State.Waiting)
					assert.Equal(t, "PodInitializing", p.Status.InitContainerStatuses[1].State.Waiting.Reason)
				}
			}
		})
	}
}

// TestTerminationMessage runs the containers of Kubernetes' conformance
// tests "should report termination message ..." (test/e2e/common/node/
// runtime.go) and checks the message of their terminated state.
func TestTerminationMessage(t *testing.T) {
	for _, tc := range []struct {
		name      string
		script    string
		path      string
		policy    api.TerminationMessagePolicy
		wantPhase api.PodPhase
		want      string
	}{
		{"from a file at a non-default path", "/bin/echo -n DONE > /dev/termination-custom-log", "/dev/termination-custom-log", "",
			api.PodSucceeded, "DONE"},
		{"from the log when the file is empty and the container failed", "/bin/echo -n DONE; /bin/false", "/dev/termination-log",
			api.TerminationMessageFallbackToLogsOnError, api.PodFailed, "DONE"},
		{"empty when it succeeded", "/bin/echo -n DONE; /bin/true", "/dev/termination-log",
			api.TerminationMessageFallbackToLogsOnError, api.PodSucceeded, ""},
		{"from the file when it succeeded", "/bin/echo -n OK > /dev/termination-log; /bin/echo DONE; /bin/true", "/dev/termination-log",
			api.TerminationMessageFallbackToLogsOnError, api.PodSucceeded, "OK"},
		{"not from the log under File", "/bin/echo -n DONE; /bin/false", "", "", api.PodFailed, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := lifeEnv(t)
			e.CreatePod("p", command(api.RestartPolicyNever, "busybox", "/bin/sh", "-c", tc.script), func(p *api.Pod) {
				p.Spec.Containers[0].TerminationMessagePath = tc.path
				p.Spec.Containers[0].TerminationMessagePolicy = tc.policy
			})
			e.settle()
			e.advance(time.Second)
			p := e.Pod("p")
			require.Equal(t, tc.wantPhase, p.Status.Phase)
			require.NotNil(t, status0(p).State.Terminated)
			assert.Equal(t, tc.want, status0(p).State.Terminated.Message)
		})
	}
}

// TestReadsConfig: what holds a pod back until its ConfigMaps and Secrets
// exist sends it to the life path; the service account token volume that
// admission adds to every pod does not.
func TestReadsConfig(t *testing.T) {
	projected := func(name string) api.Volume {
		return api.Volume{Name: name, VolumeSource: api.VolumeSource{Projected: &api.ProjectedVolumeSource{
			Sources: []api.VolumeProjection{{ConfigMap: &api.ConfigMapProjection{LocalObjectReference: api.LocalObjectReference{Name: "kube-root-ca.crt"}}}},
		}}}
	}
	tests := []struct {
		name    string
		volumes []api.Volume
		want    bool
	}{
		{name: "no volumes", want: false},
		{name: "an emptyDir", volumes: []api.Volume{{Name: "scratch", VolumeSource: api.VolumeSource{EmptyDir: &api.EmptyDirVolumeSource{}}}}, want: false},
		{name: "admission's token volume", volumes: []api.Volume{projected("kube-api-access-x7k2p")}, want: false},
		{name: "a projected volume of the pod's own", volumes: []api.Volume{projected("config")}, want: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pod := &api.Pod{Spec: api.PodSpec{Volumes: tt.volumes, Containers: []api.Container{{Name: "app", Image: "nginx"}}}}
			assert.Equal(t, tt.want, readsConfig(pod))
		})
	}
}
