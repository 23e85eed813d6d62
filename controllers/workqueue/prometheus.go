package workqueue

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"time"
)

// Labeled is a queue's metrics with the extra Prometheus labels to export
// them under, written as `key="value"` pairs joined by commas (for
// example `instance="cm-1"`); "" for none. The queue's name is always
// exported as the label name, as k8s.io/component-base does.
type Labeled struct {
	Labels  string
	Metrics MetricsSnapshot
}

// WritePrometheus writes the queues' metrics in the Prometheus text format
// under client-go's metric names (workqueue_depth, workqueue_adds_total,
// ...), durations in seconds, each family once with its HELP and TYPE.
func WritePrometheus(w io.Writer, queues []Labeled) error {
	bw := bufio.NewWriter(w)
	labels := func(q Labeled) string {
		l := `name="` + q.Metrics.Name + `"`
		if q.Labels != "" {
			l += "," + q.Labels
		}
		return l
	}
	scalar := func(name, typ, help string, value func(MetricsSnapshot) string) {
		fmt.Fprintf(bw, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, typ)
		for _, q := range queues {
			fmt.Fprintf(bw, "%s{%s} %s\n", name, labels(q), value(q.Metrics))
		}
	}
	histogram := func(name, help string, h func(MetricsSnapshot) Histogram) {
		fmt.Fprintf(bw, "# HELP %s %s\n# TYPE %s histogram\n", name, help, name)
		bounds := BucketBounds()
		for _, q := range queues {
			hist, l := h(q.Metrics), labels(q)
			for i, b := range bounds {
				fmt.Fprintf(bw, "%s_bucket{%s,le=\"%s\"} %d\n", name, l, seconds(b), hist.Buckets[i])
			}
			fmt.Fprintf(bw, "%s_bucket{%s,le=\"+Inf\"} %d\n", name, l, hist.Count)
			fmt.Fprintf(bw, "%s_sum{%s} %s\n%s_count{%s} %d\n", name, l, seconds(hist.Sum), name, l, hist.Count)
		}
	}
	scalar("workqueue_depth", "gauge", "Current depth of the workqueue.",
		func(m MetricsSnapshot) string { return strconv.Itoa(m.Depth) })
	scalar("workqueue_adds_total", "counter", "Total number of adds handled by the workqueue.",
		func(m MetricsSnapshot) string { return strconv.FormatUint(m.Adds, 10) })
	scalar("workqueue_retries_total", "counter", "Total number of retries handled by the workqueue.",
		func(m MetricsSnapshot) string { return strconv.FormatUint(m.Retries, 10) })
	histogram("workqueue_queue_duration_seconds", "How long in seconds an item stays in the workqueue before being requested.",
		func(m MetricsSnapshot) Histogram { return m.QueueDuration })
	histogram("workqueue_work_duration_seconds", "How long in seconds processing an item from the workqueue takes.",
		func(m MetricsSnapshot) Histogram { return m.WorkDuration })
	scalar("workqueue_unfinished_work_seconds", "gauge", "How many seconds of work are in progress and not yet observed by work_duration.",
		func(m MetricsSnapshot) string { return seconds(m.UnfinishedWork) })
	scalar("workqueue_longest_running_processor_seconds", "gauge", "How many seconds the longest running processor has been running.",
		func(m MetricsSnapshot) string { return seconds(m.LongestRunningProcessor) })
	return bw.Flush()
}

// seconds formats d in seconds, as Prometheus wants durations.
func seconds(d time.Duration) string {
	return strconv.FormatFloat(d.Seconds(), 'g', -1, 64)
}
