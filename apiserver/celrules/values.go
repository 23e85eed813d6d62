package celrules

import (
	"encoding/base64"
	"fmt"
	"reflect"
	"slices"
	"time"

	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	"github.com/google/cel-go/common/types/traits"
)

// toVal wraps decoded JSON v, of declared type t, as a CEL value. Objects,
// maps and lists are wrapped, not converted: their elements are wrapped when
// read. Kubernetes: UnstructuredToVal.
func toVal(v any, t *declType) ref.Val {
	if v == nil {
		if t.schema != nil && t.schema.Nullable {
			return types.NullValue
		}
		return types.NewErr("invalid data, got null for schema with nullable=false")
	}
	switch t.kind {
	case dynKind:
		switch v := v.(type) {
		case string:
			return types.String(v)
		case int64:
			return types.Int(v)
		}
		return types.NewErr("invalid data, expected XIntOrString value to be either a string or integer")
	case objectKind, mapKind:
		m, ok := v.(map[string]any)
		if !ok {
			return types.NewErr("invalid data, expected a map for the provided schema with type=object")
		}
		return &objectVal{m: m, t: t}
	case listKind:
		l, ok := v.([]any)
		if !ok {
			return types.NewErr("invalid data, expected an array for the provided schema with type=array")
		}
		return &listVal{l: l, t: t}
	}
	return scalarVal(v, t)
}

func scalarVal(v any, t *declType) ref.Val {
	switch t.cel {
	case types.StringType:
		if s, ok := v.(string); ok {
			return types.String(s)
		}
	case types.TimestampType:
		if s, ok := v.(string); ok {
			layouts := []string{time.RFC3339Nano, "2006-01-02T15:04:05Z0700", "2006-01-02T15:04:05.999999999Z0700"}
			if t.schema.Format == "date" {
				layouts = []string{"2006-01-02"}
			}
			for _, l := range layouts {
				if ts, err := time.Parse(l, s); err == nil {
					return types.Timestamp{Time: ts}
				}
			}
			return types.NewErr("Invalid %s formatted string %s", t.schema.Format, s)
		}
	case types.DurationType:
		if s, ok := v.(string); ok {
			d, err := time.ParseDuration(s)
			if err != nil {
				return types.NewErr("Invalid duration %s: %v", s, err)
			}
			return types.Duration{Duration: d}
		}
	case types.BytesType:
		if s, ok := v.(string); ok {
			b, err := base64.StdEncoding.DecodeString(s)
			if err != nil {
				return types.NewErr("Invalid byte formatted string %s: %v", s, err)
			}
			return types.Bytes(b)
		}
	case types.IntType:
		if n, ok := v.(int64); ok {
			return types.Int(n)
		}
	case types.DoubleType:
		switch n := v.(type) {
		case int64:
			return types.Double(float64(n))
		case float64:
			return types.Double(n)
		}
	case types.BoolType:
		if b, ok := v.(bool); ok {
			return types.Bool(b)
		}
	}
	return types.NewErr("invalid data, expected %s, got %T", t.cel, v)
}

// objectVal is an object (by its escaped field names) or a map (by its keys).
// A null field of an object is absent, as in Kubernetes.
type objectVal struct {
	m map[string]any
	t *declType // objectKind or mapKind
}

var _ traits.Mapper = (*objectVal)(nil)

// entry returns the JSON key and type of the field or key k.
func (o *objectVal) entry(k string) (string, *declType, bool) {
	if o.t.kind == mapKind {
		return k, o.t.elem, true
	}
	f := o.t.field(k)
	if f == nil {
		return "", nil, false
	}
	return f.jsonName, f.t, true
}

func (o *objectVal) Find(key ref.Val) (ref.Val, bool) {
	k, ok := key.(types.String)
	if !ok {
		return types.MaybeNoSuchOverloadErr(key), true
	}
	name, t, ok := o.entry(string(k))
	if !ok {
		return nil, false
	}
	v, ok := o.m[name]
	if !ok || (v == nil && o.t.kind == objectKind) {
		return nil, false
	}
	return toVal(v, t), true
}

func (o *objectVal) Get(key ref.Val) ref.Val {
	if v, ok := o.Find(key); ok {
		return v
	}
	return types.ValOrErr(key, "no such key: %v", key)
}

func (o *objectVal) Contains(key ref.Val) ref.Val {
	v, found := o.Find(key)
	if v != nil && types.IsUnknownOrError(v) {
		return v
	}
	return types.Bool(found)
}

// IsSet answers has(self.field).
func (o *objectVal) IsSet(field ref.Val) ref.Val { return o.Contains(field) }

func (o *objectVal) Size() ref.Val { return types.Int(len(o.m)) }

func (o *objectVal) Iterator() traits.Iterator {
	keys := make([]ref.Val, 0, len(o.m))
	if o.t.kind == mapKind {
		for _, k := range sortedKeys(o.m) {
			keys = append(keys, types.String(k))
		}
	} else {
		for esc, f := range o.t.fields {
			if _, ok := o.m[f.jsonName]; ok {
				keys = append(keys, types.String(esc))
			}
		}
		slices.SortFunc(keys, func(a, b ref.Val) int { return compareStrings(a, b) })
	}
	return &iterator{vals: keys}
}

func (o *objectVal) Equal(other ref.Val) ref.Val {
	om, ok := other.(traits.Mapper)
	if !ok {
		return types.MaybeNoSuchOverloadErr(other)
	}
	if o.Size() != om.Size() {
		return types.False
	}
	ov, sameKind := other.(*objectVal)
	for k, v := range o.m {
		key := k
		if o.t.kind == objectKind {
			key, _ = escape(k)
		}
		_, t, typed := o.entry(key)
		if !typed || key == "" {
			// A field CEL cannot see still counts.
			if !sameKind || !reflect.DeepEqual(v, ov.m[k]) {
				return types.False
			}
			continue
		}
		w, found := om.Find(types.String(key))
		if !found {
			if v == nil && sameKind {
				if _, has := ov.m[k]; has && ov.m[k] == nil {
					continue
				}
			}
			return types.False
		}
		if eq := toVal(v, t).Equal(w); eq != types.True {
			return eq
		}
	}
	return types.True
}

func (o *objectVal) Type() ref.Type {
	if o.t.kind == objectKind {
		return o.t.cel
	}
	return types.MapType
}

func (o *objectVal) Value() any { return o.m }

func (o *objectVal) ConvertToNative(typeDesc reflect.Type) (any, error) {
	if typeDesc.Kind() == reflect.Map {
		return o.m, nil
	}
	return nil, fmt.Errorf("type conversion error from '%s' to '%s'", o.Type().TypeName(), typeDesc)
}

func (o *objectVal) ConvertToType(t ref.Type) ref.Val {
	switch t {
	case types.TypeType:
		return o.Type().(ref.Val)
	case types.MapType:
		if o.t.kind == mapKind {
			return o
		}
	}
	if t.TypeName() == o.Type().TypeName() {
		return o
	}
	return types.NewErr("type conversion error from '%s' to '%s'", o.Type().TypeName(), t.TypeName())
}

// listVal is a list; one of list-type set or map compares and concatenates
// as a set or by its keys, as in Kubernetes.
type listVal struct {
	l []any
	t *declType // listKind
}

var _ traits.Lister = (*listVal)(nil)

func (l *listVal) listType() string {
	if lt := l.t.schema.XListType; lt != nil {
		return *lt
	}
	return "atomic"
}

func (l *listVal) Get(idx ref.Val) ref.Val {
	i, ok := idx.(types.Int)
	if !ok {
		return types.ValOrErr(idx, "unsupported index: %v", idx)
	}
	if i < 0 || int(i) >= len(l.l) {
		return types.NewErr("index out of bounds: %v", idx)
	}
	return toVal(l.l[i], l.t.elem)
}

func (l *listVal) Size() ref.Val { return types.Int(len(l.l)) }

func (l *listVal) Iterator() traits.Iterator {
	vals := make([]ref.Val, len(l.l))
	for i, e := range l.l {
		vals[i] = toVal(e, l.t.elem)
	}
	return &iterator{vals: vals}
}

func (l *listVal) Contains(v ref.Val) ref.Val {
	if types.IsUnknownOrError(v) {
		return v
	}
	var err ref.Val
	for _, e := range l.l {
		eq := toVal(e, l.t.elem).Equal(v)
		if eq == types.True {
			return types.True
		}
		if _, isBool := eq.(types.Bool); !isBool && err == nil {
			err = types.MaybeNoSuchOverloadErr(eq)
		}
	}
	if err != nil {
		return err
	}
	return types.False
}

// key is the identity of item e in a list-type map: its key fields' values.
func (l *listVal) key(e any) string {
	m, _ := e.(map[string]any)
	key := make([]any, len(l.t.schema.XListMapKeys))
	for i, k := range l.t.schema.XListMapKeys {
		key[i] = m[k]
	}
	return fmt.Sprintf("%#v", key)
}

func (l *listVal) Equal(other ref.Val) ref.Val {
	ol, ok := other.(traits.Lister)
	if !ok {
		return types.MaybeNoSuchOverloadErr(other)
	}
	if l.Size() != ol.Size() {
		return types.False
	}
	switch l.listType() {
	case "set":
		for it := ol.Iterator(); it.HasNext() == types.True; {
			if l.Contains(it.Next()) != types.True {
				return types.False
			}
		}
		return types.True
	case "map":
		byKey := make(map[string]any, len(l.l))
		for _, e := range l.l {
			byKey[l.key(e)] = e
		}
		for it := ol.Iterator(); it.HasNext() == types.True; {
			e := it.Next()
			mine, found := byKey[l.key(e.Value())]
			if !found {
				return types.False
			}
			if eq := toVal(mine, l.t.elem).Equal(e); eq != types.True {
				return eq
			}
		}
		return types.True
	}
	for i := range l.l {
		if eq := l.Get(types.Int(i)).Equal(ol.Get(types.Int(i))); eq != types.True {
			return eq
		}
	}
	return types.True
}

// Add concatenates; a set adds only what it lacks, a map list replaces the
// items whose keys it has and appends the others.
func (l *listVal) Add(other ref.Val) ref.Val {
	ol, ok := other.(traits.Lister)
	if !ok {
		return types.MaybeNoSuchOverloadErr(other)
	}
	items := slices.Clone(l.l)
	var at map[string]int
	if l.listType() == "map" {
		at = make(map[string]int, len(items))
		for i, e := range items {
			at[l.key(e)] = i
		}
	}
	for it := ol.Iterator(); it.HasNext() == types.True; {
		e := it.Next()
		switch l.listType() {
		case "set":
			if (&listVal{l: items, t: l.t}).Contains(e) != types.True {
				items = append(items, e.Value())
			}
		case "map":
			k := l.key(e.Value())
			if i, found := at[k]; found {
				items[i] = e.Value()
			} else {
				at[k] = len(items)
				items = append(items, e.Value())
			}
		default:
			items = append(items, e.Value())
		}
	}
	return &listVal{l: items, t: l.t}
}

func (l *listVal) Type() ref.Type { return types.ListType }

func (l *listVal) Value() any { return l.l }

func (l *listVal) ConvertToNative(typeDesc reflect.Type) (any, error) {
	if typeDesc.Kind() == reflect.Slice {
		return l.l, nil
	}
	return nil, fmt.Errorf("type conversion error from '%s' to '%s'", l.Type().TypeName(), typeDesc)
}

func (l *listVal) ConvertToType(t ref.Type) ref.Val {
	switch t {
	case types.ListType:
		return l
	case types.TypeType:
		return types.ListType
	}
	return types.NewErr("type conversion error from '%s' to '%s'", l.Type().TypeName(), t.TypeName())
}

// iterator walks values computed up front.
type iterator struct {
	vals []ref.Val
	i    int
}

func (it *iterator) HasNext() ref.Val { return types.Bool(it.i < len(it.vals)) }

func (it *iterator) Next() ref.Val {
	if it.i >= len(it.vals) {
		return types.NewErr("no more elements")
	}
	v := it.vals[it.i]
	it.i++
	return v
}

func (it *iterator) Type() ref.Type        { return types.IteratorType }
func (it *iterator) Value() any            { return nil }
func (it *iterator) Equal(ref.Val) ref.Val { return types.False }
func (it *iterator) ConvertToNative(reflect.Type) (any, error) {
	return nil, fmt.Errorf("an iterator converts to nothing")
}
func (it *iterator) ConvertToType(ref.Type) ref.Val {
	return types.NewErr("an iterator converts to nothing")
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

func compareStrings(a, b ref.Val) int {
	as, bs := string(a.(types.String)), string(b.(types.String))
	switch {
	case as < bs:
		return -1
	case as > bs:
		return 1
	}
	return 0
}
