package stock

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextensions "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/dynamic/dynamicinformer"
	"k8s.io/client-go/tools/cache"

	"github.com/miniplane/miniplane/interop/internal/planetest"
)

// crdKeys are the resources TestCustomResourcesWithStockClients covers, for
// TestEveryServedResourceHasACase.
var crdKeys = []string{
	"apiextensions.k8s.io/v1 customresourcedefinitions",
	"apiextensions.k8s.io/v1 customresourcedefinitions/status",
}

// widgetCRD is a kubebuilder-style CRD: namespaced, a status subresource,
// a default and a bound in its schema.
func widgetCRD() *apiextensionsv1.CustomResourceDefinition {
	minReplicas := float64(0)
	return &apiextensionsv1.CustomResourceDefinition{
		ObjectMeta: metav1.ObjectMeta{Name: "widgets.demo.example.com"},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group: "demo.example.com",
			Names: apiextensionsv1.CustomResourceDefinitionNames{Plural: "widgets", Singular: "widget", Kind: "Widget", ListKind: "WidgetList"},
			Scope: apiextensionsv1.NamespaceScoped,
			Versions: []apiextensionsv1.CustomResourceDefinitionVersion{{
				Name: "v1", Served: true, Storage: true,
				Subresources: &apiextensionsv1.CustomResourceSubresources{Status: &apiextensionsv1.CustomResourceSubresourceStatus{}},
				Schema: &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: &apiextensionsv1.JSONSchemaProps{
					Type: "object",
					Properties: map[string]apiextensionsv1.JSONSchemaProps{
						"spec": {Type: "object", Properties: map[string]apiextensionsv1.JSONSchemaProps{
							"replicas": {Type: "integer", Minimum: &minReplicas, Default: &apiextensionsv1.JSON{Raw: []byte("1")}},
							"color":    {Type: "string"},
						}},
						"status": {Type: "object", Properties: map[string]apiextensionsv1.JSONSchemaProps{
							"ready": {Type: "boolean"},
						}},
					},
				}},
			}},
		},
	}
}

// TestCustomResourcesWithStockClients installs a CRD with the stock
// apiextensions clientset, waits for it to be Established, and drives a
// custom resource through client-go's dynamic client and a dynamic shared
// informer: create (defaulted), get, list, update, merge patch, the status
// subresource (spec kept), a refused invalid object, delete; then deletes
// the CRD and sees the resource go from discovery.
func TestCustomResourcesWithStockClients(t *testing.T) {
	p, cs := start(t)
	cfg := p.Config()
	planetest.RequireStock(t, cfg)
	ext, err := apiextensions.NewForConfig(cfg)
	require.NoError(t, err)
	dyn, err := dynamic.NewForConfig(cfg)
	require.NoError(t, err)
	ctx := boundedContext(t)

	crds := ext.ApiextensionsV1().CustomResourceDefinitions()
	_, err = crds.Create(ctx, widgetCRD(), metav1.CreateOptions{})
	require.NoError(t, err)
	require.Eventually(t, func() bool {
		crd, err := crds.Get(ctx, "widgets.demo.example.com", metav1.GetOptions{})
		if err != nil {
			return false
		}
		for _, c := range crd.Status.Conditions {
			if c.Type == apiextensionsv1.Established && c.Status == apiextensionsv1.ConditionTrue {
				return true
			}
		}
		return false
	}, bound, 10*time.Millisecond, "the CRD is Established")
	assert.Contains(t, discover(t, cs), "demo.example.com/v1 widgets", "discovery lists the new resource")

	gvr := schema.GroupVersionResource{Group: "demo.example.com", Version: "v1", Resource: "widgets"}
	widgets := dyn.Resource(gvr).Namespace(metav1.NamespaceDefault)

	factory := dynamicinformer.NewDynamicSharedInformerFactory(dyn, 0)
	inf := factory.ForResource(gvr).Informer()
	seen := make(chan string, 16)
	_, err = inf.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    func(obj any) { seen <- "add " + obj.(*unstructured.Unstructured).GetName() },
		UpdateFunc: func(_, obj any) { seen <- "update " + obj.(*unstructured.Unstructured).GetName() },
		DeleteFunc: func(obj any) {
			if u, ok := obj.(*unstructured.Unstructured); ok {
				seen <- "delete " + u.GetName()
			}
		},
	})
	require.NoError(t, err)
	factory.Start(ctx.Done())
	require.True(t, cache.WaitForCacheSync(ctx.Done(), inf.HasSynced))

	w := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "demo.example.com/v1", "kind": "Widget",
		"metadata": map[string]any{"name": "w1"},
		"spec":     map[string]any{"color": "blue", "unknown": "pruned"},
	}}
	created, err := widgets.Create(ctx, w, metav1.CreateOptions{})
	require.NoError(t, err)
	replicas, _, _ := unstructured.NestedInt64(created.Object, "spec", "replicas")
	assert.Equal(t, int64(1), replicas, "defaulted from the schema")
	_, found, _ := unstructured.NestedString(created.Object, "spec", "unknown")
	assert.False(t, found, "an unknown field is pruned")
	assert.NotEmpty(t, created.GetUID())

	got, err := widgets.Get(ctx, "w1", metav1.GetOptions{})
	require.NoError(t, err)
	assert.Equal(t, created.GetResourceVersion(), got.GetResourceVersion())
	list, err := widgets.List(ctx, metav1.ListOptions{})
	require.NoError(t, err)
	assert.Len(t, list.Items, 1)

	require.NoError(t, unstructured.SetNestedField(got.Object, int64(3), "spec", "replicas"))
	updated, err := widgets.Update(ctx, got, metav1.UpdateOptions{})
	require.NoError(t, err)
	assert.Equal(t, int64(2), updated.GetGeneration(), "a spec change bumps the generation")

	patched, err := widgets.Patch(ctx, "w1", types.MergePatchType, []byte(`{"spec":{"color":"red"}}`), metav1.PatchOptions{})
	require.NoError(t, err)
	color, _, _ := unstructured.NestedString(patched.Object, "spec", "color")
	assert.Equal(t, "red", color)

	require.NoError(t, unstructured.SetNestedField(patched.Object, true, "status", "ready"))
	require.NoError(t, unstructured.SetNestedField(patched.Object, "green", "spec", "color"))
	status, err := widgets.UpdateStatus(ctx, patched, metav1.UpdateOptions{})
	require.NoError(t, err)
	ready, _, _ := unstructured.NestedBool(status.Object, "status", "ready")
	assert.True(t, ready)
	color, _, _ = unstructured.NestedString(status.Object, "spec", "color")
	assert.Equal(t, "red", color, "a status write keeps the spec")
	assert.Equal(t, patched.GetGeneration(), status.GetGeneration(), "a status write does not bump the generation")

	bad := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "demo.example.com/v1", "kind": "Widget",
		"metadata": map[string]any{"name": "bad"},
		"spec":     map[string]any{"replicas": int64(-1)},
	}}
	_, err = widgets.Create(ctx, bad, metav1.CreateOptions{})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "spec.replicas")

	require.NoError(t, widgets.Delete(ctx, "w1", metav1.DeleteOptions{}))
	want := map[string]bool{"add w1": false, "update w1": false, "delete w1": false}
	timeout := time.After(bound)
	for !want["add w1"] || !want["update w1"] || !want["delete w1"] {
		select {
		case s := <-seen:
			want[s] = true
		case <-timeout:
			t.Fatalf("the dynamic informer saw only %v", want)
		}
	}

	require.NoError(t, crds.Delete(ctx, "widgets.demo.example.com", metav1.DeleteOptions{}))
	require.Eventually(t, func() bool {
		_, ok := discover(t, cs)["demo.example.com/v1 widgets"]
		return !ok
	}, bound, 10*time.Millisecond, "the resource leaves discovery with its CRD")
}
