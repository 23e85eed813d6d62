package garbagecollector

import (
	"slices"
	"strings"
	"sync"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/client"
)

// kindInfo is what the collector needs to know of a kind: the resource to
// read and write it through, and whether it lives in a namespace.
type kindInfo struct {
	kind       string
	group      string // "" for the core group
	resource   string
	namespaced bool
}

// servedKinds returns the kinds this server serves, by kind name: each
// stored kind once. They are api's registered types (api.RegisteredTypes),
// less the views of a plural served in several groups (events.k8s.io
// Events are the core Events, stored once): a kind added to the API is
// collected with no line here. A test checks them against the server's
// Resources. The registry never changes, so the list is made once: owner
// references are looked up in it on every event. Callers must not change it.
var servedKinds = sync.OnceValue(func() []kindInfo {
	var out []kindInfo
	for _, ti := range api.RegisteredTypes() {
		if ti.Group != "" && ti.Name != ti.Resource {
			continue // a view of a kind stored in another group
		}
		out = append(out, kindInfo{kind: ti.Kind, group: ti.Group, resource: ti.Resource, namespaced: ti.Namespaced})
	}
	slices.SortFunc(out, func(a, b kindInfo) int { return strings.Compare(a.kind+"."+a.group, b.kind+"."+b.group) })
	return out
})

// DefaultResources are the resources the collector watches when Config
// names none: all that the server serves but events, which Kubernetes'
// collector ignores by default too (there are many, and nothing owns them).
func DefaultResources() []string {
	var out []string
	for _, k := range servedKinds() {
		// Nor CustomResourceDefinitions: nothing here owns one, and a
		// collector that watched them would step the simulator's recorded
		// runs differently.
		if k.resource != client.Events && k.resource != client.CustomResourceDefinitions {
			out = append(out, k.resource)
		}
	}
	return out
}

// kindByResource returns the kind served as resource.
func kindByResource(resource string) (kindInfo, bool) {
	for _, k := range servedKinds() {
		if k.resource == resource {
			return k, true
		}
	}
	return kindInfo{}, false
}

// kindOfRef returns the kind an owner reference names, matched by kind and
// API group; false for a kind the server does not serve.
func kindOfRef(apiVersion, kind string) (kindInfo, bool) {
	group := groupOf(apiVersion)
	for _, k := range servedKinds() {
		if k.kind == kind && k.group == group {
			return k, true
		}
	}
	return kindInfo{}, false
}

// groupOf returns the API group of an apiVersion ("" for "v1").
func groupOf(apiVersion string) string {
	if g, _, found := strings.Cut(apiVersion, "/"); found {
		return g
	}
	return ""
}

// customKinds is the collector's table of the custom kinds it has
// followed, by API group and kind (Kubernetes' collector resolves owner
// references through discovery's REST mapper). An entry is replaced when
// a definition of the same group and kind is established again, and never
// removed: an owner of a kind no longer served is then read live and
// found absent, as it is (a definition's removal deletes its objects).
// The zero value is empty and ready.
type customKinds struct {
	// mu guards byGroupKind. It is taken after the graph's mutex, never
	// before.
	mu          sync.Mutex
	byGroupKind map[groupKind]kindInfo
}

type groupKind struct{ group, kind string }

// set records k as the kind its group and kind name.
func (c *customKinds) set(k kindInfo) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.byGroupKind == nil {
		c.byGroupKind = make(map[groupKind]kindInfo)
	}
	c.byGroupKind[groupKind{k.group, k.kind}] = k
}

// lookup returns the kind an owner reference names: a served built-in
// kind, or a custom kind followed so far.
func (c *customKinds) lookup(apiVersion, kind string) (kindInfo, bool) {
	if k, ok := kindOfRef(apiVersion, kind); ok {
		return k, true
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	k, ok := c.byGroupKind[groupKind{groupOf(apiVersion), kind}]
	return k, ok
}
