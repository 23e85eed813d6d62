package apiserver_test

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/apiserver"
	"github.com/miniplane/miniplane/client"
	"github.com/miniplane/miniplane/clock"
)

// TestLocalAPIServices: the server keeps a local, available APIService for
// every group version it serves, one for a CustomResourceDefinition's
// version while it is served, and stores an aggregated one untouched.
func TestLocalAPIServices(t *testing.T) {
	s, err := apiserver.New(apiserver.Config{Clock: clock.NewFake(epoch), Rand: rand.New(rand.NewPCG(1, 2)), CheckMutations: true, LocalAPIServices: true})
	require.NoError(t, err)
	t.Cleanup(func() { assert.NoError(t, s.CheckMutations(), "a stored object was changed") })
	names := func() map[string]*api.APIService {
		l, err := s.List(ctx, client.APIServices, "", client.ListOptions{})
		require.NoError(t, err)
		out := map[string]*api.APIService{}
		for _, o := range l.Items {
			out[o.GetObjectMeta().Name] = o.(*api.APIService)
		}
		return out
	}
	have := names()
	for _, want := range []string{"v1.", "v1.apps", "v2.autoscaling", "v1.autoscaling", "v1.rbac.authorization.k8s.io"} {
		require.Contains(t, have, want)
	}
	core := have["v1."]
	assert.Equal(t, api.APIServiceSpec{Version: "v1", GroupPriorityMinimum: 18000, VersionPriority: 1}, core.Spec)
	assert.Equal(t, "onstart", core.Metadata.Labels["kube-aggregator.kubernetes.io/automanaged"])
	require.Len(t, core.Status.Conditions, 1)
	assert.Equal(t, api.APIServiceCondition{Type: "Available", Status: api.ConditionTrue, Reason: "Local", Message: "Local APIServices are always available",
		LastTransitionTime: core.Status.Conditions[0].LastTransitionTime}, core.Status.Conditions[0])

	crd, err := s.Create(ctx, paintCRD(t, "Namespaced"))
	require.NoError(t, err)
	added := names()["v1.demo.example.com"]
	require.NotNil(t, added, "a definition's version gets one")
	assert.Equal(t, int32(1000), added.Spec.GroupPriorityMinimum)
	assert.Equal(t, "true", added.Metadata.Labels["kube-aggregator.kubernetes.io/automanaged"])
	_, err = s.Delete(ctx, client.CustomResourceDefinitions, "", crd.GetObjectMeta().Name, api.DeleteOptions{})
	require.NoError(t, err)
	assert.NotContains(t, names(), "v1.demo.example.com", "and loses it with the definition")

	port := int32(443)
	_, err = s.Create(ctx, &api.APIService{Metadata: api.ObjectMeta{Name: "v1beta1.metrics.k8s.io"}, Spec: api.APIServiceSpec{
		Group: "metrics.k8s.io", Version: "v1beta1", GroupPriorityMinimum: 100, VersionPriority: 100, InsecureSkipTLSVerify: true,
		Service: &api.APIServiceReference{Namespace: "kube-system", Name: "metrics-server", Port: &port}}})
	require.NoError(t, err)
	assert.Contains(t, names(), "v1beta1.metrics.k8s.io", "stored; nothing proxies to it")

	_, err = s.Create(ctx, &api.APIService{Metadata: api.ObjectMeta{Name: "v1.wrong.example.com"}, Spec: api.APIServiceSpec{
		Group: "right.example.com", Version: "v1", GroupPriorityMinimum: 100, VersionPriority: 100}})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "metadata.name: Invalid value: \"v1.wrong.example.com\": must be `spec.version+\".\"+spec.group`: \"v1.right.example.com\"")
}
