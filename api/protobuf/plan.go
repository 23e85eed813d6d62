package protobuf

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"

	"google.golang.org/protobuf/encoding/protowire"

	"github.com/miniplane/miniplane/api"
)

// kind says how one value is written on the wire.
type kind uint8

const (
	kindBool        kind = iota + 1 // varint 0 or 1
	kindInt                         // any signed integer kind: varint of the sign-extended value
	kindUint                        // any unsigned integer kind: varint
	kindFloat                       // float64: fixed64, a proto double
	kindString                      // string or a string-kinded named type (an enum such as api.PodPhase)
	kindBytes                       // []byte
	kindMessage                     // a struct with its own plan
	kindTime                        // api.Time
	kindMicroTime                   // api.MicroTime
	kindIntOrString                 // api.IntOrString
	kindQuantity                    // a string written as resource.Quantity {string string = 1}
	kindRawJSON                     // json.RawMessage written as {bytes raw = 1}
)

// shape says how many values a field holds and when it is written.
type shape uint8

const (
	// shapeSingle is a non-pointer value, written always.
	shapeSingle shape = iota
	// shapeNilable is a []byte or omitempty json.RawMessage, written only when non-nil.
	shapeNilable
	// shapePointer is a pointer, written (its element) only when non-nil.
	shapePointer
	// shapeRepeated is a slice, written as one field per element.
	shapeRepeated
	// shapeMap is a map with string keys, written as one entry message per key, sorted.
	shapeMap
)

// codec describes one value: a field's value, a slice's element, or a map entry's value.
type codec struct {
	kind kind
	typ  reflect.Type // the Go type of the value
	msg  *messagePlan // for kindMessage
}

// wireType is the wire type a value of c is written with, unpacked.
func (c *codec) wireType() protowire.Type {
	switch c.kind {
	case kindBool, kindInt, kindUint:
		return protowire.VarintType
	case kindFloat:
		return protowire.Fixed64Type
	default:
		return protowire.BytesType
	}
}

// field is one tagged struct field.
type field struct {
	name  string // the protobuf name from the tag ("metadata"), for errors
	index int    // index of the field in its struct
	num   protowire.Number
	tag   []byte // num and the wire type of one value, encoded: written before every value
	shape shape
	val   codec // the value; for a slice, one element; for a map, one entry's value
	typ   reflect.Type
}

// messagePlan is how to write and read one struct type. It is built once per type and
// never changed after it is published in the cache.
type messagePlan struct {
	typ    reflect.Type
	fields []field // in ascending field number: the order gogo writes them
	// byNum maps a field number to its index in fields plus one (0: no such field), for
	// numbers below len(byNum); larger numbers are looked up in byLargeNum.
	byNum      []int
	byLargeNum map[protowire.Number]int
}

// lookup returns the field numbered num, or nil when the struct has none.
func (p *messagePlan) lookup(num protowire.Number) *field {
	if int(num) < len(p.byNum) {
		if i := p.byNum[num]; i > 0 {
			return &p.fields[i-1]
		}
		return nil
	}
	if i, ok := p.byLargeNum[num]; ok {
		return &p.fields[i]
	}
	return nil
}

// maxDenseFieldNumber bounds the size of messagePlan.byNum.
const maxDenseFieldNumber = 512

// The Go types with a hand-written wire form.
var (
	timeType        = reflect.TypeFor[api.Time]()
	microTimeType   = reflect.TypeFor[api.MicroTime]()
	intOrStringType = reflect.TypeFor[api.IntOrString]()
	quantityType    = reflect.TypeFor[api.Quantity]()
	resourceList    = reflect.TypeFor[api.ResourceList]()
	rawJSONType     = reflect.TypeFor[json.RawMessage]()
)

// plans caches a *messagePlan per reflect.Type. Plans are immutable once stored. buildMu
// serialises building, so that a recursive type is built once and stored only when every
// type it reaches has been built without error.
var (
	plans   sync.Map
	buildMu sync.Mutex
)

// planFor returns the plan of struct type t, building and caching it on first use.
func planFor(t reflect.Type) (*messagePlan, error) {
	if p, ok := plans.Load(t); ok {
		return p.(*messagePlan), nil
	}
	buildMu.Lock()
	defer buildMu.Unlock()
	if p, ok := plans.Load(t); ok {
		return p.(*messagePlan), nil
	}
	b := builder{building: map[reflect.Type]*messagePlan{}}
	p, err := b.message(t)
	if err != nil {
		return nil, err
	}
	for typ, built := range b.building {
		plans.Store(typ, built)
	}
	return p, nil
}

// builder builds the plans of one type and every type it reaches. building holds the plans
// begun so far, so that a type reached again while it is being built (a recursive type)
// gets the same, then still incomplete, plan.
type builder struct {
	building map[reflect.Type]*messagePlan
}

func (b *builder) message(t reflect.Type) (*messagePlan, error) {
	if t.Kind() != reflect.Struct {
		return nil, fmt.Errorf("protobuf: %v is not a struct", t)
	}
	if p, ok := plans.Load(t); ok {
		return p.(*messagePlan), nil
	}
	if p, ok := b.building[t]; ok {
		return p, nil
	}
	p := &messagePlan{typ: t}
	b.building[t] = p
	maxNum := protowire.Number(0)
	for i := range t.NumField() {
		sf := t.Field(i)
		tag, ok := sf.Tag.Lookup("protobuf")
		if !ok {
			continue // not on the wire, as TypeMeta
		}
		if !sf.IsExported() {
			return nil, fmt.Errorf("protobuf: %v.%s: unexported field has a protobuf tag", t, sf.Name)
		}
		f, err := b.field(sf, tag)
		if err != nil {
			return nil, fmt.Errorf("protobuf: %v.%s: %w", t, sf.Name, err)
		}
		f.index = i
		p.fields = append(p.fields, f)
		maxNum = max(maxNum, f.num)
	}
	slices.SortFunc(p.fields, func(a, b field) int { return int(a.num) - int(b.num) })
	for i := 1; i < len(p.fields); i++ {
		if p.fields[i].num == p.fields[i-1].num {
			return nil, fmt.Errorf("protobuf: %v: fields %s and %s share number %d",
				t, p.fields[i-1].name, p.fields[i].name, p.fields[i].num)
		}
	}
	if maxNum < maxDenseFieldNumber {
		p.byNum = make([]int, maxNum+1)
		for i, f := range p.fields {
			p.byNum[f.num] = i + 1
		}
	} else {
		p.byLargeNum = make(map[protowire.Number]int, len(p.fields))
		for i, f := range p.fields {
			p.byLargeNum[f.num] = i
		}
	}
	return p, nil
}

// field builds the plan of one struct field from its Go type and its protobuf tag.
func (b *builder) field(sf reflect.StructField, tag string) (field, error) {
	num, name, err := parseTag(tag)
	if err != nil {
		return field{}, err
	}
	f := field{name: name, num: num, typ: sf.Type}
	t := sf.Type
	switch {
	case t == rawJSONType:
		f.shape = shapeSingle
		if jsonOmitEmpty(sf) {
			f.shape = shapeNilable
		}
		f.val = codec{kind: kindRawJSON, typ: t}
	case t.Kind() == reflect.Slice && t.Elem().Kind() == reflect.Uint8:
		f.shape = shapeNilable
		f.val = codec{kind: kindBytes, typ: t}
	case t.Kind() == reflect.Pointer:
		f.shape = shapePointer
		f.val, err = b.value(t.Elem())
	case t.Kind() == reflect.Slice:
		f.shape = shapeRepeated
		f.val, err = b.value(t.Elem())
	case t.Kind() == reflect.Map:
		f.shape = shapeMap
		f.val, err = b.mapValue(sf, t)
	default:
		f.shape = shapeSingle
		f.val, err = b.value(t)
	}
	if err != nil {
		return field{}, err
	}
	f.tag = protowire.AppendTag(nil, num, f.val.wireType())
	return f, nil
}

// value builds the codec of one value of type t: a field, a pointer's or slice's element.
func (b *builder) value(t reflect.Type) (codec, error) {
	switch t {
	case timeType:
		return codec{kind: kindTime, typ: t}, nil
	case microTimeType:
		return codec{kind: kindMicroTime, typ: t}, nil
	case intOrStringType:
		return codec{kind: kindIntOrString, typ: t}, nil
	case rawJSONType:
		return codec{kind: kindRawJSON, typ: t}, nil
	case quantityType:
		return codec{kind: kindQuantity, typ: t}, nil
	}
	switch t.Kind() {
	case reflect.Bool:
		return codec{kind: kindBool, typ: t}, nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return codec{kind: kindInt, typ: t}, nil
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return codec{kind: kindUint, typ: t}, nil
	case reflect.Float64:
		return codec{kind: kindFloat, typ: t}, nil
	case reflect.String:
		return codec{kind: kindString, typ: t}, nil
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 {
			return codec{kind: kindBytes, typ: t}, nil
		}
	case reflect.Struct:
		p, err := b.message(t)
		if err != nil {
			return codec{}, err
		}
		return codec{kind: kindMessage, typ: t, msg: p}, nil
	}
	return codec{}, fmt.Errorf("%v has no protobuf encoding here", t)
}

// mapValue builds the codec of the values of map type t, checking the key and value tags
// when the field has them.
func (b *builder) mapValue(sf reflect.StructField, t reflect.Type) (codec, error) {
	if t.Key().Kind() != reflect.String {
		return codec{}, fmt.Errorf("map key type %v is not a string", t.Key())
	}
	var val codec
	if t == resourceList {
		val = codec{kind: kindQuantity, typ: t.Elem()}
	} else {
		var err error
		if val, err = b.value(t.Elem()); err != nil {
			return codec{}, err
		}
		if val.kind == kindRawJSON {
			return codec{}, fmt.Errorf("map values of type %v are not supported", t.Elem())
		}
	}
	// The entry's key is field 1 and its value field 2; check the tags that say so.
	for i, tagName := range []string{"protobuf_key", "protobuf_val"} {
		if tag, ok := sf.Tag.Lookup(tagName); ok {
			num, _, err := parseTag(tag)
			if err != nil {
				return codec{}, fmt.Errorf("%s: %w", tagName, err)
			}
			if num != protowire.Number(i+1) {
				return codec{}, fmt.Errorf("%s %q: a map entry's key is field 1 and its value field 2", tagName, tag)
			}
		}
	}
	return val, nil
}

// parseTag reads a protobuf struct tag in k8s.io/api's form: wire type, field number,
// opt/rep, then key=value options, e.g. "bytes,2,rep,name=containers". It returns the
// field number and the name. The wire type and opt/rep are read from the field's Go type
// instead, as go-to-protobuf generates the .proto from Go types: upstream's tags are wrong
// in places (PodSpec.priority, an int32 written as a varint, is tagged "bytes"; a
// ResourceList is tagged "opt"; JSONSchemaProps tags its doubles and bools "bytes"), and
// the generated code follows the Go type. The wire type must still be one that upstream's
// generated.proto files use, to catch typos.
func parseTag(tag string) (num protowire.Number, name string, err error) {
	parts := strings.Split(tag, ",")
	if len(parts) < 2 {
		return 0, "", fmt.Errorf("protobuf tag %q: want wire type and field number", tag)
	}
	if parts[0] != "varint" && parts[0] != "bytes" && parts[0] != "fixed64" {
		return 0, "", fmt.Errorf("protobuf tag %q: wire type %q is not varint, bytes or fixed64, the only three Kubernetes' types use", tag, parts[0])
	}
	n, err := strconv.ParseInt(parts[1], 10, 32)
	if err != nil || !protowire.Number(n).IsValid() {
		return 0, "", fmt.Errorf("protobuf tag %q: %q is not a valid field number", tag, parts[1])
	}
	for _, opt := range parts[2:] {
		if v, ok := strings.CutPrefix(opt, "name="); ok {
			name = v
		}
	}
	if name == "" {
		name = parts[1]
	}
	return protowire.Number(n), name, nil
}

// jsonOmitEmpty reports whether sf's json tag has the omitempty option.
func jsonOmitEmpty(sf reflect.StructField) bool {
	_, opts, _ := strings.Cut(sf.Tag.Get("json"), ",")
	return slices.Contains(strings.Split(opts, ","), "omitempty")
}

// wireName names a wire type the way protobuf tags do.
func wireName(t protowire.Type) string {
	switch t {
	case protowire.VarintType:
		return "varint"
	case protowire.Fixed64Type:
		return "fixed64"
	case protowire.BytesType:
		return "bytes"
	case protowire.StartGroupType:
		return "start group"
	case protowire.EndGroupType:
		return "end group"
	case protowire.Fixed32Type:
		return "fixed32"
	default:
		return "wire type " + strconv.Itoa(int(t))
	}
}
