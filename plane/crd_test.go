package plane_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/assert"
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

// widgetYAML is a definition as controller-gen writes one: block YAML with
// descriptions over several lines, after a comment and a "---".
const widgetYAML = `# generated
---
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  annotations:
    controller-gen.kubebuilder.io/version: v0.16.4
  name: widgets.demo.example.com
spec:
  group: demo.example.com
  names:
    kind: Widget
    listKind: WidgetList
    plural: widgets
    singular: widget
  scope: Namespaced
  versions:
  - name: v1
    schema:
      openAPIV3Schema:
        description: Widget is the Schema for the widgets API.
        properties:
          apiVersion:
            description: |-
              APIVersion defines the versioned schema of this representation of an object.
              Servers should convert recognized values to the latest internal value, and
              may reject unrecognized values.
            type: string
          kind:
            type: string
          metadata:
            type: object
          spec:
            properties:
              size:
                default: small
                type: string
            type: object
        type: object
    served: true
    storage: true
    subresources:
      status: {}
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: not-a-definition
`

func crdJSON(plural, kind string) string {
	return `{"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
  "metadata": {"name": "` + plural + `.demo.example.com"},
  "spec": {"group": "demo.example.com", "scope": "Cluster",
    "names": {"plural": "` + plural + `", "kind": "` + kind + `"},
    "versions": [{"name": "v1", "served": true, "storage": true,
      "schema": {"openAPIV3Schema": {"type": "object"}}}]}}`
}

// writeFiles writes name → content under a new directory and returns it.
func writeFiles(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(content), 0o600))
	}
	return dir
}

// TestConfigCRDs: the definitions of Config.CRDs are served when New
// returns, read from a directory (YAML with several documents, JSON, a
// List; other files and kinds skipped) or a file; a bad one fails New
// with the file's name and kube-apiserver's message.
func TestConfigCRDs(t *testing.T) {
	list := `{"apiVersion": "v1", "kind": "List", "items": [` + crdJSON("sprockets", "Sprocket") + `,` + crdJSON("cogs", "Cog") + `]}`
	for _, tc := range []struct {
		name    string
		files   map[string]string
		file    string // a file of files to name instead of the directory
		want    []string
		wantErr string
	}{
		{name: "a directory", files: map[string]string{
			"widgets.yaml": widgetYAML, "gadgets.json": gadgetCRD, "more.yml": list, "README.md": "# not read",
		}, want: []string{gadgets, "widgets.demo.example.com", "sprockets.demo.example.com", "cogs.demo.example.com"}},
		{name: "a file", files: map[string]string{"widgets.yaml": widgetYAML, "gadgets.json": gadgetCRD},
			file: "widgets.yaml", want: []string{"widgets.demo.example.com"}},
		{name: "JSON objects one after the other", files: map[string]string{"two.json": crdJSON("cogs", "Cog") + "\n" + gadgetCRD},
			want: []string{"cogs.demo.example.com", gadgets}},
		{name: "a definition refused", files: map[string]string{"bad.yaml": strings.ReplaceAll(widgetYAML, "group: demo.example.com", "group: demo")},
			wantErr: `bad.yaml: CustomResourceDefinition.apiextensions.k8s.io "widgets.demo.example.com" is invalid: [metadata.name: Invalid value: "widgets.demo.example.com": must be spec.names.plural+"."+spec.group, spec.group: Invalid value: "demo": should be a domain with at least one dot]`},
		{name: "YAML that does not parse", files: map[string]string{"bad.yaml": "kind: CustomResourceDefinition\n  spec: 1\n"},
			wantErr: "bad.yaml: document 1: yaml: line 2: mapping values are not allowed in this context"},
		{name: "an old version", files: map[string]string{"old.yaml": strings.ReplaceAll(widgetYAML, "apiextensions.k8s.io/v1", "apiextensions.k8s.io/v1beta1")},
			wantErr: `old.yaml: document 1: no matches for kind "CustomResourceDefinition" in version "apiextensions.k8s.io/v1beta1"`},
		{name: "no definition", files: map[string]string{"README.md": "#"}, wantErr: "no CustomResourceDefinition found"},
		{name: "a path that is not there", file: "missing.yaml", wantErr: "missing.yaml: no such file or directory"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := writeFiles(t, tc.files)
			if tc.file != "" {
				path = filepath.Join(path, tc.file)
			}
			p, err := plane.New(plane.Config{CRDs: []string{path}})
			if tc.wantErr != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tc.wantErr)
				return
			}
			require.NoError(t, err)
			for _, res := range tc.want {
				_, ok := p.Server().Resource(res)
				assert.True(t, ok, "%s is served", res)
			}
		})
	}
}

// TestPlanetestStartsWithCRDs: a test's plane serves its definitions the
// moment planetest.Start returns, defaults included.
func TestPlanetestStartsWithCRDs(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		dir := writeFiles(t, map[string]string{"widgets.yaml": widgetYAML})
		p := planetest.Start(t, plane.Config{CRDs: []string{dir}, Options: options(func(o *manager.Options) { o.Nodes = 0 })})
		obj, err := p.Server().Create(context.Background(), &api.Unstructured{
			TypeMeta: api.TypeMeta{APIVersion: "demo.example.com/v1", Kind: "Widget"},
			Metadata: api.ObjectMeta{Namespace: "default", Name: "w"},
			Content:  api.JSONObject{"spec": map[string]any{}},
		})
		require.NoError(t, err)
		assert.Equal(t, map[string]any{"size": "small"}, obj.(*api.Unstructured).Content["spec"], "defaulted by the schema")
	})
}
