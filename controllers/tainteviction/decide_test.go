package tainteviction

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/miniplane/miniplane/api"
)

var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func seconds(s int64) *int64 { return &s }

func noExecute(key string) api.Taint {
	return api.Taint{Key: key, Value: "v", Effect: api.TaintEffectNoExecute}
}

func tolerate(key string, secs *int64) api.Toleration {
	return api.Toleration{Key: key, Operator: api.TolerationOpEqual, Value: "v", Effect: api.TaintEffectNoExecute, TolerationSeconds: secs}
}

func podOn(node string, tolerations ...api.Toleration) *api.Pod {
	return &api.Pod{Metadata: api.ObjectMeta{Namespace: "default", Name: "p"},
		Spec: api.PodSpec{NodeName: node, Tolerations: tolerations}}
}

func nodeWith(taints ...api.Taint) *api.Node {
	return &api.Node{Metadata: api.ObjectMeta{Name: "n1"}, Spec: api.NodeSpec{Taints: taints}}
}

// TestDecide ports the scenarios of Kubernetes' TestCreatePod, TestUpdatePod,
// TestUpdateNode and TestUpdateNodeWithMultipleTaints that decide one pod.
func TestDecide(t *testing.T) {
	soon := &pending{since: t0.Add(-5 * time.Second), at: t0.Add(5 * time.Second)}
	due := &pending{since: t0.Add(-10 * time.Second), at: t0}
	deleting := podOn("n1")
	deleting.Metadata.DeletionTimestamp = &api.Time{Time: t0}
	tests := []struct {
		name    string
		pod     *api.Pod
		node    *api.Node
		pending *pending
		want    action
		wantAt  time.Time
	}{
		{name: "not scheduled", pod: podOn(""), node: nil, want: keep},
		{name: "no taints", pod: podOn("n1"), node: nodeWith(), want: keep},
		{name: "NoSchedule taint only", pod: podOn("n1"),
			node: nodeWith(api.Taint{Key: "k", Effect: api.TaintEffectNoSchedule}), want: keep},
		{name: "untolerated taint: now", pod: podOn("n1"), node: nodeWith(noExecute("k")), want: evict},
		{name: "tolerated forever", pod: podOn("n1", tolerate("k", nil)), node: nodeWith(noExecute("k")), want: keep},
		{name: "tolerated for a while", pod: podOn("n1", tolerate("k", seconds(10))), node: nodeWith(noExecute("k")),
			want: schedule, wantAt: t0.Add(10 * time.Second)},
		{name: "toleration seconds 0: now", pod: podOn("n1", tolerate("k", seconds(0))), node: nodeWith(noExecute("k")), want: evict},
		{name: "the least of two tolerations", pod: podOn("n1", tolerate("a", seconds(30)), tolerate("b", seconds(5))),
			node: nodeWith(noExecute("a"), noExecute("b")), want: schedule, wantAt: t0.Add(5 * time.Second)},
		{name: "one of two taints untolerated", pod: podOn("n1", tolerate("a", nil)),
			node: nodeWith(noExecute("a"), noExecute("b")), want: evict},
		{name: "pending stands", pod: podOn("n1", tolerate("k", seconds(10))), node: nodeWith(noExecute("k")),
			pending: soon, want: keep, wantAt: soon.at},
		{name: "pending due", pod: podOn("n1", tolerate("k", seconds(10))), node: nodeWith(noExecute("k")),
			pending: due, want: evict},
		{name: "taint removed: cancel", pod: podOn("n1", tolerate("k", seconds(10))), node: nodeWith(), pending: soon, want: cancel},
		{name: "toleration made forever: cancel", pod: podOn("n1", tolerate("k", nil)), node: nodeWith(noExecute("k")),
			pending: soon, want: cancel},
		{name: "node gone: cancel", pod: podOn("n1", tolerate("k", seconds(10))), node: nil, pending: soon, want: cancel},
		{name: "pod deleting: cancel", pod: deleting, node: nodeWith(noExecute("k")), pending: soon, want: cancel},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, p := decide(tt.pod, tt.node, t0, tt.pending)
			assert.Equal(t, tt.want.String(), got.String())
			if !tt.wantAt.IsZero() {
				assert.Equal(t, tt.wantAt, p.at)
			}
		})
	}
}

// TestMinTolerationTime ports TestGetMinTolerationTime.
func TestMinTolerationTime(t *testing.T) {
	tests := []struct {
		name        string
		tolerations []api.Toleration
		want        time.Duration
		forever     bool
	}{
		{name: "none", want: 0},
		{name: "no seconds", tolerations: []api.Toleration{{TolerationSeconds: nil}}, forever: true},
		{name: "negative", tolerations: []api.Toleration{{TolerationSeconds: seconds(-1)}}, want: 0},
		{name: "the least", tolerations: []api.Toleration{{TolerationSeconds: seconds(20)}, {TolerationSeconds: seconds(10)}, {}}, want: 10 * time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, forever := minTolerationTime(tt.tolerations)
			assert.Equal(t, tt.want, got)
			assert.Equal(t, tt.forever, forever)
		})
	}
}
