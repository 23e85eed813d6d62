package patch

import (
	"cmp"
	"reflect"
	"slices"
	"strings"

	"github.com/miniplane/miniplane/api"
)

// This file holds the patch metadata of the kinds miniplane serves: for each list field,
// whether a strategic merge patch merges it and by which key. It is read from the
// patchStrategy and patchMergeKey struct tags of the api types, which are k8s.io/api's and
// k8s.io/apimachinery's (the same metadata server-side apply reads from
// +listType/+listMapKey markers). Fields without a strategy: maps merge, lists are
// replaced whole.

// schema describes the fields of one JSON object: the ones that matter for merging. A nil
// *schema is an object whose fields all have no strategy.
type schema struct {
	fields map[string]*fieldMeta
}

// fieldMeta is the patch metadata of one field. elem describes the field's value when it is
// an object, or its elements when it is a list of objects.
type fieldMeta struct {
	// merge is patchStrategy "merge": a list whose elements are merged with the patch's
	// instead of replaced. With mergeKey it is a list of objects identified by that key;
	// without, a set of primitives (finalizers).
	merge    bool
	mergeKey string
	elem     *schema
}

// lookup returns the metadata of field name, or nil when the field has no strategy.
func (s *schema) lookup(name string) *fieldMeta {
	if s == nil {
		return nil
	}
	return s.fields[name]
}

// child returns the schema of field name's value (or elements).
func (s *schema) child(name string) *schema {
	if f := s.lookup(name); f != nil {
		return f.elem
	}
	return nil
}

func object(fields map[string]*fieldMeta) *schema { return &schema{fields: fields} }

// nested is a field without a strategy whose value is an object described by s.
func nested(s *schema) *fieldMeta { return &fieldMeta{elem: s} }

// mergeBy is a list of objects merged by key.
func mergeBy(key string, elem *schema) *fieldMeta {
	return &fieldMeta{merge: true, mergeKey: key, elem: elem}
}

// mergeAsSet is a list of primitives merged as a set.
func mergeAsSet() *fieldMeta { return &fieldMeta{merge: true} }

// schemas returns the root schema of every served kind (and of autoscaling/v1 Scale, the
// scale subresource's), read from the patchStrategy and patchMergeKey tags of the api
// types: k8s.io/api's own tags, which interop's TestTagsMatchUpstream holds them to. Where
// two groups serve one kind name (core and events.k8s.io Event), the core group's wins. It
// builds a fresh table on each call; the package keeps one in kindSchemas.
func schemas() map[string]*schema {
	b := schemaBuilder{built: map[reflect.Type]*schema{}}
	types := api.RegisteredGoTypes()
	slices.SortFunc(types, func(a, b api.GoType) int {
		return cmp.Or(cmp.Compare(a.Group, b.Group), cmp.Compare(a.Kind, b.Kind))
	})
	out := map[string]*schema{"Scale": b.of(reflect.TypeFor[api.Scale]())}
	for _, t := range types {
		if _, dup := out[t.Kind]; !dup {
			out[t.Kind] = b.of(t.Type)
		}
	}
	return out
}

// schemaBuilder reads patch metadata from Go types, each type once.
type schemaBuilder struct {
	built map[reflect.Type]*schema
}

// of returns the schema of a value of type t (a struct, or a pointer to, slice of or map
// of one): nil when nothing under it has a strategy.
func (b schemaBuilder) of(t reflect.Type) *schema {
	for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice || t.Kind() == reflect.Map {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct {
		return nil
	}
	if s, ok := b.built[t]; ok {
		return s
	}
	// A recursive type (a CRD's JSONSchemaProps) meets itself while it is built: it
	// gets the schema being filled in.
	s := &schema{fields: map[string]*fieldMeta{}}
	b.built[t] = s
	b.addFields(s, t)
	if len(s.fields) == 0 {
		b.built[t] = nil
		return nil
	}
	return s
}

// addFields adds t's fields that have a strategy, or a value with one, to s; the fields of
// an embedded struct (TypeMeta, inlined) are t's own.
func (b schemaBuilder) addFields(s *schema, t reflect.Type) {
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" || !f.IsExported() {
			continue
		}
		if f.Anonymous && name == "" {
			b.addFields(s, f.Type)
			continue
		}
		elem := b.of(f.Type)
		strategies := strings.Split(f.Tag.Get("patchStrategy"), ",")
		switch {
		case slices.Contains(strategies, "merge"):
			s.fields[name] = &fieldMeta{merge: true, mergeKey: f.Tag.Get("patchMergeKey"), elem: elem}
		case elem != nil:
			s.fields[name] = nested(elem)
		}
	}
}

// StatusIsSubresource says a kind's status is written through its status subresource: a
// write to the object itself leaves status alone, so an apply of the object neither
// changes nor owns it. In Kubernetes these are the kinds with a status field (apiserver's
// TestRegistryIsWhatTheServerServes holds that to the kinds served with /status).
func StatusIsSubresource(kind string) bool { return statusKinds[kind] }

// statusKinds are the served kinds with a status field.
var statusKinds = func() map[string]bool {
	kinds := map[string]bool{}
	for _, t := range api.RegisteredGoTypes() {
		if f, ok := t.Type.Elem().FieldByName("Status"); ok && strings.HasPrefix(f.Tag.Get("json"), "status") {
			kinds[t.Kind] = true
		}
	}
	return kinds
}()
