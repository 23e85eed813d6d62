package informer_test

import (
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
