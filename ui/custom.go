package ui

import (
	"cmp"
	"slices"
	"strings"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/client"
)

// CustomKind is a kind a CustomResourceDefinition serves, as discovery
// names it (from apiserver.Server's Resources: those with a schema, in
// their storage version). The page learns the custom kinds from
// Config.CustomKinds, as kubectl learns them from discovery, rather than
// from a list of its own.
type CustomKind struct {
	Group, Version, Kind string
	// Resource is the name client calls take: "widgets.demo.example.com".
	Resource   string
	Namespaced bool
}

// CustomKindView is one kind a CustomResourceDefinition serves, and its
// objects at the snapshot's revision.
type CustomKindView struct {
	Group      string             `json:"group"`
	Version    string             `json:"version"`
	Kind       string             `json:"kind"`
	Resource   string             `json:"resource"`
	Namespaced bool               `json:"namespaced"`
	Objects    []CustomObjectView `json:"objects"`
}

// CustomObjectView is one custom resource: its owners (its
// ownerReferences) and what it owns (the objects whose ownerReferences
// name its uid), the links the garbage collector follows both ways.
type CustomObjectView struct {
	Namespace  string     `json:"namespace,omitempty"`
	Name       string     `json:"name"`
	UID        string     `json:"uid"`
	Generation int64      `json:"generation"`
	Owners     []LinkView `json:"owners"`
	Owns       []LinkView `json:"owns"`
}

// LinkView is one end of an owner link: the kind and name of the object at
// that end, and whether the link is its controller reference.
type LinkView struct {
	Kind       string `json:"kind"`
	Namespace  string `json:"namespace,omitempty"`
	Name       string `json:"name"`
	Controller bool   `json:"controller,omitempty"`
}

// ownableResources are the built-in resources whose objects a custom
// resource is looked up as the owner of: what an operator most often
// makes. Custom resources are looked up too, every served kind of them.
var ownableResources = []string{client.Pods, client.ConfigMaps, client.Secrets, client.Services,
	client.Deployments, client.ReplicaSets, client.StatefulSets, client.Jobs}

// kindsOf returns the kind of each built-in resource in resources.
func kindsOf(resources []string) []string {
	byName := map[string]string{}
	for _, t := range api.RegisteredTypes() {
		byName[t.Name] = t.Kind
	}
	out := make([]string, len(resources))
	for i, r := range resources {
		out[i] = byName[r]
	}
	return out
}

// customViews draws the custom kinds with their objects and each
// object's owner links: objs are the objects of kinds, in order, and owned
// the objects of the kinds ownedKinds, in order, that a custom resource
// may own.
func customViews(kinds []CustomKind, objs [][]api.Object, ownedKinds []string, owned [][]api.Object) []CustomKindView {
	// ownedBy maps an owner's uid to the links to what it owns.
	ownedBy := map[api.UID][]LinkView{}
	note := func(o api.Object, kind string) {
		m := o.GetObjectMeta()
		for _, ref := range m.OwnerReferences {
			ownedBy[ref.UID] = append(ownedBy[ref.UID], LinkView{Kind: kind, Namespace: m.Namespace, Name: m.Name,
				Controller: ref.Controller != nil && *ref.Controller})
		}
	}
	for i, list := range owned {
		for _, o := range list {
			note(o, ownedKinds[i])
		}
	}
	for i, k := range kinds {
		for _, o := range objs[i] {
			note(o, k.Kind)
		}
	}
	views := make([]CustomKindView, 0, len(kinds))
	for i, k := range kinds {
		v := CustomKindView{Group: k.Group, Version: k.Version, Kind: k.Kind, Resource: strings.TrimSuffix(k.Resource, "."+k.Group), Namespaced: k.Namespaced,
			Objects: []CustomObjectView{}}
		for _, o := range objs[i] {
			m := o.GetObjectMeta()
			ov := CustomObjectView{Namespace: m.Namespace, Name: m.Name, UID: string(m.UID), Generation: m.Generation,
				Owners: []LinkView{}, Owns: ownedBy[m.UID]}
			for _, ref := range m.OwnerReferences {
				ov.Owners = append(ov.Owners, LinkView{Kind: ref.Kind, Namespace: m.Namespace, Name: ref.Name,
					Controller: ref.Controller != nil && *ref.Controller})
			}
			if ov.Owns == nil {
				ov.Owns = []LinkView{}
			}
			slices.SortFunc(ov.Owns, func(a, b LinkView) int {
				return cmp.Or(cmp.Compare(a.Kind, b.Kind), cmp.Compare(a.Namespace, b.Namespace), cmp.Compare(a.Name, b.Name))
			})
			v.Objects = append(v.Objects, ov)
		}
		views = append(views, v)
	}
	return views
}

// customAt reads the custom kinds' objects, and the objects they may own,
// with list (Snapshot's read at its revision).
func (h *Handler) customAt(list func(resource string) ([]api.Object, error)) ([]CustomKindView, error) {
	var kinds []CustomKind
	if h.cfg.CustomKinds != nil {
		kinds = h.cfg.CustomKinds()
	}
	if len(kinds) == 0 {
		return []CustomKindView{}, nil
	}
	objs := make([][]api.Object, len(kinds))
	for i, k := range kinds {
		var err error
		if objs[i], err = list(k.Resource); err != nil {
			return nil, err
		}
	}
	owned := make([][]api.Object, len(ownableResources))
	for i, r := range ownableResources {
		var err error
		if owned[i], err = list(r); err != nil {
			return nil, err
		}
	}
	return customViews(kinds, objs, kindsOf(ownableResources), owned), nil
}
