package resourcequota

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/miniplane/miniplane/api"
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
