package httpapi

import (
	"github.com/miniplane/miniplane/apiserver"
	"net/http"
)

// The OpenAPI v3 documents here carry no schemas: they exist so that
// kubectl's default (strict) validation learns that the server takes the
// fieldValidation query parameter and leaves validation to it, instead of
// failing to download a schema. kubectl reads only the PATCH operations,
// their x-kubernetes-group-version-kind and their parameters; a PATCH
// operation must not have a requestBody, or client-side apply tries to
// build its patch from the (missing) schema.

type openAPIIndex struct {
	Paths map[string]openAPIIndexEntry `json:"paths"`
}

type openAPIIndexEntry struct {
	ServerRelativeURL string `json:"serverRelativeURL"`
}

type openAPIDoc struct {
	OpenAPI string                     `json:"openapi"`
	Info    openAPIInfo                `json:"info"`
	Paths   map[string]openAPIPathItem `json:"paths"`
}

type openAPIInfo struct {
	Title   string `json:"title"`
	Version string `json:"version"`
}

type openAPIPathItem struct {
	Patch openAPIOperation `json:"patch"`
}

type openAPIOperation struct {
	OperationID string             `json:"operationId"`
	GVK         groupVersionKind   `json:"x-kubernetes-group-version-kind"`
	Parameters  []openAPIParameter `json:"parameters"`
}

type openAPIParameter struct {
	Name   string            `json:"name"`
	In     string            `json:"in"`
	Schema map[string]string `json:"schema"`
}

// patchParameters are the query parameters every PATCH takes.
var patchParameters = []openAPIParameter{
	{Name: "dryRun", In: "query", Schema: map[string]string{"type": "string"}},
	{Name: "fieldManager", In: "query", Schema: map[string]string{"type": "string"}},
	{Name: "fieldValidation", In: "query", Schema: map[string]string{"type": "string"}},
	{Name: "force", In: "query", Schema: map[string]string{"type": "boolean"}},
}

// serveOpenAPI answers /openapi/v3 (rest "") and /openapi/v3/{gv path}.
func (h *Handler) serveOpenAPI(w http.ResponseWriter, rest string) {
	if rest == "" {
		idx := openAPIIndex{Paths: map[string]openAPIIndexEntry{}}
		for _, gv := range h.groups {
			idx.Paths[gv.path] = openAPIIndexEntry{ServerRelativeURL: "/openapi/v3/" + gv.path}
		}
		writeJSON(w, http.StatusOK, idx)
		return
	}
	gv := h.byPath[rest]
	if gv == nil {
		writeError(w, notFoundPath())
		return
	}
	doc := openAPIDoc{
		OpenAPI: "3.0.0",
		Info:    openAPIInfo{Title: "miniplane", Version: apiserver.GitVersion},
		Paths:   map[string]openAPIPathItem{},
	}
	for _, r := range gv.resources {
		path := "/" + gv.path + "/" + r.Resource + "/{name}"
		if r.Namespaced {
			path = "/" + gv.path + "/namespaces/{namespace}/" + r.Resource + "/{name}"
		}
		doc.Paths[path] = openAPIPathItem{Patch: openAPIOperation{
			OperationID: "patch" + r.Kind,
			GVK:         groupVersionKind{Group: r.Group, Version: r.Version, Kind: r.Kind},
			Parameters:  patchParameters,
		}}
	}
	writeJSON(w, http.StatusOK, doc)
}
