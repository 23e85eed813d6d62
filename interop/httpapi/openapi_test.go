package httpapi

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/openapi3"
	"k8s.io/kube-openapi/pkg/util/proto"
	"k8s.io/kube-openapi/pkg/util/proto/validation"
)

// gvksOf reads an x-kubernetes-group-version-kind extension as
// kube-openapi's YAML decoding leaves it: a list of maps.
func gvksOf(ext any) []schema.GroupVersionKind {
	list, _ := ext.([]any)
	var out []schema.GroupVersionKind
	for _, e := range list {
		get := func(string) string { return "" }
		switch m := e.(type) {
		case map[any]any:
			get = func(k string) string { return fmt.Sprint(m[k]) }
		case map[string]any:
			get = func(k string) string { return fmt.Sprint(m[k]) }
		}
		out = append(out, schema.GroupVersionKind{Group: get("group"), Version: get("version"), Kind: get("kind")})
	}
	return out
}

// modelsByGVK indexes the v2 models by the kinds they are the schema of,
// as kubectl's openapi.Resources does.
func modelsByGVK(models proto.Models) map[schema.GroupVersionKind]proto.Schema {
	out := map[schema.GroupVersionKind]proto.Schema{}
	for _, name := range models.ListModels() {
		m := models.LookupModel(name)
		for _, gvk := range gvksOf(m.GetExtensions()["x-kubernetes-group-version-kind"]) {
			out[gvk] = m
		}
	}
	return out
}

// knownRefusals are the fixtures that Kubernetes' own schemas refuse too:
// a core/v1 Event read through events.k8s.io/v1 has a null eventTime,
// which that version requires (kube-apiserver's schema says so as well;
// its validation requires it on create only).
var knownRefusals = map[string]string{
	"eventsv1-event.json": `missing required field "eventTime" in io.k8s.api.events.v1.Event`,
}

// TestOpenAPIV2WithClientGo reads /openapi/v2 as kubectl does (client-go's
// discovery asks for gnostic's protobuf; kube-openapi parses it into the
// models that validation walks), finds a model for every served kind, and
// validates the api package's JSON fixtures, which are in Kubernetes'
// shape, against them: the schemas accept what the server stores (but
// for knownRefusals), and refuse a field it does not know.
func TestOpenAPIV2WithClientGo(t *testing.T) {
	srv, cs := serve(t)
	doc, err := cs.Discovery().OpenAPISchema()
	require.NoError(t, err)
	assert.Equal(t, "2.0", doc.GetSwagger())
	models, err := proto.NewOpenAPIData(doc)
	require.NoError(t, err)
	byGVK := modelsByGVK(models)
	for _, r := range srv.Resources() {
		assert.Contains(t, byGVK, schema.GroupVersionKind{Group: r.Group, Version: r.Version, Kind: r.Kind})
	}

	fixtures, err := filepath.Glob(filepath.Join("..", "..", "api", "testdata", "*.json"))
	require.NoError(t, err)
	validated := 0
	for _, path := range fixtures {
		data, err := os.ReadFile(path)
		require.NoError(t, err)
		var obj map[string]any
		require.NoError(t, json.Unmarshal(data, &obj))
		apiVersion, _ := obj["apiVersion"].(string)
		kind, _ := obj["kind"].(string)
		gv, err := schema.ParseGroupVersion(apiVersion)
		require.NoError(t, err)
		model, ok := byGVK[gv.WithKind(kind)]
		if !ok {
			continue // a list, a Status, a watch event: not a served kind
		}
		t.Run(filepath.Base(path), func(t *testing.T) {
			errs := validation.ValidateModel(obj, model, kind)
			want, ok := knownRefusals[filepath.Base(path)]
			if !ok {
				assert.Empty(t, errs)
				return
			}
			require.Len(t, errs, 1)
			assert.Contains(t, errs[0].Error(), want)
		})
		validated++
	}
	assert.GreaterOrEqual(t, validated, 8, "the fixtures of the served kinds")

	pod := map[string]any{
		"apiVersion": "v1", "kind": "Pod", "metadata": map[string]any{"name": "p"},
		"spec": map[string]any{"containers": []any{map[string]any{"name": "c", "image": "nginx", "imagee": "typo"}}},
	}
	errs := validation.ValidateModel(pod, byGVK[schema.GroupVersionKind{Version: "v1", Kind: "Pod"}], "Pod")
	require.Len(t, errs, 1)
	assert.Contains(t, errs[0].Error(), `unknown field "imagee" in io.k8s.api.core.v1.Container`)
}

// TestOpenAPIV3WithClientGo reads /openapi/v3 through client-go's openapi3
// root, as kubectl's validation and apply do: every served group version
// parses into kube-openapi's spec3 types with its kinds' schemas, and a
// group version the server does not serve is GroupVersionNotFoundError,
// which is what makes kubectl fall back to /openapi/v2 for it.
func TestOpenAPIV3WithClientGo(t *testing.T) {
	srv, cs := serve(t)
	root := openapi3.NewRoot(cs.Discovery().OpenAPIV3())
	gvs, err := root.GroupVersions()
	require.NoError(t, err)
	var want []schema.GroupVersion
	kinds := map[schema.GroupVersion][]string{}
	for _, r := range srv.Resources() {
		gv := schema.GroupVersion{Group: r.Group, Version: r.Version}
		if len(kinds[gv]) == 0 {
			want = append(want, gv)
		}
		kinds[gv] = append(kinds[gv], r.Kind)
	}
	assert.ElementsMatch(t, want, gvs)
	for _, gv := range gvs {
		spec, err := root.GVSpec(gv)
		require.NoError(t, err, gv)
		found := map[string]bool{}
		for _, s := range spec.Components.Schemas {
			for _, gvk := range gvksOf(asAnyList(s.Extensions["x-kubernetes-group-version-kind"])) {
				found[gvk.Kind] = gvk.GroupVersion() == gv
			}
		}
		for _, kind := range kinds[gv] {
			assert.True(t, found[kind], "%s has the schema of %s", gv, kind)
		}
	}
	_, err = root.GVSpec(schema.GroupVersion{Group: "autoscaling", Version: "v2beta2"})
	var notFound *openapi3.GroupVersionNotFoundError
	assert.ErrorAs(t, err, &notFound)
}

// asAnyList turns a spec3 extension (decoded by encoding/json) into the
// []any of maps that gvksOf reads.
func asAnyList(v any) any {
	b, err := json.Marshal(v)
	if err != nil {
		return nil
	}
	var out []any
	if json.Unmarshal(b, &out) != nil {
		return nil
	}
	return out
}
