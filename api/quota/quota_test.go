package quota

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/miniplane/miniplane/api"
)

func TestFormat(t *testing.T) {
	for _, tc := range []struct{ a, b, want string }{
		{"500m", "1", "1500m"},
		{"1", "1", "2"},
		{"1k", "1", "1001"},
		{"252Mi", "100Mi", "352Mi"},
		{"1Gi", "1Gi", "2Gi"},
		{"30Gi", "0", "30Gi"},
		{"0", "0", "0"},
		{"500m", "500m", "1"},
		{"1000", "1000", "2k"},
	} {
		assert.Equal(t, tc.want, Add(api.ResourceList{"x": tc.a}, api.ResourceList{"x": tc.b})["x"], "%s + %s", tc.a, tc.b)
	}
	assert.Equal(t, "0", Subtract(api.ResourceList{"x": "2"}, api.ResourceList{"x": "2"})["x"])
}

func TestExceeded(t *testing.T) {
	assert.Equal(t, []string{"pods"}, Exceeded(api.ResourceList{"pods": "3", "cpu": "1", "memory": "1Gi"}, api.ResourceList{"pods": "2", "cpu": "1000m"}))
	assert.Nil(t, Exceeded(api.ResourceList{"pods": "2"}, api.ResourceList{"pods": "2"}))
	assert.Equal(t, "cpu=600m,memory=100Mi", PrettyPrint(api.ResourceList{"memory": "100Mi", "cpu": "600m"}))
}

// Kubernetes: TestPodEvaluatorUsage (pkg/quota/v1/evaluator/core).
func TestUsage(t *testing.T) {
	now := time.Unix(1000, 0)
	res := func(req, lim api.ResourceList) api.ResourceRequirements {
		return api.ResourceRequirements{Requests: req, Limits: lim}
	}
	deleted := api.NewTime(now.Add(-time.Minute))
	for _, tc := range []struct {
		name     string
		resource string
		obj      api.Object
		want     api.ResourceList
	}{
		{"init container larger than the app's", "pods", &api.Pod{Spec: api.PodSpec{
			InitContainers: []api.Container{{Resources: res(api.ResourceList{"cpu": "2"}, nil)}},
			Containers:     []api.Container{{Resources: res(api.ResourceList{"cpu": "1", "memory": "1Gi"}, api.ResourceList{"cpu": "2"})}, {Resources: res(api.ResourceList{"cpu": "500m"}, nil)}}}},
			api.ResourceList{"count/pods": "1", "pods": "1", "cpu": "2", "requests.cpu": "2", "limits.cpu": "2", "memory": "1Gi", "requests.memory": "1Gi"}},
		{"extended resource and ephemeral storage", "pods", &api.Pod{Spec: api.PodSpec{Containers: []api.Container{{Resources: res(
			api.ResourceList{"example.com/dongle": "2", "ephemeral-storage": "30Gi"}, api.ResourceList{"example.com/dongle": "2"})}}}},
			api.ResourceList{"count/pods": "1", "pods": "1", "requests.example.com/dongle": "2", "ephemeral-storage": "30Gi", "requests.ephemeral-storage": "30Gi"}},
		{"succeeded pod counts only its object", "pods", &api.Pod{Status: api.PodStatus{Phase: api.PodSucceeded},
			Spec: api.PodSpec{Containers: []api.Container{{Resources: res(api.ResourceList{"cpu": "1"}, nil)}}}},
			api.ResourceList{"count/pods": "1"}},
		{"pod past its deletion grace", "pods", &api.Pod{Metadata: api.ObjectMeta{DeletionTimestamp: &deleted, DeletionGracePeriodSeconds: new(int64)}},
			api.ResourceList{"count/pods": "1"}},
		{"node port service", "services", &api.Service{Spec: api.ServiceSpec{Type: api.ServiceTypeNodePort, Ports: []api.ServicePort{{Port: 80}, {Port: 443}}}},
			api.ResourceList{"count/services": "1", "services": "1", "services.nodeports": "2"}},
		{"load balancer", "services", &api.Service{Spec: api.ServiceSpec{Type: api.ServiceTypeLoadBalancer, Ports: []api.ServicePort{{Port: 80}}}},
			api.ResourceList{"count/services": "1", "services": "1", "services.nodeports": "1", "services.loadbalancers": "1"}},
		{"config map", "configmaps", &api.ConfigMap{}, api.ResourceList{"count/configmaps": "1", "configmaps": "1"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, Usage("", tc.resource, tc.obj, now))
		})
	}
	assert.Equal(t, api.ResourceList{"count/replicasets.apps": "1"}, Usage("apps", "replicasets", &api.ReplicaSet{}, now))
}

// Kubernetes: TestPodConstraintsFunc.
func TestMissingRequests(t *testing.T) {
	pod := &api.Pod{Spec: api.PodSpec{
		InitContainers: []api.Container{{Name: "init", Resources: api.ResourceRequirements{Limits: api.ResourceList{"cpu": "1"}}}},
		Containers: []api.Container{{Name: "b", Resources: api.ResourceRequirements{Requests: api.ResourceList{"cpu": "1"}}},
			{Name: "a"}}}}
	assert.Equal(t, "limits.cpu for: a,b; requests.cpu for: a,init", MissingRequests([]string{"pods", "limits.cpu", "requests.cpu"}, pod))
	assert.Empty(t, MissingRequests([]string{"pods", "cpu"}, pod), "cpu alone constrains nothing")
}

// Kubernetes: TestPodEvaluatorMatchingScopes.
func TestSelects(t *testing.T) {
	deadline := int64(60)
	terminating := &api.Pod{Spec: api.PodSpec{ActiveDeadlineSeconds: &deadline}}
	burstable := &api.Pod{Spec: api.PodSpec{PriorityClassName: "high", Containers: []api.Container{{Resources: api.ResourceRequirements{Requests: api.ResourceList{"cpu": "1"}}}}}}
	scoped := func(scopes ...string) *api.ResourceQuota {
		return &api.ResourceQuota{Spec: api.ResourceQuotaSpec{Scopes: scopes}}
	}
	byClass := &api.ResourceQuota{Spec: api.ResourceQuotaSpec{ScopeSelector: &api.ScopeSelector{MatchExpressions: []api.ScopedResourceSelectorRequirement{
		{ScopeName: api.ScopePriorityClass, Operator: "In", Values: []string{"high"}}}}}}
	for _, tc := range []struct {
		name string
		q    *api.ResourceQuota
		obj  api.Object
		want bool
	}{
		{"unscoped counts anything", scoped(), &api.Secret{}, true},
		{"scoped counts no secret", scoped(api.ScopeNotTerminating), &api.Secret{}, false},
		{"terminating", scoped(api.ScopeTerminating), terminating, true},
		{"not terminating", scoped(api.ScopeNotTerminating), terminating, false},
		{"best effort", scoped(api.ScopeBestEffort), terminating, true},
		{"not best effort", scoped(api.ScopeNotBestEffort), burstable, true},
		{"both must hold", scoped(api.ScopeNotBestEffort, api.ScopeTerminating), burstable, false},
		{"priority class in", byClass, burstable, true},
		{"priority class not in", byClass, terminating, false},
	} {
		t.Run(tc.name, func(t *testing.T) { assert.Equal(t, tc.want, Selects(tc.q, tc.obj)) })
	}
}

// TestQOSClass ports the cases of Kubernetes' qos_test.go that miniplane's
// pods can carry.
func TestQOSClass(t *testing.T) {
	ct := func(requests, limits api.ResourceList) api.Container {
		return api.Container{Name: "c", Resources: api.ResourceRequirements{Requests: requests, Limits: limits}}
	}
	both := func(cpu, mem string) api.ResourceList {
		return api.ResourceList{api.ResourceCPU: cpu, api.ResourceMemory: mem}
	}
	for _, tc := range []struct {
		name       string
		containers []api.Container
		want       api.PodQOSClass
	}{
		{"nothing asked", []api.Container{ct(nil, nil)}, api.PodQOSBestEffort},
		{"zero requests", []api.Container{ct(both("0", "0"), nil)}, api.PodQOSBestEffort},
		{"requests equal limits", []api.Container{ct(both("100m", "100Mi"), both("0.1", "100Mi"))}, api.PodQOSGuaranteed},
		{"two guaranteed", []api.Container{ct(both("1", "1Gi"), both("1", "1Gi")), ct(both("2", "1G"), both("2", "1G"))}, api.PodQOSGuaranteed},
		{"requests below limits", []api.Container{ct(both("100m", "100Mi"), both("200m", "100Mi"))}, api.PodQOSBurstable},
		{"only a cpu limit", []api.Container{ct(nil, api.ResourceList{api.ResourceCPU: "1"})}, api.PodQOSBurstable},
		{"one best effort beside a guaranteed", []api.Container{ct(both("1", "1Gi"), both("1", "1Gi")), ct(nil, nil)}, api.PodQOSBurstable},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, QOSClass(&api.Pod{Spec: api.PodSpec{Containers: tc.containers}}))
		})
	}
}
