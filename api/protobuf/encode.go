package protobuf

import (
	"fmt"
	"math"
	"reflect"
	"slices"
	"strings"
	"sync"
	"time"

	"google.golang.org/protobuf/encoding/protowire"

	"github.com/miniplane/miniplane/api"
)

// maxDepth bounds the nesting of messages: on decode it bounds the stack whatever the input,
// on encode it turns a pointer cycle into an error instead of a stack overflow. Kubernetes'
// deepest objects nest about ten messages.
const maxDepth = 100

// Marshal returns the bare protobuf message of v, a struct or a pointer to one whose fields
// carry protobuf tags. Pass a pointer: a struct value is copied first. The message is built
// in a pooled buffer and copied out, so Marshal allocates only its result.
func Marshal(v any) ([]byte, error) {
	e := getEncoder()
	defer putEncoder(e)
	buf, err := e.appendTop(e.buf[:0], v)
	e.buf = buf
	if err != nil {
		return nil, err
	}
	return copyOut(buf), nil
}

// copyOut returns a copy of buf in a new slice of exactly its length, never nil: whether
// the pooled buffer was nil must not show in the result.
func copyOut(buf []byte) []byte {
	out := make([]byte, len(buf))
	copy(out, buf)
	return out
}

// Append appends the bare protobuf message of v to b, as [Marshal] writes it. On error it
// returns b unchanged.
func Append(b []byte, v any) ([]byte, error) {
	e := getEncoder()
	defer putEncoder(e)
	return e.appendTop(b, v)
}

// appendTop appends the bare message of v to b, or returns b unchanged and an error.
func (e *encoder) appendTop(b []byte, v any) ([]byte, error) {
	rv, p, err := messageOf(v)
	if err != nil {
		return b, err
	}
	out, err := e.appendMessage(b, p, rv)
	if err != nil {
		return b, err
	}
	return out, nil
}

// messageOf returns v as an addressable struct value and its plan. Addressable values let
// the encoder read api.Time and api.IntOrString through a pointer, without copying them.
func messageOf(v any) (reflect.Value, *messagePlan, error) {
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Pointer:
		if rv.IsNil() {
			return reflect.Value{}, nil, fmt.Errorf("protobuf: cannot encode a nil %T", v)
		}
		rv = rv.Elem()
	case reflect.Struct:
		addressable := reflect.New(rv.Type()).Elem()
		addressable.Set(rv)
		rv = addressable
	}
	if rv.Kind() != reflect.Struct {
		return reflect.Value{}, nil, fmt.Errorf("protobuf: cannot encode %T: not a struct or a pointer to one", v)
	}
	p, err := planFor(rv.Type())
	if err != nil {
		return reflect.Value{}, nil, err
	}
	return rv, p, nil
}

// encoder is the scratch space of one encoding.
type encoder struct {
	// buf is Marshal's output buffer; the result is copied out of it, so it is reused.
	buf []byte
	// keys is a stack of map keys: a map being written sorts its keys above the keys of
	// the maps it is nested in, and pops them when done.
	keys []string
	// depth is how many messages deep the encoder is.
	depth int
}

// encoders recycles encoders, so that an encoding allocates nothing but its output.
var encoders = sync.Pool{New: func() any { return new(encoder) }}

// maxPooledBuffer is the largest buffer an encoder keeps for reuse; a rare huge list
// should not pin its buffer for the life of the process.
const maxPooledBuffer = 1 << 20

func getEncoder() *encoder { return encoders.Get().(*encoder) }

func putEncoder(e *encoder) {
	if cap(e.buf) > maxPooledBuffer {
		e.buf = nil
	}
	e.depth = 0
	encoders.Put(e)
}

// appendMessage appends the fields of struct v, following plan p; the caller has written
// the tag and room for the length, if any.
func (e *encoder) appendMessage(b []byte, p *messagePlan, v reflect.Value) ([]byte, error) {
	if e.depth >= maxDepth {
		return b, fmt.Errorf("protobuf: %v: messages nested deeper than %d (a pointer cycle?)", p.typ, maxDepth)
	}
	e.depth++
	var err error
	for i := range p.fields {
		f := &p.fields[i]
		fv := v.Field(f.index)
		switch f.shape {
		case shapeSingle:
			b, err = e.appendValue(b, f.tag, &f.val, fv)
		case shapeNilable:
			if !fv.IsNil() {
				b, err = e.appendValue(b, f.tag, &f.val, fv)
			}
		case shapePointer:
			if !fv.IsNil() {
				b, err = e.appendValue(b, f.tag, &f.val, fv.Elem())
			}
		case shapeRepeated:
			for j := range fv.Len() {
				if b, err = e.appendValue(b, f.tag, &f.val, fv.Index(j)); err != nil {
					break
				}
			}
		case shapeMap:
			b, err = e.appendMap(b, f, fv)
		}
		if err != nil {
			return b, err
		}
	}
	e.depth--
	return b, nil
}

// appendValue appends tag and then one value v as codec c describes it.
func (e *encoder) appendValue(b, tag []byte, c *codec, v reflect.Value) ([]byte, error) {
	b = append(b, tag...)
	switch c.kind {
	case kindBool:
		return protowire.AppendVarint(b, protowire.EncodeBool(v.Bool())), nil
	case kindInt:
		// A negative value is sign-extended to 64 bits: ten bytes, as gogo writes an int32.
		return protowire.AppendVarint(b, uint64(v.Int())), nil
	case kindUint:
		return protowire.AppendVarint(b, v.Uint()), nil
	case kindFloat:
		return protowire.AppendFixed64(b, math.Float64bits(v.Float())), nil
	case kindString:
		return protowire.AppendString(b, v.String()), nil
	case kindBytes:
		return protowire.AppendBytes(b, v.Bytes()), nil
	case kindRawJSON:
		return appendRaw(b, v.Bytes()), nil
	case kindTime:
		return appendTimestamp(b, timeOf(v), 0), nil
	case kindMicroTime:
		t := microTimeOf(v)
		return appendTimestamp(b, t, time.Duration(t.Nanosecond()).Truncate(time.Microsecond)), nil
	case kindIntOrString:
		ios := intOrStringOf(v)
		if ios.Type != api.Int && ios.Type != api.String {
			// As IntOrString.MarshalJSON refuses it, and the decoder would.
			return b, fmt.Errorf("protobuf: IntOrString type %d is neither %d (int) nor %d (string)", ios.Type, api.Int, api.String)
		}
		return appendIntOrString(b, ios), nil
	case kindQuantity:
		return appendQuantity(b, v.String()), nil
	case kindMessage:
		start := len(b)
		b = append(b, 0) // room for a one-byte length; fixLength makes more if needed
		b, err := e.appendMessage(b, c.msg, v)
		if err != nil {
			return b, err
		}
		return fixLength(b, start), nil
	}
	panic(fmt.Sprintf("protobuf: codec of %v has no kind", c.typ))
}

// fixLength writes the length of the message that follows the one byte reserved at
// b[start]. A message of 128 bytes or more needs a longer varint, so the message is moved
// up to make room: a few memmoves per object, instead of a size pass over it.
func fixLength(b []byte, start int) []byte {
	n := len(b) - start - 1
	if k := protowire.SizeVarint(uint64(n)); k > 1 {
		b = append(b, make([]byte, k-1)...)
		copy(b[start+k:], b[start+1:start+1+n])
	}
	protowire.AppendVarint(b[:start], uint64(n)) // overwrites in place: b has the room
	return b
}

// appendMap appends one entry message per key of map fv, in key order, as gogo does.
func (e *encoder) appendMap(b []byte, f *field, fv reflect.Value) ([]byte, error) {
	if fv.Len() == 0 {
		return b, nil
	}
	if m, ok := stringMap(fv); ok {
		base := len(e.keys)
		for k := range m {
			e.keys = append(e.keys, k)
		}
		keys := e.keys[base:]
		slices.Sort(keys)
		for _, k := range keys {
			b = appendStringEntry(b, f.tag, k, m[k], f.val.kind == kindQuantity)
		}
		clear(keys) // the pool must not keep the map's strings alive
		e.keys = e.keys[:base]
		return b, nil
	}
	// Any other map (a schema's properties, of messages): slower, and allocates; the maps
	// of k8s.io/api's kinds all take the path above.
	keys := fv.MapKeys()
	slices.SortFunc(keys, func(a, b reflect.Value) int { return strings.Compare(a.String(), b.String()) })
	valTag := protowire.AppendTag(nil, 2, f.val.wireType())
	for _, k := range keys {
		b = append(b, f.tag...)
		start := len(b)
		b = append(b, 0)
		b = protowire.AppendTag(b, 1, protowire.BytesType)
		b = protowire.AppendString(b, k.String())
		v := fv.MapIndex(k)
		if f.val.kind == kindBytes && v.IsNil() {
			// gogo writes no value for a nil []byte (a JSON null); an empty one is written.
			b = fixLength(b, start)
			continue
		}
		var err error
		if b, err = e.appendValue(b, valTag, &f.val, v); err != nil {
			return b, err
		}
		b = fixLength(b, start)
	}
	return b, nil
}

// stringMap returns map fv when its type is map[string]string or api.ResourceList, the
// types of every map in package api.
func stringMap(fv reflect.Value) (map[string]string, bool) {
	switch m := fv.Interface().(type) {
	case map[string]string:
		return m, true
	case api.ResourceList:
		return m, true
	}
	return nil, false
}

// appendStringEntry appends a map entry {key = 1, value = 2} with a string value, or with a
// resource.Quantity value holding the string when quantity is set.
func appendStringEntry(b, tag []byte, key, val string, quantity bool) []byte {
	valSize := protowire.SizeBytes(len(val))
	if quantity {
		valSize = protowire.SizeBytes(quantitySize(val))
	}
	size := protowire.SizeTag(1) + protowire.SizeBytes(len(key)) + protowire.SizeTag(2) + valSize
	b = append(b, tag...)
	b = protowire.AppendVarint(b, uint64(size))
	b = protowire.AppendTag(b, 1, protowire.BytesType)
	b = protowire.AppendString(b, key)
	b = protowire.AppendTag(b, 2, protowire.BytesType)
	if quantity {
		return appendQuantity(b, val)
	}
	return protowire.AppendString(b, val)
}

// quantitySize is the size of the resource.Quantity message holding s.
func quantitySize(s string) int {
	return protowire.SizeTag(1) + protowire.SizeBytes(len(s))
}

// appendQuantity appends the length and body of resource.Quantity {string string = 1}. The
// string is always written, as quantity_proto.go does.
func appendQuantity(b []byte, s string) []byte {
	b = protowire.AppendVarint(b, uint64(quantitySize(s)))
	b = protowire.AppendTag(b, 1, protowire.BytesType)
	return protowire.AppendString(b, s)
}

// appendRaw appends the length and body of runtime.RawExtension or metav1.FieldsV1, both
// {bytes raw = 1}; raw is written only when non-nil, as their generated code does.
func appendRaw(b, raw []byte) []byte {
	if raw == nil {
		return protowire.AppendVarint(b, 0)
	}
	b = protowire.AppendVarint(b, uint64(protowire.SizeTag(1)+protowire.SizeBytes(len(raw))))
	b = protowire.AppendTag(b, 1, protowire.BytesType)
	return protowire.AppendBytes(b, raw)
}

// appendTimestamp appends the length and body of metav1.Timestamp {int64 seconds = 1;
// int32 nanos = 2} for t: both fields always, or nothing at all for the zero time, as
// time_proto.go and micro_time_proto.go write it.
func appendTimestamp(b []byte, t time.Time, nanos time.Duration) []byte {
	if t.IsZero() {
		return protowire.AppendVarint(b, 0)
	}
	seconds := uint64(t.Unix())
	size := protowire.SizeTag(1) + protowire.SizeVarint(seconds) + protowire.SizeTag(2) + protowire.SizeVarint(uint64(nanos))
	b = protowire.AppendVarint(b, uint64(size))
	b = protowire.AppendTag(b, 1, protowire.VarintType)
	b = protowire.AppendVarint(b, seconds)
	b = protowire.AppendTag(b, 2, protowire.VarintType)
	return protowire.AppendVarint(b, uint64(nanos))
}

// appendIntOrString appends the length and body of intstr.IntOrString {int64 type = 1;
// int32 intVal = 2; string strVal = 3}, all three always written.
func appendIntOrString(b []byte, v api.IntOrString) []byte {
	typ, intVal := uint64(v.Type), uint64(v.IntVal) // intVal sign-extended, as gogo does
	size := protowire.SizeTag(1) + protowire.SizeVarint(typ) +
		protowire.SizeTag(2) + protowire.SizeVarint(intVal) +
		protowire.SizeTag(3) + protowire.SizeBytes(len(v.StrVal))
	b = protowire.AppendVarint(b, uint64(size))
	b = protowire.AppendTag(b, 1, protowire.VarintType)
	b = protowire.AppendVarint(b, typ)
	b = protowire.AppendTag(b, 2, protowire.VarintType)
	b = protowire.AppendVarint(b, intVal)
	b = protowire.AppendTag(b, 3, protowire.BytesType)
	return protowire.AppendString(b, v.StrVal)
}

// timeOf returns the time in v, an api.Time. Through a pointer when v is addressable, which
// it is everywhere but in a map value, so that reading it does not allocate.
func timeOf(v reflect.Value) time.Time {
	if v.CanAddr() {
		return v.Addr().Interface().(*api.Time).Time
	}
	return v.Interface().(api.Time).Time
}

// microTimeOf returns the time in v, an api.MicroTime; see timeOf.
func microTimeOf(v reflect.Value) time.Time {
	if v.CanAddr() {
		return v.Addr().Interface().(*api.MicroTime).Time
	}
	return v.Interface().(api.MicroTime).Time
}

// intOrStringOf returns v, an api.IntOrString; see timeOf.
func intOrStringOf(v reflect.Value) api.IntOrString {
	if v.CanAddr() {
		return *v.Addr().Interface().(*api.IntOrString)
	}
	return v.Interface().(api.IntOrString)
}
