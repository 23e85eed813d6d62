package resourcequota

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/apiserver"
	"github.com/miniplane/miniplane/client"
	"github.com/miniplane/miniplane/informer"
	"github.com/miniplane/miniplane/internal/testenv"
)

// Kubernetes: TestSyncResourceQuota (pkg/controller/resourcequota), its
// pod, scope and zero-usage cases.
func TestUsed(t *testing.T) {
	now := time.Unix(1000, 0)
	pod := func(name string, phase api.PodPhase, cpu string) Object {
		p := &api.Pod{Metadata: api.ObjectMeta{Name: name}, Status: api.PodStatus{Phase: phase},
			Spec: api.PodSpec{Containers: []api.Container{{Name: "c"}}}}
		if cpu != "" {
			p.Spec.Containers[0].Resources = api.ResourceRequirements{Requests: api.ResourceList{"cpu": cpu, "memory": "1Gi"}, Limits: api.ResourceList{"cpu": cpu}}
		}
		return Object{Resource: "pods", Obj: p}
	}
	objects := []Object{
		pod("running", api.PodRunning, "100m"),
		pod("pending", api.PodPending, "200m"),
		pod("done", api.PodSucceeded, "4"),
		pod("besteffort", api.PodRunning, ""),
		{Resource: "secrets", Obj: &api.Secret{}},
		{Resource: "services", Obj: &api.Service{Spec: api.ServiceSpec{Type: api.ServiceTypeNodePort, Ports: []api.ServicePort{{Port: 80}}}}},
		{Group: "apps", Resource: "replicasets", Obj: &api.ReplicaSet{}},
	}
	for _, tc := range []struct {
		name   string
		hard   api.ResourceList
		scopes []string
		want   api.ResourceList
	}{
		{"compute of unfinished pods", api.ResourceList{"cpu": "3", "requests.memory": "100Gi", "limits.cpu": "4", "pods": "5"}, nil,
			api.ResourceList{"cpu": "300m", "requests.memory": "2Gi", "limits.cpu": "300m", "pods": "3"}},
		{"object counts", api.ResourceList{"secrets": "10", "services": "10", "services.nodeports": "1", "count/replicasets.apps": "5", "count/pods": "9"}, nil,
			api.ResourceList{"secrets": "1", "services": "1", "services.nodeports": "1", "count/replicasets.apps": "1", "count/pods": "4"}},
		{"nothing used is zero", api.ResourceList{"configmaps": "1", "requests.example.com/dongle": "3"}, nil,
			api.ResourceList{"configmaps": "0", "requests.example.com/dongle": "0"}},
		{"best effort scope", api.ResourceList{"pods": "5"}, []string{api.ScopeBestEffort}, api.ResourceList{"pods": "1"}},
		{"not best effort scope", api.ResourceList{"pods": "5"}, []string{api.ScopeNotBestEffort}, api.ResourceList{"pods": "2"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			q := &api.ResourceQuota{Spec: api.ResourceQuotaSpec{Hard: tc.hard, Scopes: tc.scopes}}
			assert.Equal(t, tc.want, Used(q, objects, now))
		})
	}
}

func TestNeedsSync(t *testing.T) {
	hard := api.ResourceList{"pods": "2"}
	assert.True(t, needsSync(&api.ResourceQuota{Spec: api.ResourceQuotaSpec{Hard: hard}}), "new")
	assert.True(t, needsSync(&api.ResourceQuota{Spec: api.ResourceQuotaSpec{Hard: hard}, Status: api.ResourceQuotaStatus{Hard: hard}}), "no used")
	assert.False(t, needsSync(&api.ResourceQuota{Spec: api.ResourceQuotaSpec{Hard: hard},
		Status: api.ResourceQuotaStatus{Hard: api.ResourceList{"pods": "2"}, Used: api.ResourceList{"pods": "0"}}}), "counted")
	assert.True(t, needsSync(&api.ResourceQuota{Spec: api.ResourceQuotaSpec{Hard: api.ResourceList{"pods": "3"}},
		Status: api.ResourceQuotaStatus{Hard: hard, Used: api.ResourceList{"pods": "0"}}}), "hard changed")
}

// TestSyncAgainstServer: a new quota is counted, a deleted pod given
// back, and the full recount after the resync period on the fake clock
// repairs a used that was written wrong meanwhile.
func TestSyncAgainstServer(t *testing.T) {
	ctx := t.Context()
	srv, clk := testenv.NewServer(t, apiserver.Config{})
	f := informer.NewFactory(srv, "", clk, testenv.Logger(t))
	c, err := New(Config{Client: srv, Factory: f, Clock: clk, Logger: testenv.Logger(t)})
	require.NoError(t, err)
	settle := func() {
		steps := []func() bool{func() bool { return c.ProcessOne(ctx) }}
		for _, inf := range f.Informers() {
			steps = append(steps, func() bool { return inf.Reflector().Step(ctx) || inf.ProcessOne() })
		}
		for _, r := range c.Registrations() {
			steps = append(steps, r.DispatchOne)
		}
		testenv.Settle(t, 0, steps...)
	}
	used := func() api.ResourceList {
		q, err := client.For[*api.ResourceQuota](srv).Get(ctx, "default", "q")
		require.NoError(t, err)
		return q.Status.Used
	}
	for _, name := range []string{"a", "b"} {
		_, err := srv.Create(ctx, &api.Pod{Metadata: api.ObjectMeta{Namespace: "default", Name: name},
			Spec: api.PodSpec{Containers: []api.Container{{Name: "c", Image: "nginx"}}}})
		require.NoError(t, err)
	}
	_, err = srv.Create(ctx, &api.ResourceQuota{Metadata: api.ObjectMeta{Namespace: "default", Name: "q"},
		Spec: api.ResourceQuotaSpec{Hard: api.ResourceList{"pods": "5", "resourcequotas": "1"}}})
	require.NoError(t, err)
	settle()
	assert.Equal(t, api.ResourceList{"pods": "2", "resourcequotas": "1"}, used())

	zero := int64(0)
	_, err = srv.Delete(ctx, client.Pods, "default", "a", api.DeleteOptions{GracePeriodSeconds: &zero})
	require.NoError(t, err)
	settle()
	assert.Equal(t, api.ResourceList{"pods": "1", "resourcequotas": "1"}, used())

	q, err := client.For[*api.ResourceQuota](srv).Get(ctx, "default", "q")
	require.NoError(t, err)
	wrong := q.DeepCopy()
	wrong.Status.Used = api.ResourceList{"pods": "4", "resourcequotas": "1"}
	_, err = srv.UpdateStatus(ctx, wrong)
	require.NoError(t, err)
	settle()
	assert.Equal(t, "4", used()["pods"], "a status write queues no recount")
	clk.Step(DefaultResync)
	settle()
	assert.Equal(t, "1", used()["pods"], "the resync recounts")
}
