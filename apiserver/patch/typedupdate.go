package patch

import (
	"encoding/json"
	"reflect"
	"strings"
	"time"

	"github.com/miniplane/miniplane/api"
)

// TrackUpdate is [TrackUpdate] for typed objects: the managedFields newObj gets when
// manager writes it over oldObj, the stored object (a PUT; both whole objects of kind).
// They are exactly the entries TrackUpdate(kind, json.Marshal(oldObj),
// json.Marshal(newObj), manager, now) writes into its answer, as a typed object decodes
// them; nil when none is left. The field sets are read off the typed objects; an object
// holding what the walk cannot resolve exactly (a list element named by position or by
// another key than the list's, in some entry of oldObj's managedFields, say) takes the
// JSON path. Errors are TrackUpdate's.
func (t *FieldTracker) TrackUpdate(kind string, oldObj, newObj api.Object, manager string, now time.Time) ([]api.ManagedFieldsEntry, error) {
	if err := validateManager(manager); err != nil {
		return nil, err
	}
	if manager == "" {
		return trackUpdateJSON(kind, oldObj, newObj, manager, now)
	}
	s := kindSchemas[kind]
	var b trieBuilder
	set, err := t.fieldsOf(&b, newObj, s, kind, false)
	if err != nil {
		return nil, err
	}
	var sb shapeBuilder
	oldShape, ok1, err1 := t.shapeOfObject(&sb, oldObj, s)
	newShape, ok2, err2 := t.shapeOfObject(&sb, newObj, s)
	if err1 != nil || err2 != nil || !ok1 || !ok2 {
		return trackUpdateJSON(kind, oldObj, newObj, manager, now)
	}
	entries, ok := readTypedManagedFields(oldObj.GetObjectMeta().ManagedFields)
	if !ok {
		return trackUpdateJSON(kind, oldObj, newObj, manager, now)
	}

	// changed: the members of newObj's set that oldObj lacks, or holds with another value.
	changed := newFieldSet()
	var path []string
	var walkErr error
	var walk func(n *tnode) bool
	walk = func(n *tnode) bool {
		if n.self {
			have, found, resolved := oldShape.find(path)
			if !resolved {
				return false
			}
			same := found && n.first != nil
			if found && n.first == nil {
				want, inNew, _ := newShape.find(path)
				a, err := t.valueOf(have)
				if err == nil && inNew {
					var c any
					if c, err = t.valueOf(want); err == nil {
						same = equal(a, c)
					}
				}
				if err != nil {
					walkErr = err
					return false
				}
			}
			if !same {
				changed.insert(path)
			}
		}
		for c := n.first; c != nil; c = c.next {
			path = append(path, c.el)
			if !walk(c) {
				return false
			}
			path = path[:len(path)-1]
		}
		return true
	}
	if !walk(set) {
		if walkErr != nil {
			return nil, walkErr
		}
		return trackUpdateJSON(kind, oldObj, newObj, manager, now)
	}
	if !changed.empty() {
		var mine *managedEntry
		entries, mine = entryFor(entries, manager, operationUpdate, "")
		for _, p := range changed.members() {
			for _, e := range entries {
				if e != mine && changed.leaf(p) {
					e.fields.remove(p)
				}
			}
			mine.fields.insert(p)
		}
		mine.apiVersion = newObj.GetTypeMeta().APIVersion
		mine.time = timestamp(now)
	}
	for _, e := range entries {
		if !newShape.prune(e.fields) {
			return trackUpdateJSON(kind, oldObj, newObj, manager, now)
		}
	}
	return typedManagedFields(entries)
}

// trackUpdateJSON is TrackUpdate's JSON path, with the managedFields of its answer.
func trackUpdateJSON(kind string, oldObj, newObj api.Object, manager string, now time.Time) ([]api.ManagedFieldsEntry, error) {
	oldJSON, err := json.Marshal(oldObj)
	if err != nil {
		return nil, err
	}
	newJSON, err := json.Marshal(newObj)
	if err != nil {
		return nil, err
	}
	tracked, err := TrackUpdate(kind, oldJSON, newJSON, manager, now)
	if err != nil {
		return nil, err
	}
	var out struct {
		Metadata struct {
			ManagedFields []api.ManagedFieldsEntry `json:"managedFields"`
		} `json:"metadata"`
	}
	if err := json.Unmarshal(tracked, &out); err != nil {
		return nil, err
	}
	return out.Metadata.ManagedFields, nil
}

// readTypedManagedFields is readManagedFields of typed entries, as their JSON reads:
// entries that are not FieldsV1, name no manager or cannot be read are dropped; a time
// is kept as its JSON form. ok is false when an entry's fieldsV1 is not JSON at all
// (encoding/json then refuses the whole object: the JSON path says how).
func readTypedManagedFields(list []api.ManagedFieldsEntry) (entries []*managedEntry, ok bool) {
	for _, m := range list {
		if m.FieldsType != "FieldsV1" || m.Manager == "" {
			continue
		}
		v, err := decode(m.FieldsV1)
		if err != nil {
			return nil, false
		}
		fields, err := parseFieldsV1(v)
		if err != nil {
			continue
		}
		e := &managedEntry{manager: m.Manager, operation: m.Operation, apiVersion: m.APIVersion,
			subresource: m.Subresource, fields: fields}
		if m.Time != nil && !m.Time.IsZero() {
			e.time = timestamp(m.Time.Time)
		}
		entries = append(entries, e)
	}
	return entries, true
}

// typedManagedFields is writeManagedFields for a typed object: the entries that own
// something, as a typed object decodes them from the JSON writeManagedFields writes.
func typedManagedFields(entries []*managedEntry) ([]api.ManagedFieldsEntry, error) {
	var out []api.ManagedFieldsEntry
	for _, e := range entries {
		if e.fields.empty() {
			continue
		}
		m := api.ManagedFieldsEntry{Manager: e.manager, Operation: e.operation, APIVersion: e.apiVersion,
			FieldsType: "FieldsV1", FieldsV1: e.fields.appendFieldsV1(nil), Subresource: e.subresource}
		if e.time != "" {
			var at api.Time
			if err := at.UnmarshalJSON([]byte(`"` + e.time + `"`)); err != nil {
				return nil, err
			}
			m.Time = &at
		}
		out = append(out, m)
	}
	return out, nil
}

// appendFieldsV1 appends encode(s.fieldsV1()) to buf, without building the map.
func (s *fieldSet) appendFieldsV1(buf []byte) []byte {
	buf = append(buf, '{')
	if s.self && len(s.children) > 0 {
		buf = append(buf, `".":{},`...)
	}
	for i, k := range sortedChildren(s) {
		if i > 0 {
			buf = append(buf, ',')
		}
		buf = appendJSONString(buf, k)
		buf = append(buf, ':')
		buf = s.children[k].appendFieldsV1(buf)
	}
	return append(buf, '}')
}

// snode is one JSON value of an object as lookup finds it: every member present in the
// JSON, null ones too, and the elements of merged lists by their key or value (the first
// of equal ones, as findElement finds). The value itself is v (or x, when it was read
// through encoding/json).
type snode struct {
	el          string
	v           reflect.Value
	x           any
	generic     bool   // x holds the value
	list        bool   // a merged list: its children are its elements
	atomic      bool   // a list whose elements are not children: a lookup below is unresolved
	mergeKey    string // a merged list's key ("" for a set)
	first, last *snode
	next        *snode
}

// shapeBuilder hands out snodes in blocks.
type shapeBuilder struct{ free []snode }

func (b *shapeBuilder) node(el string) *snode {
	if len(b.free) == 0 {
		b.free = make([]snode, 32)
	}
	n := &b.free[0]
	b.free = b.free[1:]
	n.el = el
	return n
}

// add appends child c to n unless n has a child of that element already (the first of
// equal list elements is the one lookup finds).
func (n *snode) add(c *snode) {
	for k := n.first; k != nil; k = k.next {
		if k.el == c.el {
			return
		}
	}
	if n.last == nil {
		n.first = c
	} else {
		n.last.next = c
	}
	n.last = c
}

func (n *snode) child(el string) *snode {
	for k := n.first; k != nil; k = k.next {
		if k.el == el {
			return k
		}
	}
	return nil
}

// find is lookup(obj, path) on the shape: the node path names and whether it is there.
// resolved is false when the answer needs what the shape does not hold: an element of
// a list taken whole, an element by position, or one not spelled as this package spells
// the list's elements.
func (n *snode) find(path []string) (node *snode, found, resolved bool) {
	cur := n
	for _, el := range path {
		c, ok := cur.step(el)
		if !ok {
			return nil, false, false
		}
		if c == nil {
			return nil, false, true
		}
		cur = c
	}
	return cur, true, true
}

// step is one element of find: the child el names (nil when there is none), and
// whether that answer is exact.
func (n *snode) step(el string) (*snode, bool) {
	if c := n.child(el); c != nil && (n.list || strings.HasPrefix(el, "f:")) {
		// The element as this package spells it: a member, or the first list
		// element of that key or value, as findElement finds it.
		return c, true
	}
	e, err := parseElement(el)
	if err != nil {
		return nil, true // lookup: not there
	}
	if e.kind == 'f' {
		if n.list || n.atomic {
			return nil, true // a list is not an object
		}
		return n.child(el), true
	}
	switch {
	case n.atomic:
		return nil, false
	case !n.list:
		return nil, true // not a list
	case e.kind == 'k' && n.mergeKey != "" && len(e.key) == 1 && keyElement(n.mergeKey, e.key[n.mergeKey]) == el:
		return n.child(el), true
	case e.kind == 'v' && n.mergeKey == "" && valueElement(e.value) == el:
		return n.child(el), true
	}
	return nil, false
}

// prune is fieldSet.prune(obj) on the shape of obj; false when a member's lookup is
// unresolved (s is then left part pruned).
func (n *snode) prune(s *fieldSet) bool {
	for _, k := range sortedChildren(s) {
		c := s.children[k]
		v, ok := n.step(k)
		if !ok {
			return false
		}
		if v != nil && !v.prune(c) {
			return false
		}
		if v == nil || c.empty() {
			delete(s.children, k)
		}
	}
	return true
}

// valueOf returns the JSON value n holds, as the JSON functions decode it.
func (t *FieldTracker) valueOf(n *snode) (any, error) {
	if n.generic {
		return n.x, nil
	}
	return t.jsonValue(n.v)
}

// shapeOfObject returns the shape of obj, an object of the kind s describes; ok is false
// for an object the typed walk hands to encoding/json whole.
func (t *FieldTracker) shapeOfObject(b *shapeBuilder, obj any, s *schema) (*snode, bool, error) {
	v := reflect.ValueOf(obj)
	if v.Kind() == reflect.Pointer && !v.IsNil() {
		v = v.Elem()
	}
	ti := t.info(v.Type())
	if v.Kind() != reflect.Struct || ti.generic || ti.marshaler || (ti.ptrMarshaler && v.CanAddr()) {
		return nil, false, nil
	}
	n, err := t.shape(b, "", v, nested(s))
	return n, err == nil, err
}

// shape returns the shape of v, the value of member el, with field metadata f.
func (t *FieldTracker) shape(b *shapeBuilder, el string, v reflect.Value, f *fieldMeta) (*snode, error) {
	ti := t.info(v.Type())
	if ti.marshaler || (ti.ptrMarshaler && v.CanAddr()) || ti.generic {
		x, err := t.jsonValue(v)
		if err != nil {
			return nil, err
		}
		return b.shapeAny(el, x, f), nil
	}
	var elem *schema
	if f != nil {
		elem = f.elem
	}
	n := b.node(el)
	n.v = v
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if !v.IsNil() {
			return t.shape(b, el, v.Elem(), f)
		}
	case reflect.Struct:
		for _, sf := range ti.fields {
			fv := v.FieldByIndex(sf.index)
			if sf.omitEmpty && isEmptyValue(fv) {
				continue
			}
			c, err := t.shape(b, sf.el, fv, elem.lookup(sf.name))
			if err != nil {
				return nil, err
			}
			n.add(c)
		}
	case reflect.Map:
		for it := v.MapRange(); it.Next(); {
			k := it.Key().String()
			c, err := t.shape(b, fieldElement(k), it.Value(), elem.lookup(k))
			if err != nil {
				return nil, err
			}
			n.add(c)
		}
	case reflect.Slice, reflect.Array:
		if (v.Kind() == reflect.Slice && v.IsNil()) || ti.bytes {
			break
		}
		if f == nil || !f.merge {
			n.atomic = true
			break
		}
		n.list, n.mergeKey = true, f.mergeKey
		for i := range v.Len() {
			if err := t.shapeItem(b, n, v.Index(i), elem); err != nil {
				return nil, err
			}
		}
	case reflect.Float32, reflect.Float64, reflect.String, reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
	default:
		return nil, &json.UnsupportedTypeError{Type: v.Type()}
	}
	return n, nil
}

// shapeItem adds the shape of item, an element of the merged list n, under n by its
// key or value.
func (t *FieldTracker) shapeItem(b *shapeBuilder, n *snode, item reflect.Value, elem *schema) error {
	if n.mergeKey == "" {
		x, err := t.jsonValue(item)
		if err != nil {
			return err
		}
		c := b.node(valueElement(x))
		c.x, c.generic = x, true
		n.add(c)
		return nil
	}
	item, ti, walkable := t.keyedItem(item)
	if !walkable {
		x, err := t.jsonValue(item)
		if err != nil {
			return err
		}
		if m, ok := x.(map[string]any); ok {
			if key, ok := m[n.mergeKey]; ok {
				n.add(b.shapeAny(keyElement(n.mergeKey, key), x, &fieldMeta{elem: elem}))
			}
		}
		return nil
	}
	for _, sf := range ti.fields {
		if sf.name != n.mergeKey {
			continue
		}
		kv := item.FieldByIndex(sf.index)
		if sf.omitEmpty && isEmptyValue(kv) {
			return nil
		}
		el, err := t.keyElementOf(n.mergeKey, kv)
		if err != nil {
			return err
		}
		c, err := t.shape(b, el, item, &fieldMeta{elem: elem})
		if err != nil {
			return err
		}
		n.add(c)
	}
	return nil
}

// shapeAny is shape for a value decoded from JSON.
func (b *shapeBuilder) shapeAny(el string, x any, f *fieldMeta) *snode {
	var elem *schema
	if f != nil {
		elem = f.elem
	}
	n := b.node(el)
	n.x, n.generic = x, true
	switch x := x.(type) {
	case map[string]any:
		for _, k := range sortedKeys(x) {
			n.add(b.shapeAny(fieldElement(k), x[k], elem.lookup(k)))
		}
	case []any:
		if f == nil || !f.merge {
			n.atomic = true
			break
		}
		n.list, n.mergeKey = true, f.mergeKey
		for _, item := range x {
			if f.mergeKey == "" {
				c := b.node(valueElement(item))
				c.x, c.generic = item, true
				n.add(c)
				continue
			}
			m, ok := item.(map[string]any)
			if !ok {
				continue
			}
			if key, ok := m[f.mergeKey]; ok {
				n.add(b.shapeAny(keyElement(f.mergeKey, key), item, &fieldMeta{elem: elem}))
			}
		}
	}
	return n
}
