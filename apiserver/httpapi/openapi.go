package httpapi

import (
	"crypto/sha512"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/miniplane/miniplane/api/apierrors"
	"github.com/miniplane/miniplane/apiserver"
)

// The OpenAPI documents of the served kinds, as kube-apiserver serves them
// (k8s.io/kube-openapi's handler3 and handler): /openapi/v3 is an index of
// the group versions, /openapi/v3/{group version path} a document per
// group version whose components.schemas hold the kinds' schemas (built
// from package api's types, see openapi_schema.go), and /openapi/v2 one
// Swagger 2.0 document of every schema, in JSON or in gnostic's protobuf
// (openapi_v2.go).
//
// kubectl reads them for three things. explain renders a kind's schema
// from its group version's v3 document. Validation (--validate=strict, the
// default) asks the v3 document whether the kind's PATCH operation takes
// the fieldValidation parameter, and leaves validation to the server when
// it does; for a kind with no v3 document (one the server does not serve)
// it validates against the v2 document instead, which has no schema for
// it, so the object goes on to kubectl's REST mapping and fails there
// with `no matches for kind "Deployment" in version "apps/v1"`. Client-side
// apply builds its strategic merge patch from the PATCH operation's
// request body schema when there is one: there is none here, because the
// schemas carry no patch strategies (x-kubernetes-patch-merge-key), so
// kubectl falls back to the strategies compiled into it, which are
// Kubernetes' own.

// openAPIV3Prefix and openAPIV2Prefix are how each version's documents
// refer to their definitions.
const (
	openAPIV3Prefix = "#/components/schemas/"
	openAPIV2Prefix = "#/definitions/"
)

// openAPIV2Protobuf is the media type of /openapi/v2 in protobuf.
// client-go asks for it by its older name, with '@' (discovery's
// OpenAPISchema), which is not a valid Content-Type: the answer names the
// new one, as kube-openapi's does.
const (
	openAPIV2Protobuf    = "application/com.github.proto-openapi.spec.v2.v1.0+protobuf"
	openAPIV2ProtobufOld = "application/com.github.proto-openapi.spec.v2@v1.0+protobuf"
)

// openAPISpecs are the encoded documents, built once by newOpenAPISpecs
// when a handler first serves one; they never change, so they are safe
// for concurrent use.
type openAPISpecs struct {
	index  encodedDoc
	byPath map[string]encodedDoc // "api/v1" → its v3 document
	v2JSON encodedDoc
	v2Pb   encodedDoc
}

// encodedDoc is a document's bytes and its ETag: the hex SHA-512 of the
// bytes, as kube-openapi computes it.
type encodedDoc struct {
	body []byte
	etag string
}

func newEncodedDoc(body []byte) encodedDoc {
	return encodedDoc{body: body, etag: fmt.Sprintf("%X", sha512.Sum512(body))}
}

// openAPIIndex is the /openapi/v3 index. Each URL carries its document's
// hash, so that clients may cache the document for good.
type openAPIIndex struct {
	Paths map[string]openAPIIndexEntry `json:"paths"`
}

type openAPIIndexEntry struct {
	ServerRelativeURL string `json:"serverRelativeURL"`
}

// openAPIDoc is one OpenAPI v3 document.
type openAPIDoc struct {
	OpenAPI    string                     `json:"openapi"`
	Info       openAPIInfo                `json:"info"`
	Paths      map[string]openAPIPathItem `json:"paths"`
	Components openAPIComponents          `json:"components"`
}

type openAPIInfo struct {
	Title   string `json:"title"`
	Version string `json:"version"`
}

type openAPIComponents struct {
	Schemas map[string]*schema `json:"schemas"`
}

// openAPIPathItem is the operations of one object path. Only reading and
// patching are described: explain finds a kind through either, and
// validation reads the PATCH operation.
type openAPIPathItem struct {
	Parameters []openAPIParameter `json:"parameters,omitempty"`
	Get        *openAPIOperation  `json:"get,omitempty"`
	Patch      *openAPIOperation  `json:"patch,omitempty"`
}

// openAPIOperation is one operation. It has no requestBody (see the top
// of this file).
type openAPIOperation struct {
	Description string                     `json:"description"`
	OperationID string                     `json:"operationId"`
	Parameters  []openAPIParameter         `json:"parameters,omitempty"`
	Responses   map[string]openAPIResponse `json:"responses"`
	Action      string                     `json:"x-kubernetes-action"`
	GVK         groupVersionKind           `json:"x-kubernetes-group-version-kind"`
}

type openAPIParameter struct {
	Name        string  `json:"name"`
	In          string  `json:"in"`
	Description string  `json:"description,omitempty"`
	Required    bool    `json:"required,omitempty"`
	Schema      *schema `json:"schema"`
}

type openAPIResponse struct {
	Description string                      `json:"description"`
	Content     map[string]openAPIMediaType `json:"content,omitempty"`
}

type openAPIMediaType struct {
	Schema *schema `json:"schema"`
}

// patchParameters are the query parameters every PATCH takes; kubectl
// looks for fieldValidation.
func patchParameters() []openAPIParameter {
	param := func(name, typ, desc string) openAPIParameter {
		return openAPIParameter{Name: name, In: "query", Description: desc, Schema: &schema{Type: typ}}
	}
	return []openAPIParameter{
		param("dryRun", "string", "When present (All), the change is validated but not stored."),
		param("fieldManager", "string", "The name of the actor making the change, recorded in managedFields."),
		param("fieldValidation", "string", "What the server does with unknown or duplicate fields: Ignore, Warn (the default) or Strict."),
		param("force", "boolean", "Server-side apply only: take the fields other managers own."),
	}
}

// newOpenAPISpecs builds every document for the served group versions. It
// fails only when an api type has no schema: a bug of this package.
func newOpenAPISpecs(groups []*groupVersion) (*openAPISpecs, error) {
	specs := &openAPISpecs{byPath: make(map[string]encodedDoc)}
	index := openAPIIndex{Paths: make(map[string]openAPIIndexEntry)}
	v2 := newSwaggerDoc()
	for _, gv := range groups {
		doc, err := openAPIDocOf(gv)
		if err != nil {
			return nil, fmt.Errorf("openapi for %s: %w", gv.path, err)
		}
		if err := v2.add(doc); err != nil {
			return nil, fmt.Errorf("openapi v2 for %s: %w", gv.path, err)
		}
		body, err := json.Marshal(openAPIV3(doc))
		if err != nil {
			return nil, err
		}
		enc := newEncodedDoc(body)
		specs.byPath[gv.path] = enc
		index.Paths[gv.path] = openAPIIndexEntry{ServerRelativeURL: openAPIURL(gv.path, enc.etag)}
	}
	body, err := json.Marshal(index)
	if err != nil {
		return nil, err
	}
	specs.index = newEncodedDoc(body)
	if body, err = json.Marshal(v2); err != nil {
		return nil, err
	}
	specs.v2JSON = newEncodedDoc(body)
	specs.v2Pb = newEncodedDoc(v2.protobuf())
	return specs, nil
}

// openAPIURL is the index's URL of a group version's document.
func openAPIURL(path, etag string) string {
	return "/openapi/v3/" + path + "?" + url.Values{"hash": {etag}}.Encode()
}

// openAPIDocOf builds the document of one group version: a definition per
// served kind (and those it refers to), marked with the kind's group,
// version and name, and its object path.
func openAPIDocOf(gv *groupVersion) (*openAPIDoc, error) {
	fallback := "io.k8s.api.core." + gv.version + "."
	if gv.group != "" {
		short, _, _ := strings.Cut(gv.group, ".")
		fallback = "io.k8s.api." + short + "." + gv.version + "."
	}
	b := newSchemaBuilder(apiDocs, apiDefinitions, fallback)
	doc := &openAPIDoc{
		OpenAPI: "3.0.0",
		Info:    openAPIInfo{Title: "miniplane", Version: apiserver.GitVersion},
		Paths:   make(map[string]openAPIPathItem),
	}
	for _, r := range gv.resources {
		if r.Schema != nil {
			name, err := b.customDefinition(r)
			if err != nil {
				return nil, err
			}
			path, item := objectPath(gv, r, name)
			doc.Paths[path] = item
			continue
		}
		name, err := b.definition(reflect.TypeOf(r.New()).Elem())
		if err != nil {
			return nil, err
		}
		gvk := groupVersionKind{Group: r.Group, Version: r.Version, Kind: r.Kind}
		def := b.defs[name]
		def.GVK = append(def.GVK, gvk)
		path, item := objectPath(gv, r, name)
		doc.Paths[path] = item
	}
	doc.Components.Schemas = b.defs
	return doc, nil
}

// objectPath returns the path of one object of resource r and its
// operations; def is the kind's definition.
func objectPath(gv *groupVersion, r apiserver.ResourceInfo, def string) (string, openAPIPathItem) {
	gvk := groupVersionKind{Group: r.Group, Version: r.Version, Kind: r.Kind}
	scope := ""
	path := "/" + gv.path + "/" + r.Resource + "/{name}"
	params := []openAPIParameter{
		{Name: "name", In: "path", Required: true, Description: "name of the " + r.Kind, Schema: &schema{Type: "string"}},
	}
	if r.Namespaced {
		scope = "Namespaced"
		path = "/" + gv.path + "/namespaces/{namespace}/" + r.Resource + "/{name}"
		params = append(params, openAPIParameter{Name: "namespace", In: "path", Required: true,
			Description: "object name and auth scope, such as for teams and projects", Schema: &schema{Type: "string"}})
	}
	id := operationGroup(r.Group) + strings.ToUpper(r.Version[:1]) + r.Version[1:] + scope + r.Kind
	ok := map[string]openAPIResponse{"200": {
		Description: "OK",
		Content:     map[string]openAPIMediaType{contentTypeJSON: {Schema: &schema{Ref: def}}},
	}}
	return path, openAPIPathItem{
		Parameters: params,
		Get: &openAPIOperation{
			Description: "read the specified " + r.Kind, OperationID: "read" + id,
			Responses: ok, Action: "get", GVK: gvk,
		},
		Patch: &openAPIOperation{
			Description: "partially update the specified " + r.Kind, OperationID: "patch" + id,
			Parameters: patchParameters(), Responses: ok, Action: "patch", GVK: gvk,
		},
	}
}

// operationGroup is a group as kube-apiserver's operation IDs spell it:
// "Core", "Coordination" for coordination.k8s.io, "RbacAuthorization" for
// rbac.authorization.k8s.io.
func operationGroup(group string) string {
	if group == "" {
		return "Core"
	}
	var b strings.Builder
	for part := range strings.SplitSeq(strings.TrimSuffix(group, ".k8s.io"), ".") {
		if part != "" {
			b.WriteString(strings.ToUpper(part[:1]) + part[1:])
		}
	}
	return b.String()
}

// openAPIV3 returns doc with its references in v3's form.
func openAPIV3(doc *openAPIDoc) *openAPIDoc {
	out := *doc
	out.Components.Schemas = make(map[string]*schema, len(doc.Components.Schemas))
	for name, s := range doc.Components.Schemas {
		out.Components.Schemas[name] = s.withRefPrefix(openAPIV3Prefix)
	}
	out.Paths = make(map[string]openAPIPathItem, len(doc.Paths))
	for path, item := range doc.Paths {
		for _, op := range []**openAPIOperation{&item.Get, &item.Patch} {
			if *op == nil {
				continue
			}
			c := **op
			c.Responses = make(map[string]openAPIResponse, len((*op).Responses))
			for code, resp := range (*op).Responses {
				content := make(map[string]openAPIMediaType, len(resp.Content))
				for mt, m := range resp.Content {
					content[mt] = openAPIMediaType{Schema: m.Schema.withRefPrefix(openAPIV3Prefix)}
				}
				c.Responses[code] = openAPIResponse{Description: resp.Description, Content: content}
			}
			*op = &c
		}
		out.Paths[path] = item
	}
	return &out
}

// withRefPrefix returns a copy of s whose references start with prefix.
func (s *schema) withRefPrefix(prefix string) *schema {
	return s.convert(func(c *schema) {
		if c.Ref != "" {
			c.Ref = prefix + c.Ref
		}
	})
}

// convert returns a deep copy of s with f applied to every schema in it,
// innermost first.
func (s *schema) convert(f func(*schema)) *schema {
	if s == nil {
		return nil
	}
	c := *s
	c.AllOf = convertAll(s.AllOf, f)
	c.OneOf = convertAll(s.OneOf, f)
	c.AnyOf = convertAll(s.AnyOf, f)
	c.Not = s.Not.convert(f)
	c.Items = s.Items.convert(f)
	c.AdditionalProperties = s.AdditionalProperties.convert(f)
	if s.Properties != nil {
		c.Properties = make(map[string]*schema, len(s.Properties))
		for name, p := range s.Properties {
			c.Properties[name] = p.convert(f)
		}
	}
	c.Required = slices.Clone(s.Required)
	c.GVK = slices.Clone(s.GVK)
	f(&c)
	return &c
}

func convertAll(list []*schema, f func(*schema)) []*schema {
	if list == nil {
		return nil
	}
	out := make([]*schema, len(list))
	for i, s := range list {
		out[i] = s.convert(f)
	}
	return out
}

// serveOpenAPI answers /openapi/v2, /openapi/v3 and /openapi/v3/{group
// version path}; rest is the path after "openapi/".
func (h *Handler) serveOpenAPI(w http.ResponseWriter, r *http.Request, rest string) {
	specs, err := h.currentRoutes().openapi()
	if err != nil {
		writeError(w, apierrors.NewInternalError(err))
		return
	}
	switch {
	case rest == "v2":
		for _, mt := range parseAccept(r.Header.Get("Accept")) {
			switch mt.typ {
			case openAPIV2Protobuf, openAPIV2ProtobufOld:
				serveDoc(w, r, specs.v2Pb, openAPIV2Protobuf)
				return
			case "application/json", "application/*", "*/*":
				serveDoc(w, r, specs.v2JSON, contentTypeJSON)
				return
			}
		}
		if r.Header.Get("Accept") == "" {
			serveDoc(w, r, specs.v2JSON, contentTypeJSON)
			return
		}
		writeError(w, apierrors.NewNotAcceptable(fmt.Sprintf(
			"/openapi/v2 is served as application/json and %s; the request accepts %q", openAPIV2Protobuf, r.Header.Get("Accept"))))
	case rest == "v3":
		serveDoc(w, r, specs.index, contentTypeJSON)
	case strings.HasPrefix(rest, "v3/"):
		path := strings.TrimPrefix(rest, "v3/")
		doc, ok := specs.byPath[path]
		if !ok {
			writeError(w, notFoundPath())
			return
		}
		if !acceptsJSON(r.Header.Get("Accept")) {
			writeError(w, apierrors.NewNotAcceptable(fmt.Sprintf(
				"OpenAPI v3 documents are served as application/json only; the request accepts %q", r.Header.Get("Accept"))))
			return
		}
		// A URL with the document's hash may be cached for good; one with
		// an old hash is sent to the current one, as kube-openapi does.
		if hash := queryOf(r).Get("hash"); hash != "" {
			if hash != doc.etag {
				http.Redirect(w, r, openAPIURL(path, doc.etag), http.StatusMovedPermanently)
				return
			}
			w.Header().Set("Cache-Control", "public, immutable")
			w.Header().Set("Expires", h.clock.Now().AddDate(1, 0, 0).UTC().Format(http.TimeFormat))
		}
		serveDoc(w, r, doc, contentTypeJSON)
	default:
		writeError(w, notFoundPath())
	}
}

// acceptsJSON reports whether an Accept header lets the answer be JSON.
func acceptsJSON(accept string) bool {
	if accept == "" {
		return true
	}
	for _, mt := range parseAccept(accept) {
		switch mt.typ {
		case "application/json", "application/*", "*/*":
			return true
		}
	}
	return false
}

// serveDoc writes a document with its ETag, answering 304 Not Modified to
// a request whose If-None-Match names it.
func serveDoc(w http.ResponseWriter, r *http.Request, doc encodedDoc, contentType string) {
	etag := strconv.Quote(doc.etag)
	w.Header().Set("Etag", etag)
	w.Header().Set("Vary", "Accept")
	if match := r.Header.Get("If-None-Match"); match != "" && strings.Contains(match, etag) {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	writeRaw(w, http.StatusOK, contentType, doc.body)
}
