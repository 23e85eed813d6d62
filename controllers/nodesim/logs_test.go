package nodesim

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/api/apierrors"
	"github.com/miniplane/miniplane/controllers/nodelifecycle"
)

// logTexts returns the lines' texts without the tag, and checks that their
// sequence numbers count up from first.
func logTexts(t *testing.T, l ContainerLog, first int64) []string {
	t.Helper()
	var out []string
	for i, line := range l.Lines {
		assert.Equal(t, first+int64(i), line.Seq, "line %d", i)
		out = append(out, strings.TrimPrefix(line.Text, "[miniplane simulated kubelet] "))
	}
	return out
}

// TestContainerLogFollowsThePodsLife walks a pod through start, readiness,
// a crash, a restart and deletion, and checks what its log says at each
// step, when each line was written, and what the kubelet refuses.
func TestContainerLogFollowsThePodsLife(t *testing.T) {
	e := newEnv(t, Config{Nodes: 1, StartDelay: time.Second, ReadyDelay: 2 * time.Second})
	e.CreatePod("web")
	e.settle()

	_, err := e.c.ContainerLog(e.Pod("web"), "app", false, 0)
	require.Error(t, err, "accepted, not started")
	assert.True(t, apierrors.IsBadRequest(err))
	assert.Equal(t, `container "app" in pod "web" is waiting to start: ContainerCreating`, err.Error())

	e.advance(time.Second) // started; no readiness probe, so ready at once
	startedAt := e.clk.Now()
	l, err := e.c.ContainerLog(e.Pod("web"), "app", false, 0)
	require.NoError(t, err)
	assert.False(t, l.Ended)
	require.NotNil(t, l.Changed)
	assert.Equal(t, []string{
		"container app started from image nginx:1.27 on node-0, pod IP 10.244.0.2; no process runs, this log is all it writes",
		"container app is ready: it has no readiness probe, so it is ready once running",
	}, logTexts(t, l, 1))
	assert.Equal(t, startedAt.UTC(), l.Lines[0].Time, "the injected clock's time, to the nanosecond")

	_, err = e.c.ContainerLog(e.Pod("web"), "app", true, 0)
	require.Error(t, err)
	assert.Equal(t, `previous terminated container "app" in pod "web" not found`, err.Error())
	_, err = e.c.ContainerLog(e.Pod("web"), "nope", false, 0)
	assert.Equal(t, `container "nope" in pod "web" is not available`, err.Error())

	changed := l.Changed
	require.NoError(t, e.c.CrashPod(e.ctx, "default", "web"))
	e.advance(time.Second / 2)
	select {
	case <-changed:
	default:
		t.Fatal("a follower waiting on the run was not woken by the crash")
	}
	l, err = e.c.ContainerLog(e.Pod("web"), "app", false, 2)
	require.NoError(t, err)
	assert.True(t, l.Ended, "the crashed run is over")
	assert.Nil(t, l.Changed)
	assert.Equal(t, []string{"container app exited with code 1 (a crash was injected)"}, logTexts(t, l, 3), "only the lines after seq 2")

	e.advance(time.Second) // restarted
	cur, err := e.c.ContainerLog(e.Pod("web"), "app", false, 0)
	require.NoError(t, err)
	assert.Equal(t, []string{
		"container app restarted (restart 1) from image nginx:1.27 on node-0, pod IP 10.244.0.2; no process runs, this log is all it writes",
		"container app is ready: it has no readiness probe, so it is ready once running",
	}, logTexts(t, cur, 1))
	prev, err := e.c.ContainerLog(e.Pod("web"), "app", true, 0)
	require.NoError(t, err)
	assert.True(t, prev.Ended)
	assert.Len(t, prev.Lines, 3, "the run before: started, ready, exited")

	pod := e.Pod("web")
	e.deletePod("web")
	e.advance(time.Second)
	require.True(t, e.PodGone("web"))
	l, err = e.c.ContainerLog(pod, "app", false, 2)
	require.NoError(t, err)
	assert.True(t, l.Ended)
	assert.Empty(t, l.Lines, "the pod is gone: its logs are forgotten")
	e.c.mu.Lock()
	assert.Empty(t, e.c.state, "and asking for them again brings none back")
	e.c.mu.Unlock()
	select {
	case <-cur.Changed:
	default:
		t.Fatal("a follower of the last run was not told it ended")
	}
}

// TestContainerLogKeepsTwoRunsAndBoundedLines: a container that crashes
// again and again keeps only its current and previous runs, and a run
// keeps at most MaxLogLines lines, its sequence numbers counting on.
func TestContainerLogKeepsTwoRunsAndBoundedLines(t *testing.T) {
	var l podLogs
	for i := range 5 {
		id := "containerd://" + string(rune('a'+i))
		l.add("app", id, int32(i), epoch, false, logStarted)
	}
	ids := func() (out []string) {
		for _, r := range l.runs {
			out = append(out, r.container+" "+r.id)
		}
		return out
	}
	assert.Equal(t, []string{"app containerd://d", "app containerd://e"}, ids())
	l.add("sidecar", "containerd://s", 0, epoch, false, logStarted)
	assert.Equal(t, []string{"app containerd://d", "app containerd://e", "sidecar containerd://s"}, ids(), "two runs per container")

	for range MaxLogLines + 10 {
		l.add("app", "containerd://e", 4, epoch, false, logReadyProbe)
	}
	r, ok := l.find("containerd://e")
	require.True(t, ok)
	assert.Len(t, r.entries, MaxLogLines)
	assert.Equal(t, int64(12), r.first, "1 start line and 1010 ready lines, the 11 oldest dropped")

	_, ok = l.find("containerd://a")
	assert.False(t, ok, "the first run is forgotten")

	l.forget()
	assert.True(t, l.empty())
	assert.Equal(t, podLogs{}, l, "forgotten, the logs are the zero value again")
}

// TestContainerLogEndsWhenTheNodeIsLost: the kubelet of a lost node writes
// nothing more, so a follower is let go.
func TestContainerLogEndsWhenTheNodeIsLost(t *testing.T) {
	e := newEnv(t, Config{Nodes: 1, StartDelay: time.Second})
	e.runReady("web")
	l, err := e.c.ContainerLog(e.Pod("web"), "app", false, 0)
	require.NoError(t, err)
	require.False(t, l.Ended)
	require.NoError(t, e.c.NodeDown(e.ctx, "node-0"))
	e.settle() // the node lifecycle controller sees it go down now
	e.advance(nodelifecycle.DefaultEvictionTimeout)
	require.Equal(t, api.PodFailed, e.Pod("web").Status.Phase)
	select {
	case <-l.Changed:
	default:
		t.Fatal("the follower was not told the run ended")
	}
	l, err = e.c.ContainerLog(e.Pod("web"), "app", false, 2)
	require.NoError(t, err)
	assert.True(t, l.Ended)
	assert.Empty(t, l.Lines)
}
