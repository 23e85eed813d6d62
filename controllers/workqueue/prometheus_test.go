package workqueue_test

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/miniplane/miniplane/clock"
	"github.com/miniplane/miniplane/controllers/workqueue"
)

// TestWritePrometheus exports a queue that has done some work and checks
// client-go's metric names, the labels, seconds, and cumulative buckets.
func TestWritePrometheus(t *testing.T) {
	clk := clock.NewFake(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	q := workqueue.New(workqueue.Config[string]{Name: "replicationmanager", Clock: clk, Metrics: true})
	q.Add("default/web")
	clk.Step(2 * time.Second)
	item, ok, _ := q.TryGet()
	require.True(t, ok)
	clk.Step(30 * time.Millisecond)
	q.Done(item)
	q.Add("default/db")

	var b strings.Builder
	require.NoError(t, workqueue.WritePrometheus(&b, []workqueue.Labeled{{Labels: `instance="cm-1"`, Metrics: q.Metrics()}}))
	out := b.String()
	for _, want := range []string{
		"# TYPE workqueue_depth gauge\n",
		`workqueue_depth{name="replicationmanager",instance="cm-1"} 1` + "\n",
		`workqueue_adds_total{name="replicationmanager",instance="cm-1"} 2` + "\n",
		"# TYPE workqueue_queue_duration_seconds histogram\n",
		`workqueue_queue_duration_seconds_bucket{name="replicationmanager",instance="cm-1",le="1"} 0` + "\n",
		`workqueue_queue_duration_seconds_bucket{name="replicationmanager",instance="cm-1",le="10"} 1` + "\n",
		`workqueue_queue_duration_seconds_bucket{name="replicationmanager",instance="cm-1",le="+Inf"} 1` + "\n",
		`workqueue_queue_duration_seconds_sum{name="replicationmanager",instance="cm-1"} 2` + "\n",
		`workqueue_work_duration_seconds_sum{name="replicationmanager",instance="cm-1"} 0.03` + "\n",
		`workqueue_work_duration_seconds_count{name="replicationmanager",instance="cm-1"} 1` + "\n",
		`workqueue_longest_running_processor_seconds{name="replicationmanager",instance="cm-1"} 0` + "\n",
	} {
		assert.Contains(t, out, want)
	}
	assert.Equal(t, 1, strings.Count(out, "# HELP workqueue_depth "), "one HELP per family")
}
