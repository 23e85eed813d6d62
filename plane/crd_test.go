package plane_test

import (
	"context"
	"encoding/json"
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/require"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/api/apierrors"
	"github.com/miniplane/miniplane/apiserver"
	"github.com/miniplane/miniplane/client"
	"github.com/miniplane/miniplane/controllers/manager"
	"github.com/miniplane/miniplane/plane"
	"github.com/miniplane/miniplane/plane/planetest"
)

// gadgetCRD defines namespaced Gadgets of demo.example.com/v1.
const gadgetCRD = `{
  "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
  "metadata": {"name": "gadgets.demo.example.com"},
  "spec": {
    "group": "demo.example.com", "scope": "Namespaced",
    "names": {"plural": "gadgets", "singular": "gadget", "kind": "Gadget"},
    "versions": [{"name": "v1", "served": true, "storage": true,
      "schema": {"openAPIV3Schema": {"type": "object", "x-kubernetes-preserve-unknown-fields": true}}}]
  }
}`

const gadgets = "gadgets.demo.example.com"

func exists(t *testing.T, srv *apiserver.Server, resource, name string) bool {
	t.Helper()
	_, err := srv.Get(context.Background(), resource, "default", name, client.GetOptions{})
	if apierrors.IsNotFound(err) {
		return false
	}
	require.NoError(t, err)
	return true
}

func ownedBy(obj api.Object) []api.OwnerReference {
	tm, m := obj.GetTypeMeta(), obj.GetObjectMeta()
	yes := true
	return []api.OwnerReference{{APIVersion: tm.APIVersion, Kind: tm.Kind, Name: m.Name, UID: m.UID, BlockOwnerDeletion: &yes}}
}

// TestGarbageCollectorFollowsDefinitions: in a running plane, a custom
// kind defined after the start is collected both ways — a Gadget's pod
// and ConfigMap go with it (in the foreground: the Gadget waits for them),
// and a Gadget owned by a pod goes with the pod.
func TestGarbageCollectorFollowsDefinitions(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := planetest.Start(t, plane.Config{Seed: 3, Options: options(func(o *manager.Options) { o.Nodes = 1 })})
		srv, ctx := p.Server(), context.Background()
		var crd api.CustomResourceDefinition
		require.NoError(t, json.Unmarshal([]byte(gadgetCRD), &crd))
		_, err := srv.Create(ctx, &crd)
		require.NoError(t, err)

		gadget := func(name string, owners []api.OwnerReference) api.Object {
			obj, err := srv.Create(ctx, &api.Unstructured{
				TypeMeta: api.TypeMeta{APIVersion: "demo.example.com/v1", Kind: "Gadget"},
				Metadata: api.ObjectMeta{Namespace: "default", Name: name, OwnerReferences: owners},
			})
			require.NoError(t, err)
			return obj
		}
		owner := gadget("owner", nil)
		_, err = srv.Create(ctx, &api.Pod{Metadata: api.ObjectMeta{Namespace: "default", Name: "owned", OwnerReferences: ownedBy(owner)},
			Spec: api.PodSpec{Containers: []api.Container{{Name: "c", Image: "nginx"}}}})
		require.NoError(t, err)
		_, err = srv.Create(ctx, &api.ConfigMap{Metadata: api.ObjectMeta{Namespace: "default", Name: "owned", OwnerReferences: ownedBy(owner)}})
		require.NoError(t, err)
		pod, err := srv.Create(ctx, &api.Pod{Metadata: api.ObjectMeta{Namespace: "default", Name: "owner"},
			Spec: api.PodSpec{Containers: []api.Container{{Name: "c", Image: "nginx"}}}})
		require.NoError(t, err)
		gadget("owned", ownedBy(pod))
		synctest.Wait()

		foreground := api.DeletePropagationForeground
		_, err = srv.Delete(ctx, gadgets, "default", "owner", api.DeleteOptions{PropagationPolicy: &foreground})
		require.NoError(t, err)
		waitFor(t, "the gadget's pod and config map", func() bool {
			return !exists(t, srv, client.Pods, "owned") && !exists(t, srv, client.ConfigMaps, "owned")
		})
		waitFor(t, "the gadget, once its dependents went", func() bool { return !exists(t, srv, gadgets, "owner") })

		_, err = srv.Delete(ctx, client.Pods, "default", "owner", api.DeleteOptions{GracePeriodSeconds: new(int64)})
		require.NoError(t, err)
		waitFor(t, "the pod's gadget", func() bool { return !exists(t, srv, gadgets, "owned") })
	})
}
