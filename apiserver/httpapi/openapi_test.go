package httpapi_test

import (
	"encoding/json"
	"maps"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/protobuf/encoding/protowire"

	"github.com/miniplane/miniplane/apiserver"
)

// v3 and v2 media types kubectl asks for.
const (
	acceptV2Protobuf = "application/com.github.proto-openapi.spec.v2@v1.0+protobuf"
	v2ProtobufType   = "application/com.github.proto-openapi.spec.v2.v1.0+protobuf"
)

type openAPIIndex struct {
	Paths map[string]struct {
		ServerRelativeURL string `json:"serverRelativeURL"`
	} `json:"paths"`
}

type gvk struct {
	Group   string `json:"group"`
	Version string `json:"version"`
	Kind    string `json:"kind"`
}

type openAPIOperation struct {
	GVK        *gvk `json:"x-kubernetes-group-version-kind"`
	Parameters []struct {
		Name, In string
	} `json:"parameters"`
	RequestBody any `json:"requestBody"`
	Responses   map[string]struct {
		Content map[string]struct {
			Schema struct {
				Ref string `json:"$ref"`
			} `json:"schema"`
		} `json:"content"`
	} `json:"responses"`
}

type openAPIDoc struct {
	OpenAPI string `json:"openapi"`
	Paths   map[string]struct {
		Get   *openAPIOperation `json:"get"`
		Patch *openAPIOperation `json:"patch"`
	} `json:"paths"`
	Components struct {
		Schemas map[string]json.RawMessage `json:"schemas"`
	} `json:"components"`
}

// servedPaths returns the served group versions' paths ("api/v1") and
// their resources.
func servedPaths(srv *apiserver.Server) map[string][]apiserver.ResourceInfo {
	out := map[string][]apiserver.ResourceInfo{}
	for _, r := range srv.Resources() {
		path := "api/" + r.Version
		if r.Group != "" {
			path = "apis/" + r.Group + "/" + r.Version
		}
		out[path] = append(out[path], r)
	}
	return out
}

// fetchIndex returns the /openapi/v3 index.
func fetchIndex(t *testing.T, f *fixture) openAPIIndex {
	t.Helper()
	rec := f.do(t, request{path: "/openapi/v3"})
	require.Equal(t, http.StatusOK, rec.Code)
	assert.Equal(t, "application/json", rec.Header().Get("Content-Type"))
	assert.NotEmpty(t, rec.Header().Get("Etag"))
	var idx openAPIIndex
	require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &idx))
	return idx
}

// TestOpenAPIIndex checks that the index lists every served group version,
// each at a URL carrying its document's hash, and that another handler
// builds the same documents.
func TestOpenAPIIndex(t *testing.T) {
	f := newFixture(t, nil)
	idx := fetchIndex(t, f)
	served := servedPaths(f.srv)
	assert.ElementsMatch(t, slices.Collect(maps.Keys(served)), slices.Collect(maps.Keys(idx.Paths)))
	for path, entry := range idx.Paths {
		assert.Regexp(t, "^/openapi/v3/"+regexp.QuoteMeta(path)+`\?hash=[0-9A-F]{128}$`, entry.ServerRelativeURL)
	}
	assert.Equal(t, idx, fetchIndex(t, newFixture(t, nil)), "the documents are the same on every start, so cached copies stay valid")
}

// TestOpenAPIDocuments fetches every group version's document as kubectl
// does and checks what explain and validation read from it: one schema per
// served kind marked with its group, version and kind; the kind's object
// path with GET and PATCH operations, PATCH taking fieldValidation and
// having no requestBody; every $ref resolving in the document; and a
// description on every schema and property (from the api doc comments).
func TestOpenAPIDocuments(t *testing.T) {
	f := newFixture(t, nil)
	idx := fetchIndex(t, f)
	for path, resources := range servedPaths(f.srv) {
		t.Run(path, func(t *testing.T) {
			url := idx.Paths[path].ServerRelativeURL
			rec := f.do(t, request{path: url, header: map[string]string{"Accept": "application/json"}})
			require.Equal(t, http.StatusOK, rec.Code)
			assert.Equal(t, "application/json", rec.Header().Get("Content-Type"))
			assert.Equal(t, "public, immutable", rec.Header().Get("Cache-Control"), "a URL with the hash never changes")
			assert.Equal(t, epoch.AddDate(1, 0, 0).Format(http.TimeFormat), rec.Header().Get("Expires"))
			_, hash, _ := strings.Cut(url, "?hash=")
			assert.Equal(t, strconv.Quote(hash), rec.Header().Get("Etag"))

			var doc openAPIDoc
			require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &doc))
			assert.Equal(t, "3.0.0", doc.OpenAPI)
			schemas := map[string]map[string]any{}
			for name, raw := range doc.Components.Schemas {
				var s map[string]any
				require.NoError(t, json.Unmarshal(raw, &s))
				schemas[name] = s
			}
			for _, r := range resources {
				want := gvk{Group: r.Group, Version: r.Version, Kind: r.Kind}
				var named []string
				for name, raw := range doc.Components.Schemas {
					var s struct {
						GVK []gvk `json:"x-kubernetes-group-version-kind"`
					}
					require.NoError(t, json.Unmarshal(raw, &s))
					if slices.Contains(s.GVK, want) {
						named = append(named, name)
					}
				}
				require.Len(t, named, 1, "one schema is %v", want)

				objectPath := "/" + path + "/" + r.Resource + "/{name}"
				if r.Namespaced {
					objectPath = "/" + path + "/namespaces/{namespace}/" + r.Resource + "/{name}"
				}
				item, ok := doc.Paths[objectPath]
				require.True(t, ok, objectPath)
				for _, op := range []*openAPIOperation{item.Get, item.Patch} {
					require.NotNil(t, op)
					assert.Equal(t, &want, op.GVK)
					assert.Equal(t, "#/components/schemas/"+named[0], op.Responses["200"].Content["application/json"].Schema.Ref)
				}
				var params []string
				for _, p := range item.Patch.Parameters {
					params = append(params, p.In+":"+p.Name)
				}
				assert.Contains(t, params, "query:fieldValidation")
				assert.Nil(t, item.Patch.RequestBody, "no patch schema: kubectl builds the patch from its own")
			}
			for name, s := range schemas {
				assert.NotEmpty(t, s["description"], "schema %s has a description", name)
				props, _ := s["properties"].(map[string]any)
				for prop, p := range props {
					assert.NotEmpty(t, p.(map[string]any)["description"], "%s.%s has a description: document the api field", name, prop)
				}
				for _, ref := range refsIn(s) {
					target, ok := strings.CutPrefix(ref, "#/components/schemas/")
					assert.True(t, ok, ref)
					assert.Contains(t, schemas, target, "%s refers to a schema of the document", name)
				}
			}
		})
	}
}

// refsIn returns every $ref in a JSON value.
func refsIn(v any) []string {
	var out []string
	switch v := v.(type) {
	case map[string]any:
		for k, e := range v {
			if ref, ok := e.(string); ok && k == "$ref" {
				out = append(out, ref)
			}
			out = append(out, refsIn(e)...)
		}
	case []any:
		for _, e := range v {
			out = append(out, refsIn(e)...)
		}
	}
	return out
}

// keysIn returns every object key in a JSON value.
func keysIn(v any) map[string]bool {
	out := map[string]bool{}
	switch v := v.(type) {
	case map[string]any:
		for k, e := range v {
			out[k] = true
			maps.Copy(out, keysIn(e))
		}
	case []any:
		for _, e := range v {
			maps.Copy(out, keysIn(e))
		}
	}
	return out
}

// TestOpenAPICaching checks the answers to a cached document: the current
// hash is served for good, an old one is redirected to the current URL,
// and a request naming the current ETag gets 304 with no body.
func TestOpenAPICaching(t *testing.T) {
	f := newFixture(t, nil)
	url := fetchIndex(t, f).Paths["api/v1"].ServerRelativeURL
	_, hash, _ := strings.Cut(url, "?hash=")
	tests := []struct {
		name         string
		path         string
		header       map[string]string
		wantCode     int
		wantLocation string
		wantBody     bool
		wantForGood  bool
	}{
		{name: "current hash", path: url, wantCode: http.StatusOK, wantBody: true, wantForGood: true},
		{name: "old hash", path: "/openapi/v3/api/v1?hash=0123", wantCode: http.StatusMovedPermanently, wantLocation: url},
		{name: "no hash", path: "/openapi/v3/api/v1", wantCode: http.StatusOK, wantBody: true},
		{name: "not modified", path: "/openapi/v3/api/v1", header: map[string]string{"If-None-Match": strconv.Quote(hash)}, wantCode: http.StatusNotModified},
		{name: "modified", path: "/openapi/v3/api/v1", header: map[string]string{"If-None-Match": `"0123"`}, wantCode: http.StatusOK, wantBody: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := f.do(t, request{path: tt.path, header: tt.header})
			require.Equal(t, tt.wantCode, rec.Code)
			assert.Equal(t, tt.wantLocation, rec.Header().Get("Location"))
			if tt.wantBody {
				assert.Contains(t, rec.Body.String(), `"openapi":"3.0.0"`)
				assert.Equal(t, strconv.Quote(hash), rec.Header().Get("Etag"))
			}
			if tt.wantCode == http.StatusNotModified {
				assert.Empty(t, rec.Body.String())
			}
			assert.Equal(t, tt.wantForGood, rec.Header().Get("Cache-Control") == "public, immutable")
		})
	}
}

// TestOpenAPIRefusals checks the requests the OpenAPI paths refuse, each
// with a Status naming what was wrong.
func TestOpenAPIRefusals(t *testing.T) {
	f := newFixture(t, nil)
	tests := []struct {
		name, method, path, accept string
		wantCode                   int
		wantMessage                string
	}{
		{name: "unserved group version", path: "/openapi/v3/apis/autoscaling/v2beta2", wantCode: http.StatusNotFound, wantMessage: "the server could not find the requested resource"},
		{name: "unknown version of OpenAPI", path: "/openapi/v4", wantCode: http.StatusNotFound, wantMessage: "the server could not find the requested resource"},
		{name: "v3 in protobuf", path: "/openapi/v3/api/v1", accept: "application/com.github.proto-openapi.spec.v3.v1.0+protobuf", wantCode: http.StatusNotAcceptable,
			wantMessage: "OpenAPI v3 documents are served as application/json only"},
		{name: "v2 in yaml", path: "/openapi/v2", accept: "application/yaml", wantCode: http.StatusNotAcceptable,
			wantMessage: "/openapi/v2 is served as application/json and " + v2ProtobufType},
		{name: "post", method: http.MethodPost, path: "/openapi/v3", wantCode: http.StatusMethodNotAllowed, wantMessage: "is not supported"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := request{method: tt.method, path: tt.path}
			if tt.accept != "" {
				r.header = map[string]string{"Accept": tt.accept}
			}
			rec := f.do(t, r)
			require.Equal(t, tt.wantCode, rec.Code)
			st := statusOf(t, rec)
			assert.Equal(t, int32(tt.wantCode), st.Code)
			assert.Contains(t, st.Message, tt.wantMessage)
		})
	}
}

// TestOpenAPIV2 checks the Swagger 2.0 document: in JSON, the union of
// the v3 documents' schemas in v2's form (references into #/definitions/,
// no allOf or oneOf, which kubectl's v2 parser refuses); in protobuf, as
// client-go asks for it, the same definitions in gnostic's Document.
func TestOpenAPIV2(t *testing.T) {
	f := newFixture(t, nil)
	idx := fetchIndex(t, f)
	v3Names := map[string]bool{}
	for _, entry := range idx.Paths {
		rec := f.do(t, request{path: entry.ServerRelativeURL})
		require.Equal(t, http.StatusOK, rec.Code)
		var doc openAPIDoc
		require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &doc))
		for name := range doc.Components.Schemas {
			v3Names[name] = true
		}
	}

	rec := f.do(t, request{path: "/openapi/v2", header: map[string]string{"Accept": "application/json"}})
	require.Equal(t, http.StatusOK, rec.Code)
	assert.Equal(t, "application/json", rec.Header().Get("Content-Type"))
	jsonETag := rec.Header().Get("Etag")
	var doc struct {
		Swagger     string                    `json:"swagger"`
		Definitions map[string]map[string]any `json:"definitions"`
	}
	require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &doc))
	assert.Equal(t, "2.0", doc.Swagger)
	v2Names := map[string]bool{}
	for name := range doc.Definitions {
		v2Names[name] = true
	}
	assert.Equal(t, v3Names, v2Names)
	for name, def := range doc.Definitions {
		keys := keysIn(def)
		// JSONSchemaProps has properties named allOf and oneOf.
		assert.False(t, (keys["allOf"] || keys["oneOf"]) && !strings.HasSuffix(name, ".JSONSchemaProps"), "%s is in v2's form", name)
		for _, ref := range refsIn(def) {
			target, ok := strings.CutPrefix(ref, "#/definitions/")
			assert.True(t, ok, ref)
			assert.Contains(t, doc.Definitions, target)
		}
	}

	rec = f.do(t, request{path: "/openapi/v2", header: map[string]string{"Accept": acceptV2Protobuf}})
	require.Equal(t, http.StatusOK, rec.Code)
	assert.Equal(t, v2ProtobufType, rec.Header().Get("Content-Type"), "a media type Go's mime package parses")
	assert.NotEqual(t, jsonETag, rec.Header().Get("Etag"))
	swagger, defNames := readV2Protobuf(t, rec.Body.Bytes())
	assert.Equal(t, "2.0", swagger)
	assert.Equal(t, slices.Sorted(maps.Keys(doc.Definitions)), defNames, "the same definitions, in name order")
}

// readV2Protobuf reads a gnostic openapi_v2.Document's swagger version
// (field 1) and the names of its definitions (field 9: Definitions,
// whose field 1 is a NamedSchema with the name in its field 1).
func readV2Protobuf(t *testing.T, b []byte) (string, []string) {
	t.Helper()
	var swagger string
	var names []string
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		require.GreaterOrEqual(t, n, 0)
		b = b[n:]
		n = protowire.ConsumeFieldValue(num, typ, b)
		require.GreaterOrEqual(t, n, 0)
		value := b[:n]
		b = b[n:]
		switch num {
		case 1:
			s, _ := protowire.ConsumeString(value)
			swagger = s
		case 9:
			defs, _ := protowire.ConsumeBytes(value)
			for len(defs) > 0 {
				_, _, n := protowire.ConsumeTag(defs)
				named, m := protowire.ConsumeBytes(defs[n:])
				require.GreaterOrEqual(t, m, 0)
				defs = defs[n+m:]
				_, _, k := protowire.ConsumeTag(named)
				name, _ := protowire.ConsumeString(named[k:])
				names = append(names, name)
			}
		}
	}
	return swagger, names
}
