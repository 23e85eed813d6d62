package endpoints

import (
	"fmt"
	"maps"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/client"
)

// scanPods and scanServices are what selectedPods and podServices replace:
// a scan of the namespace.
func scanPods(c *Controller, ns string, selector map[string]string) []*api.Pod {
	return c.pods.Namespace(ns).List(api.SelectorFromSet(selector))
}

func scanServices(c *Controller, pod *api.Pod) []string {
	var keys []string
	for _, svc := range c.services.Namespace(pod.Metadata.Namespace).List(api.Selector{}) {
		if svc.Spec.Selector != nil && api.SelectorFromSet(svc.Spec.Selector).Matches(pod.Metadata.Labels) {
			keys = append(keys, api.KeyOf(&svc.Metadata))
		}
	}
	return keys
}

// held counts the pods in the whole of ps's array.
func held(ps []*api.Pod) int {
	n := 0
	for _, p := range ps[:cap(ps)] {
		if p != nil {
			n++
		}
	}
	return n
}

// TestIndexedLookupsMatchTheScan checks that the indexed lookups return
// exactly what a namespace scan returns, for indexes added to a populated
// cache, kept up to date through label changes and deletions, and added
// again by a second New on the same factory.
func TestIndexedLookupsMatchTheScan(t *testing.T) {
	e := newEnv(t)
	labelSets := []map[string]string{
		nil,
		{},
		{"app": "a"},
		{"app": "b"},
		{"app": "a", "tier": "web"},
		{"app": "b", "tier": "web"},
		{"tier": "web"},
		{"example.com/app": "a"},
		{"app": "a", "track": "canary"},
	}
	for _, ns := range []string{"ns1", "ns2"} {
		e.create(&api.Namespace{Metadata: api.ObjectMeta{Name: ns}})
		for i := range 30 {
			e.createPod(ns, fmt.Sprintf("pod-%02d", i), fmt.Sprintf("10.0.%d.%d", len(ns), i), i%3 != 0, labelSets[i%len(labelSets)])
		}
		for i, sel := range labelSets {
			e.create(service(ns, fmt.Sprintf("svc-%d", i), sel, api.ServicePort{Port: 80}))
		}
	}
	e.settleInformers()
	e.start() // New over populated caches
	e.settleInformers()

	// One set of buffers for every lookup, reset between them as a sync
	// resets its packer's.
	var b podBuffers
	check := func() {
		t.Helper()
		for _, ns := range []string{"ns1", "ns2", "ns3"} {
			for _, sel := range labelSets {
				want, got := scanPods(e.c, ns, sel), e.c.selectedPods(ns, sel, &b)
				assert.Equal(t, want, got, "pods of %s selected by %v", ns, sel)
				b.reset()
				assert.Zero(t, held(b.rarest)+held(b.next), "reset buffers hold no pod")
			}
		}
		for _, pod := range e.c.pods.List(api.Selector{}) {
			assert.Equal(t, scanServices(e.c, pod), e.c.podServices(pod, nil), "services of pod %s", api.KeyOf(&pod.Metadata))
		}
	}
	check()

	_, err := New(Config{Client: e.client, Factory: e.factory, Clock: e.clk})
	require.NoError(t, err, "a second New on the same factory")

	for i := range 30 {
		if i%4 != 0 {
			continue
		}
		obj, err := e.srv.Get(e.ctx, client.Pods, "ns1", fmt.Sprintf("pod-%02d", i), client.GetOptions{})
		require.NoError(t, err)
		pod := obj.(*api.Pod).DeepCopy()
		pod.Metadata.Labels = labelSets[(i+1)%len(labelSets)]
		_, err = e.srv.Update(e.ctx, pod)
		require.NoError(t, err)
	}
	_, err = e.srv.Delete(e.ctx, client.Pods, "ns2", "pod-02", api.DeleteOptions{})
	require.NoError(t, err)
	_, err = e.srv.Delete(e.ctx, client.Services, "ns2", "svc-4", api.DeleteOptions{})
	require.NoError(t, err)
	e.settleInformers()
	check()
}

func TestMatchesSetIsSelectorFromSet(t *testing.T) {
	tests := []struct {
		name        string
		set, labels map[string]string
	}{
		{"empty set, no labels", nil, nil},
		{"empty set, some labels", map[string]string{}, map[string]string{"a": "1"}},
		{"one pair there", map[string]string{"a": "1"}, map[string]string{"a": "1", "b": "2"}},
		{"one pair, other value", map[string]string{"a": "1"}, map[string]string{"a": "2"}},
		{"one pair, key missing", map[string]string{"a": "1"}, map[string]string{"b": "1"}},
		{"empty value there", map[string]string{"a": ""}, map[string]string{"a": ""}},
		{"empty value, key missing", map[string]string{"a": ""}, nil},
		{"two pairs, one missing", map[string]string{"a": "1", "b": "2"}, map[string]string{"a": "1"}},
		{"two pairs there", map[string]string{"a": "1", "b": "2"}, map[string]string{"a": "1", "b": "2", "c": "3"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			want := api.SelectorFromSet(tt.set).Matches(tt.labels)
			assert.Equal(t, want, matchesSet(tt.set, tt.labels))
			assert.Equal(t, want, api.MatchesLabelPairs(api.AppendLabelPairs(nil, tt.set, ""), tt.labels), "read into pairs")
			for k := range tt.set {
				// Skipping a pair the labels are known to hold.
				withK := maps.Clone(tt.labels)
				if withK == nil {
					withK = map[string]string{}
				}
				withK[k] = tt.set[k]
				assert.Equal(t, api.SelectorFromSet(tt.set).Matches(withK), api.MatchesLabelPairs(api.AppendLabelPairs(nil, tt.set, k), withK), "skipping %s", k)
			}
		})
	}
}

func TestPlainTriple(t *testing.T) {
	tests := []struct {
		ns, key, value string
		plain          bool
	}{
		{"default", "app", "web", true},
		{"default", "example.com/app", "", true},
		{"default", "app", "x=y", false},  // app=x=y is also the pair app=x → y
		{"default", "app=x", "y", false},  // and the reverse
		{"a\x00b", "app", "web", false},   // a namespace holding the separator
		{"default", "a\x00b", "c", false}, // a key holding it
	}
	for _, tt := range tests {
		assert.Equal(t, tt.plain, plainTriple(tt.ns, tt.key, tt.value), "%q %q %q", tt.ns, tt.key, tt.value)
	}
}

// TestLabelValues checks the interned index values: what labelValue makes,
// sorted, a one-label list shared, and the table emptied when full.
func TestLabelValues(t *testing.T) {
	pod := func(ns string, labels map[string]string) *api.Pod {
		return &api.Pod{Metadata: api.ObjectMeta{Namespace: ns, Name: "p", Labels: labels}}
	}
	tests := []struct {
		name string
		obj  api.Object
		want []string
	}{
		{"no labels", pod("ns", nil), nil},
		{"one label", pod("ns", map[string]string{"app": "web"}), []string{labelValue("ns", "app", "web")}},
		{"labels sorted", pod("ns", map[string]string{"tier": "db", "app": "web", "b": "x"}),
			[]string{labelValue("ns", "app", "web"), labelValue("ns", "b", "x"), labelValue("ns", "tier", "db")}},
		{"service selector", service("ns", "s", map[string]string{"app": "web"}), []string{labelValue("ns", "app", "web")}},
		{"service selecting all", service("ns", "s", map[string]string{}), []string{matchAllValue("ns")}},
		{"service without a selector", service("ns", "s", nil), nil},
	}
	l := newLabelValues()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := l.podIndexFunc
			if _, ok := tt.obj.(*api.Service); ok {
				f = l.serviceIndexFunc
			}
			assert.Equal(t, tt.want, f(tt.obj))
			assert.Equal(t, tt.want, f(tt.obj), "again, from the table")
		})
	}

	a := l.podIndexFunc(pod("ns", map[string]string{"app": "web"}))
	b := l.podIndexFunc(pod("ns", map[string]string{"app": "web"}))
	assert.Same(t, &a[0], &b[0], "pods with one same label share a list")
	assert.Equal(t, 1, cap(a), "an append to the shared list copies it")

	for i := range maxLabelValues + 1 {
		l.value("ns", "k", fmt.Sprint(i))
	}
	assert.LessOrEqual(t, len(l.values), maxLabelValues)
	assert.Equal(t, labelValue("ns", "k", "7"), l.value("ns", "k", "7"), "made again once emptied")
}

func TestLabelValuesKeyOf(t *testing.T) {
	l := newLabelValues()
	for _, m := range []api.ObjectMeta{
		{Namespace: "default", Name: "web", UID: "u1"},
		{Namespace: "default", Name: "web", UID: "u1"},
		{Namespace: "default", Name: "db", UID: "u1"},
		{Namespace: "other", Name: "db", UID: "u1"},
		{Name: "cluster", UID: "u2"},
	} {
		assert.Equal(t, api.KeyOf(&m), l.keyOf(&m))
	}
	for i := range maxLabelValues + 1 {
		l.keyOf(&api.ObjectMeta{Namespace: "ns", Name: fmt.Sprint(i), UID: api.UID(fmt.Sprint(i))})
	}
	assert.LessOrEqual(t, len(l.keys), maxLabelValues)
}
