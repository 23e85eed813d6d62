package patch

import (
	"encoding"
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/miniplane/miniplane/api"
)

// FieldTracker records writes in managedFields straight from typed objects: the field
// set of an object is read off its Go value by reflection, as encoding/json would see
// it, instead of marshalling the object to JSON and decoding that generically. The
// result is byte for byte what the JSON functions ([TrackCreate]) give for the object's
// JSON.
//
// The walk copies encoding/json's view of a value: the json tag names and omitempty,
// embedded structs promoted, null for nil pointers, slices and maps and for the zero
// api.Time, []byte as a string, json.Marshaler results. What it does not copy (a tag
// with ",string" or ",omitzero", a field name claimed twice, an embedded pointer, a
// map keyed by other than strings, a TextMarshaler) it hands to encoding/json for that
// value alone, and reads the decoded JSON generically, so every type gives the right
// set and the common ones give it fast.
//
// The zero FieldTracker is ready to use. It is safe for concurrent use: it keeps one
// plan per Go type it has walked, built on first sight and never changed after.
type FieldTracker struct {
	types sync.Map // reflect.Type → *typeInfo
}

// typeInfo is how the walk treats one Go type.
type typeInfo struct {
	// marshaler: the type implements json.Marshaler; ptrMarshaler: only its pointer
	// does (encoding/json calls it on addressable values only).
	marshaler, ptrMarshaler bool
	// generic: hand values of this type to encoding/json (see FieldTracker).
	generic bool
	// bytes: a []byte-like slice, which encodes as a base64 string.
	bytes bool
	// fields are a struct's JSON members, in encoding/json's order.
	fields []structField
}

// structField is one JSON member of a struct: its name, the index path to it through
// embedded structs, and whether omitempty drops it when empty.
type structField struct {
	name      string
	el        string // fieldElement(name)
	index     []int
	omitEmpty bool
}

var (
	marshalerType     = reflect.TypeFor[json.Marshaler]()
	textMarshalerType = reflect.TypeFor[encoding.TextMarshaler]()
)

// info returns the plan of t, building it on first use.
func (t *FieldTracker) info(typ reflect.Type) *typeInfo {
	if ti, ok := t.types.Load(typ); ok {
		return ti.(*typeInfo)
	}
	ti := newTypeInfo(typ)
	actual, _ := t.types.LoadOrStore(typ, ti)
	return actual.(*typeInfo)
}

func newTypeInfo(typ reflect.Type) *typeInfo {
	ti := &typeInfo{}
	switch {
	case typ.Implements(marshalerType):
		ti.marshaler = true
		return ti
	case reflect.PointerTo(typ).Implements(marshalerType):
		ti.ptrMarshaler = true
	}
	if typ.Implements(textMarshalerType) || reflect.PointerTo(typ).Implements(textMarshalerType) {
		ti.generic = true
		return ti
	}
	switch typ.Kind() {
	case reflect.Struct:
		fields, ok := structFields(typ)
		ti.fields, ti.generic = fields, !ok
	case reflect.Map:
		ti.generic = typ.Key().Kind() != reflect.String
	case reflect.Slice:
		e := typ.Elem()
		ti.bytes = e.Kind() == reflect.Uint8 &&
			!reflect.PointerTo(e).Implements(marshalerType) && !reflect.PointerTo(e).Implements(textMarshalerType)
	}
	return ti
}

// structFields lists the JSON members of struct type typ as encoding/json names them;
// ok is false for a struct whose encoding this walk does not copy.
func structFields(typ reflect.Type) (fields []structField, ok bool) {
	seen := map[string]bool{}
	var walk func(t reflect.Type, index []int) bool
	walk = func(t reflect.Type, index []int) bool {
		for i := range t.NumField() {
			sf := t.Field(i)
			tag := sf.Tag.Get("json")
			if tag == "-" {
				continue
			}
			name, opts, _ := strings.Cut(tag, ",")
			idx := append(append([]int(nil), index...), i)
			if sf.Anonymous {
				ft := sf.Type
				if ft.Kind() == reflect.Pointer {
					return false
				}
				if name == "" && ft.Kind() == reflect.Struct {
					if !walk(ft, idx) {
						return false
					}
					continue
				}
			}
			if !sf.IsExported() {
				continue
			}
			if name == "" {
				name = sf.Name
			} else if !plainTagName(name) {
				return false
			}
			omitEmpty := false
			for opt := range strings.SplitSeq(opts, ",") {
				switch opt {
				case "omitempty":
					omitEmpty = true
				case "string", "omitzero":
					return false
				}
			}
			if seen[name] {
				return false
			}
			seen[name] = true
			fields = append(fields, structField{name: name, el: fieldElement(name), index: idx, omitEmpty: omitEmpty})
		}
		return true
	}
	return fields, walk(typ, nil)
}

// plainTagName reports whether a json tag name is one encoding/json takes as written:
// letters, digits and a few marks (it takes more; those go to encoding/json).
func plainTagName(s string) bool {
	for _, c := range s {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-' || c == '.' || c == '/') {
			return false
		}
	}
	return true
}

// isEmptyValue is encoding/json's test for omitempty.
func isEmptyValue(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.Array, reflect.Map, reflect.Slice, reflect.String:
		return v.Len() == 0
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64, reflect.Interface, reflect.Pointer:
		return v.IsZero()
	}
	return false
}

// TrackCreate is [TrackCreate] for a typed object: the managedFields a create of obj by
// manager records, the same entries, to the byte, that TrackCreate(kind,
// json.Marshal(obj), manager, now) returns. Errors are *Error for a bad manager, and
// encoding/json's own for a value it cannot encode (a NaN, a channel).
func (t *FieldTracker) TrackCreate(kind string, obj api.Object, manager string, now time.Time) ([]api.ManagedFieldsEntry, error) {
	if err := validateManager(manager); err != nil {
		return nil, err
	}
	if manager == "" {
		return nil, nil
	}
	var b trieBuilder
	set, err := t.fieldsOf(&b, obj, kindSchemas[kind], kind, false)
	if err != nil {
		return nil, err
	}
	if set.empty() {
		return nil, nil
	}
	at := api.NewTime(now)
	return []api.ManagedFieldsEntry{{
		Manager:    manager,
		Operation:  operationUpdate,
		APIVersion: obj.GetTypeMeta().APIVersion,
		Time:       &at,
		FieldsType: "FieldsV1",
		FieldsV1:   set.appendFieldsV1(make([]byte, 0, 256)),
	}}, nil
}

// fieldsOf is the package's fieldsOf for a typed object: the field set of obj's JSON,
// built with b.
func (t *FieldTracker) fieldsOf(b *trieBuilder, obj any, s *schema, kind string, skipStatus bool) (*tnode, error) {
	v := reflect.ValueOf(obj)
	if v.Kind() == reflect.Pointer && !v.IsNil() {
		v = v.Elem()
	}
	ti := t.info(v.Type())
	if v.Kind() != reflect.Struct || ti.generic || ti.marshaler || (ti.ptrMarshaler && v.CanAddr()) {
		return fieldsOfJSON(b, obj, s, kind, skipStatus)
	}
	set := b.child(&tnode{}, "")
	for _, sf := range ti.fields {
		fv := v.FieldByIndex(sf.index)
		if sf.omitEmpty && isEmptyValue(fv) {
			continue
		}
		switch {
		case sf.name == "apiVersion" || sf.name == "kind":
		case sf.name == "status" && skipStatus && statusKinds[kind]:
		case sf.name == "metadata":
			mt := t.info(fv.Type())
			if fv.Kind() != reflect.Struct || mt.generic || mt.marshaler || (mt.ptrMarshaler && fv.CanAddr()) {
				return fieldsOfJSON(b, obj, s, kind, skipStatus)
			}
			ms := s.child("metadata")
			mn := b.child(set, sf.el)
			for _, mf := range mt.fields {
				mv := fv.FieldByIndex(mf.index)
				if (mf.omitEmpty && isEmptyValue(mv)) || serverFields[mf.name] || mf.name == "name" || mf.name == "namespace" {
					continue
				}
				if err := t.add(b, mn, mf.el, mv, ms.lookup(mf.name)); err != nil {
					return nil, err
				}
			}
			set.dropIfEmpty(sf.el)
		default:
			if err := t.add(b, set, sf.el, fv, s.lookup(sf.name)); err != nil {
				return nil, err
			}
		}
	}
	return set, nil
}

// fieldsOfJSON is the slow path of fieldsOf: through encoding/json.
func fieldsOfJSON(b *trieBuilder, obj any, s *schema, kind string, skipStatus bool) (*tnode, error) {
	raw, err := json.Marshal(obj)
	if err != nil {
		return nil, err
	}
	m, err := decodeObject(raw)
	if err != nil {
		return nil, fmt.Errorf("the object does not encode as a JSON object: %w", err)
	}
	set := &tnode{}
	b.graft(set, fieldsOf(m, s, kind, skipStatus))
	return set, nil
}

// add is addFields for a typed value: it adds the members of v, the value of member el
// of parent, to parent's subtree, exactly as addFields adds those of v's JSON.
func (t *FieldTracker) add(b *trieBuilder, parent *tnode, el string, v reflect.Value, f *fieldMeta) error {
	ti := t.info(v.Type())
	if ti.marshaler || (ti.ptrMarshaler && v.CanAddr()) || ti.generic {
		return t.addGeneric(b, parent, el, v, f)
	}
	var elem *schema
	if f != nil {
		elem = f.elem
	}
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			return nil
		}
		return t.add(b, parent, el, v.Elem(), f)
	case reflect.Struct:
		n := b.child(parent, el)
		members := 0
		for _, sf := range ti.fields {
			fv := v.FieldByIndex(sf.index)
			if sf.omitEmpty && isEmptyValue(fv) {
				continue
			}
			members++
			if err := t.add(b, n, sf.el, fv, elem.lookup(sf.name)); err != nil {
				return err
			}
		}
		if members == 0 { // {}
			n.self = true
			return nil
		}
		parent.dropIfEmpty(el)
	case reflect.Map:
		if v.IsNil() {
			return nil
		}
		if v.Len() == 0 {
			b.child(parent, el).self = true
			return nil
		}
		n := b.child(parent, el)
		if m, ok := v.Interface().(map[string]string); ok { // labels, annotations: every value a leaf
			for k := range m {
				b.child(n, fieldElement(k)).self = true
			}
			return nil
		}
		for it := v.MapRange(); it.Next(); {
			k := it.Key().String()
			if err := t.add(b, n, fieldElement(k), it.Value(), elem.lookup(k)); err != nil {
				return err
			}
		}
		parent.dropIfEmpty(el)
	case reflect.Slice, reflect.Array:
		if v.Kind() == reflect.Slice && v.IsNil() {
			return nil
		}
		if ti.bytes || f == nil || !f.merge {
			b.child(parent, el).self = true // a string, or an atomic list: one leaf
			return nil
		}
		n := b.child(parent, el)
		for i := range v.Len() {
			if err := t.addItem(b, n, v.Index(i), f, elem); err != nil {
				return err
			}
		}
		parent.dropIfEmpty(el)
	case reflect.Float32, reflect.Float64:
		if x := v.Float(); math.IsNaN(x) || math.IsInf(x, 0) {
			return &json.UnsupportedValueError{Value: v, Str: strconv.FormatFloat(x, 'g', -1, v.Type().Bits())}
		}
		b.child(parent, el).self = true
	case reflect.String, reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		b.child(parent, el).self = true
	default:
		return &json.UnsupportedTypeError{Type: v.Type()}
	}
	return nil
}

// addItem adds one element of a merged list (a set, or a list keyed by f.mergeKey)
// under n, the list's node, as addFields does.
func (t *FieldTracker) addItem(b *trieBuilder, n *tnode, item reflect.Value, f *fieldMeta, elem *schema) error {
	if f.mergeKey == "" {
		x, err := t.jsonValue(item)
		if err != nil {
			return err
		}
		b.child(n, valueElement(x)).self = true
		return nil
	}
	item, ti, walkable := t.keyedItem(item)
	if !walkable {
		x, err := t.jsonValue(item)
		if err != nil {
			return err
		}
		m, ok := x.(map[string]any)
		if !ok {
			return nil
		}
		key, ok := m[f.mergeKey]
		if !ok {
			return nil
		}
		elemSet := newFieldSet()
		elemSet.self = true
		for k, x := range m {
			addFields(elemSet, fieldElement(k), x, elem.lookup(k))
		}
		b.graft(b.child(n, keyElement(f.mergeKey, key)), elemSet)
		return nil
	}
	var it *tnode
	for _, sf := range ti.fields {
		if sf.name != f.mergeKey {
			continue
		}
		kv := item.FieldByIndex(sf.index)
		if sf.omitEmpty && isEmptyValue(kv) {
			return nil // no key: addFields skips the element
		}
		keyEl, err := t.keyElementOf(f.mergeKey, kv)
		if err != nil {
			return err
		}
		it = b.child(n, keyEl)
	}
	if it == nil {
		return nil
	}
	it.self = true
	for _, sf := range ti.fields {
		fv := item.FieldByIndex(sf.index)
		if sf.omitEmpty && isEmptyValue(fv) {
			continue
		}
		if err := t.add(b, it, sf.el, fv, elem.lookup(sf.name)); err != nil {
			return err
		}
	}
	return nil
}

// addGeneric adds v through encoding/json: v's JSON, decoded as the JSON functions
// decode it, goes to addFields.
func (t *FieldTracker) addGeneric(b *trieBuilder, parent *tnode, el string, v reflect.Value, f *fieldMeta) error {
	x, err := t.jsonValue(v)
	if err != nil {
		return err
	}
	tmp := newFieldSet()
	addFields(tmp, el, x, f)
	if c, ok := tmp.children[el]; ok {
		b.graft(b.child(parent, el), c)
	}
	return nil
}

// jsonValue returns v as the JSON functions hold its JSON: a string, a bool, a
// json.Number, nil, or (through encoding/json) a map or slice of those.
func (t *FieldTracker) jsonValue(v reflect.Value) (any, error) {
	ti := t.info(v.Type())
	if !ti.marshaler && !(ti.ptrMarshaler && v.CanAddr()) && !ti.generic {
		switch v.Kind() {
		case reflect.String:
			return v.String(), nil
		case reflect.Bool:
			return v.Bool(), nil
		case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
			return json.Number(strconv.FormatInt(v.Int(), 10)), nil
		case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
			return json.Number(strconv.FormatUint(v.Uint(), 10)), nil
		case reflect.Pointer, reflect.Interface:
			if v.IsNil() {
				return nil, nil
			}
			return t.jsonValue(v.Elem())
		}
	}
	// Marshal through a pointer where there is one, so that encoding/json sees the
	// value as addressable, as it does inside the whole object.
	var raw []byte
	var err error
	if v.CanAddr() {
		raw, err = json.Marshal(v.Addr().Interface())
	} else {
		raw, err = json.Marshal(v.Interface())
	}
	if err != nil {
		return nil, err
	}
	return decode(raw)
}

// keyElementOf is keyElement(key, the JSON of v), without encoding/json for the usual
// key: a string or an integer.
func (t *FieldTracker) keyElementOf(key string, v reflect.Value) (string, error) {
	ti := t.info(v.Type())
	if plainString(key) && !ti.marshaler && !(ti.ptrMarshaler && v.CanAddr()) && !ti.generic {
		var b []byte
		switch v.Kind() {
		case reflect.String:
			b = make([]byte, 0, len(key)+v.Len()+10)
			b = appendJSONString(append(append(append(b, `k:{"`...), key...), `":`...), v.String())
		case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
			b = make([]byte, 0, len(key)+30)
			b = strconv.AppendInt(append(append(append(b, `k:{"`...), key...), `":`...), v.Int(), 10)
		}
		if b != nil {
			return string(append(b, '}')), nil
		}
	}
	x, err := t.jsonValue(v)
	if err != nil {
		return "", err
	}
	return keyElement(key, x), nil
}

// plainString reports whether s encodes in JSON as itself between quotes: printable
// ASCII without a quote or backslash.
func plainString(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c > 0x7e || c == '"' || c == '\\' {
			return false
		}
	}
	return true
}

// tnode is a field set as the typed walk builds it: fieldSet's trie with each node's
// children in a list kept sorted by element, found by a scan (an object has few members;
// a keyed list of n elements costs n² string comparisons, small for the lists objects
// hold), and its nodes handed out in blocks by a trieBuilder, so that a create's whole
// set is one or two allocations and renders without a sort.
type tnode struct {
	el    string // the element naming this node under its parent
	self  bool
	first *tnode // the first child, in element order
	next  *tnode // the next sibling
}

func (n *tnode) empty() bool { return !n.self && n.first == nil }

// dropIfEmpty removes n's child el when it has no member (nor any below it).
func (n *tnode) dropIfEmpty(el string) {
	for link := &n.first; *link != nil; link = &(*link).next {
		if c := *link; c.el == el {
			if c.empty() {
				*link = c.next
			}
			return
		}
	}
}

// trieBuilder hands out the nodes of one tnode trie.
type trieBuilder struct {
	free []tnode
}

// child returns the node of member el under p, adding an empty one when missing.
func (b *trieBuilder) child(p *tnode, el string) *tnode {
	link := &p.first
	for ; *link != nil && (*link).el <= el; link = &(*link).next {
		if (*link).el == el {
			return *link
		}
	}
	if len(b.free) == 0 {
		b.free = make([]tnode, 16)
	}
	n := &b.free[0]
	b.free = b.free[1:]
	n.el, n.next = el, *link
	*link = n
	return n
}

// graft adds the members of src to dst.
func (b *trieBuilder) graft(dst *tnode, src *fieldSet) {
	dst.self = dst.self || src.self
	for el, c := range src.children {
		b.graft(b.child(dst, el), c)
	}
}

// appendFieldsV1 appends the set's FieldsV1 encoding to buf, byte for byte what
// encode(fieldSet.fieldsV1()) writes for the same set: members in sorted order, "."
// (the node is a member itself) first.
func (n *tnode) appendFieldsV1(buf []byte) []byte {
	buf = append(buf, '{')
	if n.self && n.first != nil {
		buf = append(buf, `".":{},`...)
	}
	for c := n.first; c != nil; c = c.next {
		buf = appendJSONString(buf, c.el)
		buf = append(buf, ':')
		buf = c.appendFieldsV1(buf)
		if c.next != nil {
			buf = append(buf, ',')
		}
	}
	return append(buf, '}')
}

// appendJSONString appends s as a JSON string, byte for byte as encode writes it
// (encoding/json without HTML escaping): quote and backslash escaped, control
// characters as \b \f \n \r \t or \u00XX, invalid UTF-8 as \ufffd, U+2028 and U+2029
// escaped.
func appendJSONString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hex[r&0xF])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// keyedItem returns a keyed list's item with its pointers and interfaces
// followed, and whether it can be walked field by field as a struct: not
// when it is no struct, or encoding/json would encode it some other way (a
// marshaler, a type the plan reads generically), which the caller then
// reads through jsonValue; and the plan of its type.
func (t *FieldTracker) keyedItem(item reflect.Value) (reflect.Value, *typeInfo, bool) {
	for item.Kind() == reflect.Pointer || item.Kind() == reflect.Interface {
		if t.info(item.Type()).marshaler || item.IsNil() {
			break
		}
		item = item.Elem()
	}
	ti := t.info(item.Type())
	return item, ti, !(item.Kind() != reflect.Struct || ti.generic || ti.marshaler || (ti.ptrMarshaler && item.CanAddr()))
}
