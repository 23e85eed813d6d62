package informer_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/api/apierrors"
	"github.com/miniplane/miniplane/apiserver"
	"github.com/miniplane/miniplane/client"
	"github.com/miniplane/miniplane/informer"
)

func selector(t *testing.T, s string) api.Selector {
	t.Helper()
	sel, err := api.ParseSelector(s)
	require.NoError(t, err)
	return sel
}

func podKeys(pods []*api.Pod) []string {
	out := []string{}
	for _, p := range pods {
		out = append(out, informer.KeyOf(p))
	}
	return out
}

// newPodLister returns a lister over a synced pod informer holding
// default/{db-1,web-1,web-2} and kube-system/{dns,web-0}.
func newPodLister(t *testing.T) (informer.Lister[*api.Pod], *env) {
	t.Helper()
	e := newEnv(t, apiserver.Config{})
	// Created out of key order: listing must not follow creation order.
	e.createPod("kube-system", "web-0", map[string]string{"app": "web"})
	e.createPod("default", "web-2", map[string]string{"app": "web"})
	e.createPod("kube-system", "dns", map[string]string{"app": "dns"})
	e.createPod("default", "web-1", map[string]string{"app": "web"})
	e.createPod("default", "db-1", map[string]string{"app": "db"})
	e.pump()
	require.True(t, e.inf.HasSynced())
	return informer.NewLister[*api.Pod](e.inf, apierrors.GroupResource{Resource: client.Pods}), e
}

func TestListerList(t *testing.T) {
	l, e := newPodLister(t)
	tests := []struct {
		name string
		list func() []*api.Pod
		want []string
	}{
		{
			name: "everything, across namespaces, in key order",
			list: func() []*api.Pod { return l.List(api.Selector{}) },
			want: []string{"default/db-1", "default/web-1", "default/web-2", "kube-system/dns", "kube-system/web-0"},
		},
		{
			name: "a selector across namespaces",
			list: func() []*api.Pod { return l.List(selector(t, "app=web")) },
			want: []string{"default/web-1", "default/web-2", "kube-system/web-0"},
		},
		{
			name: "a set-based selector across namespaces",
			list: func() []*api.Pod { return l.List(selector(t, "app in (db,dns)")) },
			want: []string{"default/db-1", "kube-system/dns"},
		},
		{
			name: "one namespace",
			list: func() []*api.Pod { return l.Namespace("default").List(api.Selector{}) },
			want: []string{"default/db-1", "default/web-1", "default/web-2"},
		},
		{
			name: "one namespace with a selector",
			list: func() []*api.Pod { return l.Namespace("kube-system").List(selector(t, "app=web")) },
			want: []string{"kube-system/web-0"},
		},
		{
			name: "a namespace with no pods",
			list: func() []*api.Pod { return l.Namespace("empty").List(api.Selector{}) },
			want: []string{},
		},
		{
			name: "a selector nothing matches",
			list: func() []*api.Pod { return l.List(selector(t, "app=none")) },
			want: []string{},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := tt.list()
			assert.Equal(t, tt.want, podKeys(got))
			for _, p := range got {
				cached, _ := e.inf.Indexer().Get(informer.KeyOf(p))
				assert.Same(t, cached, p, "the cached object")
			}
		})
	}
}

func TestListerGet(t *testing.T) {
	l, e := newPodLister(t)
	tests := []struct {
		name      string
		namespace string
		pod       string
		notFound  string // the error message; "" when found
	}{
		{name: "a cached pod", namespace: "default", pod: "web-1"},
		{name: "a missing pod is NotFound", namespace: "default", pod: "nope", notFound: `pods "nope" not found`},
		{name: "a pod of another namespace is NotFound", namespace: "kube-system", pod: "web-1", notFound: `pods "web-1" not found`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := l.Namespace(tt.namespace).Get(tt.pod)
			if tt.notFound == "" {
				require.NoError(t, err)
				cached, _ := e.inf.Indexer().Get(tt.namespace + "/" + tt.pod)
				assert.Same(t, cached, got)
				return
			}
			require.Error(t, err)
			assert.Nil(t, got)
			assert.True(t, apierrors.IsNotFound(err), "apiserver NotFound: %v", err)
			assert.EqualError(t, err, tt.notFound)
			status := apierrors.StatusOf(err)
			assert.Equal(t, int32(404), status.Code)
			require.NotNil(t, status.Details)
			assert.Equal(t, tt.pod, status.Details.Name)
			assert.Equal(t, client.Pods, status.Details.Kind)
		})
	}
}

func TestListerGetClusterScoped(t *testing.T) {
	e := newEnv(t, apiserver.Config{})
	inf := informer.New(informer.Source{Client: e.srv, Resource: client.Namespaces}, informer.Config{Clock: e.clk})
	for inf.Reflector().Step(ctx) {
	}
	for inf.ProcessOne() {
	}
	l := informer.NewLister[*api.Namespace](inf, apierrors.GroupResource{Resource: client.Namespaces})

	ns, err := l.Get("kube-system")
	require.NoError(t, err)
	assert.Equal(t, "kube-system", ns.Metadata.Name)
	assert.Equal(t, []string{"default", "kube-system"}, nsNames(l.List(api.Selector{})))

	_, err = l.Get("nope")
	assert.True(t, apierrors.IsNotFound(err))
	assert.EqualError(t, err, `namespaces "nope" not found`)
}

func nsNames(nss []*api.Namespace) []string {
	var out []string
	for _, ns := range nss {
		out = append(out, ns.Metadata.Name)
	}
	return out
}

// TestListerGetAllocatesOnlyForAMiss: a hit builds its key on the stack,
// whatever the name's length (a long one spills to the heap but is still
// found); only a miss allocates, for its NotFound error.
func TestListerGetAllocatesOnlyForAMiss(t *testing.T) {
	l, e := newPodLister(t)
	long := strings.Repeat("x", 200)
	e.createPod("default", long, nil)
	e.pump()
	for _, name := range []string{"web-1", long} {
		got, err := l.Namespace("default").Get(name)
		require.NoError(t, err, name)
		assert.Equal(t, name, got.Metadata.Name)
	}
	allocs := testing.AllocsPerRun(100, func() {
		if _, err := l.Namespace("default").Get("web-1"); err != nil {
			t.Fatal(err)
		}
	})
	assert.Zero(t, allocs, "allocations per hit")
}

// TestAppendByIndexOf: the objects are appended to the caller's slice in
// key order, by any index, the namespace one included; a reused buffer
// costs no allocation; an unknown index is an error that leaves dst as it
// was.
func TestAppendByIndexOf(t *testing.T) {
	_, e := newPodLister(t)
	x := e.inf.Indexer()
	require.NoError(t, x.AddIndexers(map[string]informer.IndexFunc{"app": func(obj api.Object) []string {
		return []string{obj.GetObjectMeta().Labels["app"]}
	}}))
	tests := []struct {
		name, index, value string
		want               []string
	}{
		{"a namespace, in key order", informer.NamespaceIndex, "default", []string{"default/db-1", "default/web-1", "default/web-2"}},
		{"a value across namespaces, in key order", "app", "web", []string{"default/web-1", "default/web-2", "kube-system/web-0"}},
		{"a value nothing has", "app", "none", []string{}},
		{"a namespace with nothing", informer.NamespaceIndex, "empty", []string{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			first := &api.Pod{Metadata: api.ObjectMeta{Namespace: "kept", Name: "first"}}
			got, err := informer.AppendByIndexOf([]*api.Pod{first}, x, tt.index, tt.value)
			require.NoError(t, err)
			assert.Same(t, first, got[0], "what dst held stays first")
			assert.Equal(t, tt.want, podKeys(got[1:]))
			old, err := informer.ByIndexOf[*api.Pod](x, tt.index, tt.value)
			require.NoError(t, err)
			assert.Equal(t, old, got[1:], "what ByIndexOf returns")

			buf := make([]*api.Pod, 0, 8)
			allocs := testing.AllocsPerRun(100, func() {
				buf, err = informer.AppendByIndexOf(buf[:0], x, tt.index, tt.value)
			})
			require.NoError(t, err)
			assert.Zero(t, allocs, "allocations with a reused buffer")
		})
	}

	dst := []*api.Pod{{}}
	got, err := informer.AppendByIndexOf(dst, x, "missing", "v")
	assert.ErrorContains(t, err, `no index named "missing"`)
	assert.Equal(t, dst, got)
}
