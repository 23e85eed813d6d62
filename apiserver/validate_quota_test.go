package apiserver

import (
	"testing"

	"github.com/miniplane/miniplane/api"
)

// validResourceQuota is the e2e suite's newTestResourceQuota: every kind of
// name a quota may hold.
func validResourceQuota() *api.ResourceQuota {
	return &api.ResourceQuota{
		Metadata: api.ObjectMeta{Name: "test-quota", Namespace: "default"},
		Spec: api.ResourceQuotaSpec{Hard: api.ResourceList{
			"pods": "5", "services": "10", "services.nodeports": "1", "services.loadbalancers": "1",
			"replicationcontrollers": "10", "resourcequotas": "1", "cpu": "1", "memory": "500Mi",
			"configmaps": "10", "secrets": "10", "persistentvolumeclaims": "10", "requests.storage": "10Gi",
			"ephemeral-storage": "50Gi", "gold.storageclass.storage.k8s.io/persistentvolumeclaims": "10",
			"gold.storageclass.storage.k8s.io/requests.storage": "10Gi", "count/replicasets.apps": "5",
			"requests.example.com/dongle": "3", "limits.cpu": "2", "requests.hugepages-2Mi": "1Gi",
		}},
	}
}

// Kubernetes: TestValidateResourceQuota (pkg/apis/core/validation).
func TestValidateResourceQuota(t *testing.T) {
	for _, tc := range []struct {
		name   string
		change func(*api.ResourceQuota)
		want   string
		causes []cause
	}{
		{name: "valid", change: func(*api.ResourceQuota) {}},
		{name: "scoped to pods and compute", change: func(q *api.ResourceQuota) {
			q.Spec.Hard = api.ResourceList{"pods": "1", "requests.cpu": "1"}
			q.Spec.Scopes = []string{api.ScopeTerminating, api.ScopeNotBestEffort}
		}},
		{name: "priority class selector", change: func(q *api.ResourceQuota) {
			q.Spec.Hard = api.ResourceList{"pods": "1"}
			q.Spec.ScopeSelector = &api.ScopeSelector{MatchExpressions: []api.ScopedResourceSelectorRequirement{
				{ScopeName: api.ScopePriorityClass, Operator: "In", Values: []string{"high"}}}}
		}},
		{name: "negative", change: func(q *api.ResourceQuota) { q.Spec.Hard = api.ResourceList{"cpu": "-1"} },
			want: `spec.hard[cpu]: Invalid value: "-1": must be greater than or equal to 0`, causes: []cause{{invalid, "spec.hard[cpu]"}}},
		{name: "fractional count", change: func(q *api.ResourceQuota) { q.Spec.Hard = api.ResourceList{"pods": "500m"} },
			want: `spec.hard[pods]: Invalid value: "500m": must be an integer`, causes: []cause{{invalid, "spec.hard[pods]"}}},
		{name: "fractional extended", change: func(q *api.ResourceQuota) { q.Spec.Hard = api.ResourceList{"count/pods": "1.5"} },
			want: `spec.hard[count/pods]: Invalid value: "1.5": must be an integer`, causes: []cause{{invalid, "spec.hard[count/pods]"}}},
		{name: "unknown bare name", change: func(q *api.ResourceQuota) { q.Spec.Hard = api.ResourceList{"gpus": "1"} },
			want: `spec.hard[gpus]: Invalid value: "gpus": must be a standard resource type or fully qualified`, causes: []cause{{invalid, "spec.hard[gpus]"}}},
		{name: "standard but not for quota", change: func(q *api.ResourceQuota) { q.Spec.Hard = api.ResourceList{"storage": "1Gi"} },
			want: `spec.hard[storage]: Invalid value: "storage": must be a standard resource for quota`, causes: []cause{{invalid, "spec.hard[storage]"}}},
		{name: "bad status used", change: func(q *api.ResourceQuota) { q.Status.Used = api.ResourceList{"pods": "x"} },
			want: `status.used[pods]: Invalid value: "x": ` + msgQuantityFormat, causes: []cause{{invalid, "status.used[pods]"}}},
		{name: "unsupported scope", change: func(q *api.ResourceQuota) {
			q.Spec.Hard = api.ResourceList{"pods": "1"}
			q.Spec.Scopes = []string{"Foo"}
		}, want: `spec.scopes: Invalid value: []string{"Foo"}: unsupported scope`, causes: []cause{{invalid, "spec.scopes"}}},
		{name: "best effort on cpu", change: func(q *api.ResourceQuota) {
			q.Spec.Hard = api.ResourceList{"cpu": "1"}
			q.Spec.Scopes = []string{api.ScopeBestEffort}
		}, want: `spec.scopes: Invalid value: []string{"BestEffort"}: unsupported scope applied to resource`, causes: []cause{{invalid, "spec.scopes"}}},
		{name: "conflicting scopes", change: func(q *api.ResourceQuota) {
			q.Spec.Hard = api.ResourceList{"pods": "1"}
			q.Spec.Scopes = []string{api.ScopeTerminating, api.ScopeNotTerminating}
		}, want: `spec.scopes: Invalid value: []string{"Terminating", "NotTerminating"}: conflicting scopes`, causes: []cause{{invalid, "spec.scopes"}}},
		{name: "selector In without values", change: func(q *api.ResourceQuota) {
			q.Spec.Hard = api.ResourceList{"pods": "1"}
			q.Spec.ScopeSelector = &api.ScopeSelector{MatchExpressions: []api.ScopedResourceSelectorRequirement{
				{ScopeName: api.ScopePriorityClass, Operator: "In"}}}
		}, want: "spec.scopeSelector.matchExpressions.values: Required value: " + msgScopeValuesRequired,
			causes: []cause{{required, "spec.scopeSelector.matchExpressions.values"}}},
		{name: "selector terminating with In", change: func(q *api.ResourceQuota) {
			q.Spec.Hard = api.ResourceList{"pods": "1"}
			q.Spec.ScopeSelector = &api.ScopeSelector{MatchExpressions: []api.ScopedResourceSelectorRequirement{
				{ScopeName: api.ScopeTerminating, Operator: "In", Values: []string{"x"}}}}
		}, want: `spec.scopeSelector.matchExpressions.operator: Invalid value: "In": ` + msgScopeMustExist,
			causes: []cause{{invalid, "spec.scopeSelector.matchExpressions.operator"}}},
		{name: "selector bad operator", change: func(q *api.ResourceQuota) {
			q.Spec.Hard = api.ResourceList{"pods": "1"}
			q.Spec.ScopeSelector = &api.ScopeSelector{MatchExpressions: []api.ScopedResourceSelectorRequirement{
				{ScopeName: api.ScopePriorityClass, Operator: "Like"}}}
		}, want: `spec.scopeSelector.matchExpressions.operator: Invalid value: "Like": not a valid selector operator`,
			causes: []cause{{invalid, "spec.scopeSelector.matchExpressions.operator"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			q := validResourceQuota()
			tc.change(q)
			defaultResourceQuota(q)
			assertErrors(t, validateResourceQuota(q), tc.want, tc.causes)
		})
	}
}

func TestValidateResourceQuotaUpdateKeepsScopes(t *testing.T) {
	old := &api.ResourceQuota{Metadata: api.ObjectMeta{Name: "q", Namespace: "default", ResourceVersion: "1"},
		Spec: api.ResourceQuotaSpec{Hard: api.ResourceList{"pods": "1"}, Scopes: []string{api.ScopeBestEffort}}}
	q := old.DeepCopy()
	q.Spec.Scopes = []string{api.ScopeNotBestEffort}
	assertErrors(t, validateResourceQuotaUpdate(q, old), `spec.scopes: Invalid value: []string{"NotBestEffort"}: field is immutable`,
		[]cause{{invalid, "spec.scopes"}})
	q = old.DeepCopy()
	q.Spec.Hard["pods"] = "2"
	assertErrors(t, validateResourceQuotaUpdate(q, old), "", nil)
}
