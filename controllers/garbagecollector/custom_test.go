package garbagecollector

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/api/apierrors"
	"github.com/miniplane/miniplane/client"
)

// widgetCRD defines namespaced Widgets of demo.example.com/v1.
const widgetCRD = `{
  "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
  "metadata": {"name": "widgets.demo.example.com"},
  "spec": {
    "group": "demo.example.com", "scope": "Namespaced",
    "names": {"plural": "widgets", "singular": "widget", "kind": "Widget"},
    "versions": [{"name": "v1", "served": true, "storage": true,
      "schema": {"openAPIV3Schema": {"type": "object", "x-kubernetes-preserve-unknown-fields": true}}}]
  }
}`

const widgets = "widgets.demo.example.com"

func newCustomEnv(t *testing.T) *env {
	t.Helper()
	return newEnvConfig(t, Config{CustomResources: true}, false)
}

func (e *env) createWidgetCRD() {
	e.t.Helper()
	var crd api.CustomResourceDefinition
	require.NoError(e.t, json.Unmarshal([]byte(widgetCRD), &crd))
	_, err := e.srv.Create(e.ctx, &crd)
	require.NoError(e.t, err)
}

// createWidget creates Widget name owned by owners.
func (e *env) createWidget(name string, owners ...api.OwnerReference) *api.Unstructured {
	e.t.Helper()
	obj, err := e.srv.Create(e.ctx, &api.Unstructured{
		TypeMeta: api.TypeMeta{APIVersion: "demo.example.com/v1", Kind: "Widget"},
		Metadata: api.ObjectMeta{Namespace: "default", Name: name, OwnerReferences: owners},
		Content:  api.JSONObject{"spec": map[string]any{"size": "small"}},
	})
	require.NoError(e.t, err)
	return obj.(*api.Unstructured)
}

func (e *env) exists(resource, name string) bool {
	e.t.Helper()
	_, err := e.srv.Get(e.ctx, resource, "default", name, client.GetOptions{})
	if apierrors.IsNotFound(err) {
		return false
	}
	require.NoError(e.t, err)
	return true
}

func (e *env) createConfigMap(name string, owners ...api.OwnerReference) {
	e.t.Helper()
	_, err := e.srv.Create(e.ctx, &api.ConfigMap{Metadata: api.ObjectMeta{Namespace: "default", Name: name, OwnerReferences: owners}})
	require.NoError(e.t, err)
}

// TestCustomResourceOwnsObjects: a Widget owns two pods and a ConfigMap;
// deleting it carries out each propagation policy, as for a built-in owner.
func TestCustomResourceOwnsObjects(t *testing.T) {
	for _, tc := range []struct {
		name   string
		policy api.DeletionPropagation
		// wantDependents: the dependents are still there at the end (and
		// no longer name the widget).
		wantDependents bool
		wantWrites     []string
	}{
		{name: "background", policy: api.DeletePropagationBackground, wantWrites: []string{
			"delete configmaps default/w-config", "delete pods default/w-0", "delete pods default/w-1"}},
		{name: "foreground", policy: api.DeletePropagationForeground, wantWrites: []string{
			"delete configmaps default/w-config", "delete pods default/w-0", "delete pods default/w-1",
			"update Widget default/w"}},
		{name: "orphan", policy: api.DeletePropagationOrphan, wantDependents: true, wantWrites: []string{
			"update ConfigMap default/w-config", "update Pod default/w-0", "update Pod default/w-1",
			"update Widget default/w"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newCustomEnv(t)
			e.createWidgetCRD()
			w := e.createWidget("w")
			for i := range 2 {
				e.createPod(fmt.Sprintf("w-%d", i), "", ref(w))
			}
			e.createConfigMap("w-config", plainRef(w))
			e.settle()
			require.Empty(t, e.client.Writes(), "the dependents of a live widget stay")

			_, err := e.srv.Delete(e.ctx, widgets, "default", "w", api.DeleteOptions{PropagationPolicy: &tc.policy})
			require.NoError(t, err)
			e.settle()

			assert.False(t, e.exists(widgets, "w"), "the widget is gone")
			for _, d := range []struct{ resource, name string }{{client.Pods, "w-0"}, {client.Pods, "w-1"}, {client.ConfigMaps, "w-config"}} {
				assert.Equal(t, tc.wantDependents, e.exists(d.resource, d.name), "%s %s", d.resource, d.name)
				if tc.wantDependents {
					obj, err := e.srv.Get(e.ctx, d.resource, "default", d.name, client.GetOptions{})
					require.NoError(t, err)
					assert.Empty(t, obj.GetObjectMeta().OwnerReferences, "%s %s is orphaned", d.resource, d.name)
				}
			}
			assert.ElementsMatch(t, tc.wantWrites, e.client.Writes())
		})
	}
}

// TestCustomResourceDependents: custom resources as dependents, and owners
// whose definition comes or goes while they are named.
func TestCustomResourceDependents(t *testing.T) {
	for _, tc := range []struct {
		name string
		// act changes the world once the definition is in and settled
		// (except where setup says otherwise); gone are the objects
		// then expected absent, kept those expected present.
		setup      func(e *env)
		act        func(e *env)
		gone, kept []string
	}{
		{
			name: "a pod owns a widget",
			setup: func(e *env) {
				e.createWidgetCRD()
				e.createWidget("w", ref(e.createPod("owner", "")))
			},
			act:  func(e *env) { e.deletePod("owner") },
			gone: []string{"widgets/w"},
		},
		{
			name: "a widget owns a widget owns a pod",
			setup: func(e *env) {
				e.createWidgetCRD()
				top := e.createWidget("top")
				e.createPod("p", "", ref(e.createWidget("mid", ref(top))))
			},
			act:  func(e *env) { e.deleteWidget("top") },
			gone: []string{"widgets/mid", "pods/p"},
		},
		{
			name: "the definition goes with its widgets",
			setup: func(e *env) {
				e.createWidgetCRD()
				e.createPod("p", "", ref(e.createWidget("w")))
				e.createPod("other", "")
			},
			act: func(e *env) {
				_, err := e.srv.Delete(e.ctx, client.CustomResourceDefinitions, "", widgets, api.DeleteOptions{})
				require.NoError(e.t, err)
			},
			gone: []string{"pods/p"},
			kept: []string{"pods/other"},
		},
		{
			name: "an owner named before its definition, never created",
			setup: func(e *env) {
				e.createPod("p", "", api.OwnerReference{APIVersion: "demo.example.com/v1", Kind: "Widget", Name: "ghost", UID: "ghost-uid"})
				e.settle()
				require.True(e.t, e.exists(client.Pods, "p"), "an owner of a kind not served is taken to exist")
			},
			act:  func(e *env) { e.createWidgetCRD() },
			gone: []string{"pods/p"},
		},
		{
			name: "an owner named before its definition, created with it",
			setup: func(e *env) {
				e.createPod("p", "", api.OwnerReference{APIVersion: "demo.example.com/v1", Kind: "Widget", Name: "w", UID: "w-uid"})
				e.settle()
			},
			act: func(e *env) {
				e.createWidgetCRD()
				e.createWidget("w")
			},
			// The widget made has another UID than the reference's: the
			// reference dangles, and the pod goes.
			gone: []string{"pods/p"},
			kept: []string{"widgets/w"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newCustomEnv(t)
			tc.setup(e)
			e.settle()
			tc.act(e)
			e.settle()
			for _, g := range tc.gone {
				res, name := splitRef(g)
				assert.False(t, e.exists(res, name), "%s is collected", g)
			}
			for _, k := range tc.kept {
				res, name := splitRef(k)
				assert.True(t, e.exists(res, name), "%s stays", k)
			}
		})
	}
}

func splitRef(s string) (resource, name string) {
	resource, name, found := strings.Cut(s, "/")
	if !found {
		panic("not resource/name: " + s)
	}
	if resource == "widgets" {
		resource = widgets
	}
	return resource, name
}

func (e *env) deletePod(name string) {
	e.t.Helper()
	_, err := e.srv.Delete(e.ctx, client.Pods, "default", name, api.DeleteOptions{GracePeriodSeconds: new(int64)})
	require.NoError(e.t, err)
}

func (e *env) deleteWidget(name string) {
	e.t.Helper()
	_, err := e.srv.Delete(e.ctx, widgets, "default", name, api.DeleteOptions{})
	require.NoError(e.t, err)
}
