package protobuf

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
	"time"

	"google.golang.org/protobuf/encoding/protowire"

	"github.com/miniplane/miniplane/api"
)

// ErrMalformed is wrapped by every error about input that is not a valid message for the
// type it is decoded into: the client's fault, a 400 Bad Request. Other errors (a Go type
// the codec cannot handle) are the program's fault.
var ErrMalformed = errors.New("protobuf: malformed message")

// Unmarshal decodes the bare message data into v, a non-nil pointer to a struct with
// protobuf tags, after zeroing *v. Unknown fields are skipped. Malformed input returns an
// error wrapping [ErrMalformed], never a panic; *v then holds a partial result to discard.
// Strings and byte slices are copied: v does not alias data.
func Unmarshal(data []byte, v any) error {
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Pointer || rv.IsNil() || rv.Elem().Kind() != reflect.Struct {
		return fmt.Errorf("protobuf: Unmarshal needs a non-nil pointer to a struct, not %T", v)
	}
	rv = rv.Elem()
	p, err := planFor(rv.Type())
	if err != nil {
		return err
	}
	rv.SetZero()
	var d decoder
	if err := d.message(p, data, rv); err != nil {
		return fmt.Errorf("%w: %w", ErrMalformed, err)
	}
	return nil
}

// decoder holds the state of one decoding.
type decoder struct {
	depth int // how many messages deep the decoder is
}

// message decodes the fields in b into struct v, following plan p. As gogo's generated
// code does, it merges: a scalar seen twice keeps the last value, a repeated field or map
// appends, a nested message seen twice merges both.
func (d *decoder) message(p *messagePlan, b []byte, v reflect.Value) error {
	if d.depth >= maxDepth {
		return fmt.Errorf("%v: messages nested deeper than %d", p.typ, maxDepth)
	}
	d.depth++
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return fmt.Errorf("%v: %w", p.typ, protowire.ParseError(n))
		}
		b = b[n:]
		f := p.lookup(num)
		if f == nil {
			if n = protowire.ConsumeFieldValue(num, typ, b); n < 0 {
				return fmt.Errorf("%v: unknown field %d: %w", p.typ, num, protowire.ParseError(n))
			}
			b = b[n:]
			continue
		}
		n, err := d.field(f, typ, b, v.Field(f.index))
		if err != nil {
			return fmt.Errorf("%v field %d (%s): %w", p.typ, f.num, f.name, err)
		}
		b = b[n:]
	}
	d.depth--
	return nil
}

// field decodes one occurrence of field f, of wire type typ, from the start of b into fv,
// and returns the number of bytes it used.
func (d *decoder) field(f *field, typ protowire.Type, b []byte, fv reflect.Value) (int, error) {
	switch f.shape {
	case shapeSingle, shapeNilable:
		return d.value(&f.val, typ, b, fv)
	case shapePointer:
		if typ != f.val.wireType() {
			return 0, wrongWireType(typ, f.val.wireType())
		}
		if fv.IsNil() {
			fv.Set(reflect.New(f.val.typ))
		}
		return d.value(&f.val, typ, b, fv.Elem())
	case shapeRepeated:
		if typ == protowire.BytesType && f.val.wireType() == protowire.VarintType {
			return d.packed(&f.val, b, fv)
		}
		return d.value(&f.val, typ, b, appendZero(fv))
	case shapeMap:
		return d.mapEntry(f, typ, b, fv)
	}
	panic(fmt.Sprintf("protobuf: field %s has no shape", f.name))
}

// appendZero grows slice fv by one zero element and returns that element.
func appendZero(fv reflect.Value) reflect.Value {
	n := fv.Len()
	fv.Grow(1)
	fv.SetLen(n + 1)
	elem := fv.Index(n)
	elem.SetZero()
	return elem
}

// packed decodes a packed repeated varint field, which proto2 writers may send although
// gogo never does.
func (d *decoder) packed(c *codec, b []byte, fv reflect.Value) (int, error) {
	s, n := protowire.ConsumeBytes(b)
	if n < 0 {
		return 0, protowire.ParseError(n)
	}
	for len(s) > 0 {
		x, m := protowire.ConsumeVarint(s)
		if m < 0 {
			return 0, fmt.Errorf("packed: %w", protowire.ParseError(m))
		}
		setVarint(c.kind, appendZero(fv), x)
		s = s[m:]
	}
	return n, nil
}

// value decodes one value of codec c, of wire type typ, from the start of b into v, and
// returns the number of bytes it used.
func (d *decoder) value(c *codec, typ protowire.Type, b []byte, v reflect.Value) (int, error) {
	if want := c.wireType(); typ != want {
		return 0, wrongWireType(typ, want)
	}
	if typ == protowire.VarintType {
		x, n := protowire.ConsumeVarint(b)
		if n < 0 {
			return 0, protowire.ParseError(n)
		}
		setVarint(c.kind, v, x)
		return n, nil
	}
	if typ == protowire.Fixed64Type {
		x, n := protowire.ConsumeFixed64(b)
		if n < 0 {
			return 0, protowire.ParseError(n)
		}
		v.SetFloat(math.Float64frombits(x))
		return n, nil
	}
	s, n := protowire.ConsumeBytes(b)
	if n < 0 {
		return 0, protowire.ParseError(n)
	}
	var err error
	switch c.kind {
	case kindString:
		v.SetString(string(s))
	case kindBytes:
		v.SetBytes(append([]byte{}, s...)) // present means non-nil, even when empty, as in gogo
	case kindRawJSON:
		var raw []byte
		if raw, err = parseRaw(s); err == nil {
			v.SetBytes(raw)
		}
	case kindTime:
		var t time.Time
		if t, err = parseTimestamp(s, false); err == nil {
			*v.Addr().Interface().(*api.Time) = api.Time{Time: t}
		}
	case kindMicroTime:
		var t time.Time
		if t, err = parseTimestamp(s, true); err == nil {
			*v.Addr().Interface().(*api.MicroTime) = api.MicroTime{Time: t}
		}
	case kindIntOrString:
		err = parseIntOrString(s, v.Addr().Interface().(*api.IntOrString))
	case kindQuantity:
		var q string
		if q, err = parseQuantity(s); err == nil {
			v.SetString(q)
		}
	case kindMessage:
		err = d.message(c.msg, s, v)
	default:
		panic(fmt.Sprintf("protobuf: codec of %v has no kind", c.typ))
	}
	if err != nil {
		return 0, err
	}
	return n, nil
}

// setVarint stores varint x in v. Like gogo's generated code, it truncates x to v's size
// (int64(x) for int64, int32(x) for int32, ...) and reads any non-zero value as true.
func setVarint(k kind, v reflect.Value, x uint64) {
	switch k {
	case kindBool:
		v.SetBool(protowire.DecodeBool(x))
	case kindInt:
		v.SetInt(int64(x))
	case kindUint:
		v.SetUint(x)
	}
}

// mapEntry decodes one map entry {key = 1, value = 2} of field f into map fv. A missing
// key or value is the zero value, as in gogo.
func (d *decoder) mapEntry(f *field, typ protowire.Type, b []byte, fv reflect.Value) (int, error) {
	if typ != protowire.BytesType {
		return 0, wrongWireType(typ, protowire.BytesType)
	}
	entry, n := protowire.ConsumeBytes(b)
	if n < 0 {
		return 0, protowire.ParseError(n)
	}
	if fv.IsNil() {
		fv.Set(reflect.MakeMap(f.typ))
	}
	if m, ok := stringMap(fv); ok {
		key, val, err := parseStringEntry(entry, f.val.kind == kindQuantity)
		if err != nil {
			return 0, err
		}
		m[key] = val
		return n, nil
	}
	key := reflect.New(f.typ.Key()).Elem()
	val := reflect.New(f.typ.Elem()).Elem()
	for len(entry) > 0 {
		num, typ, m := protowire.ConsumeTag(entry)
		if m < 0 {
			return 0, fmt.Errorf("map entry: %w", protowire.ParseError(m))
		}
		entry = entry[m:]
		switch num {
		case 1:
			var s []byte
			if typ != protowire.BytesType {
				return 0, fmt.Errorf("map key: %w", wrongWireType(typ, protowire.BytesType))
			}
			if s, m = protowire.ConsumeBytes(entry); m < 0 {
				return 0, fmt.Errorf("map key: %w", protowire.ParseError(m))
			}
			key.SetString(string(s))
		case 2:
			var err error
			if m, err = d.value(&f.val, typ, entry, val); err != nil {
				return 0, fmt.Errorf("map value: %w", err)
			}
		default:
			if m = protowire.ConsumeFieldValue(num, typ, entry); m < 0 {
				return 0, fmt.Errorf("map entry: unknown field %d: %w", num, protowire.ParseError(m))
			}
		}
		entry = entry[m:]
	}
	fv.SetMapIndex(key, val)
	return n, nil
}

// parseStringEntry parses a map entry with string key and string value, or with a
// resource.Quantity value when quantity is set.
func parseStringEntry(entry []byte, quantity bool) (key, val string, err error) {
	err = eachField(entry, "map entry", func(num protowire.Number, typ protowire.Type, b []byte) (int, error) {
		if num != 1 && num != 2 {
			return skip(num, typ, b)
		}
		if typ != protowire.BytesType {
			return 0, wrongWireType(typ, protowire.BytesType)
		}
		s, n := protowire.ConsumeBytes(b)
		if n < 0 {
			return 0, protowire.ParseError(n)
		}
		switch {
		case num == 1:
			key = string(s)
		case quantity:
			var err error
			if val, err = parseQuantity(s); err != nil {
				return 0, err
			}
		default:
			val = string(s)
		}
		return n, nil
	})
	return key, val, err
}

// eachField calls fn with the number, wire type and remaining bytes of each field of
// message b in turn; fn returns how many bytes the field's value used. what names the
// message in errors.
func eachField(b []byte, what string, fn func(protowire.Number, protowire.Type, []byte) (int, error)) error {
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return fmt.Errorf("%s: %w", what, protowire.ParseError(n))
		}
		b = b[n:]
		n, err := fn(num, typ, b)
		if err != nil {
			return fmt.Errorf("%s field %d: %w", what, num, err)
		}
		b = b[n:]
	}
	return nil
}

// skip consumes the value of an unknown field.
func skip(num protowire.Number, typ protowire.Type, b []byte) (int, error) {
	n := protowire.ConsumeFieldValue(num, typ, b)
	if n < 0 {
		return 0, protowire.ParseError(n)
	}
	return n, nil
}

// consumeVarint consumes a varint value of a field whose wire type is typ.
func consumeVarint(typ protowire.Type, b []byte) (uint64, int, error) {
	if typ != protowire.VarintType {
		return 0, 0, wrongWireType(typ, protowire.VarintType)
	}
	x, n := protowire.ConsumeVarint(b)
	if n < 0 {
		return 0, 0, protowire.ParseError(n)
	}
	return x, n, nil
}

// consumeBytes consumes a length-delimited value of a field whose wire type is typ.
func consumeBytes(typ protowire.Type, b []byte) ([]byte, int, error) {
	if typ != protowire.BytesType {
		return nil, 0, wrongWireType(typ, protowire.BytesType)
	}
	s, n := protowire.ConsumeBytes(b)
	if n < 0 {
		return nil, 0, protowire.ParseError(n)
	}
	return s, n, nil
}

// The range of timestamps: years 0 to 9999, what RFC 3339 can write and so what the JSON
// form of a Time holds. Far outside it time.Unix wraps around.
var (
	minSeconds = time.Date(0, 1, 1, 0, 0, 0, 0, time.UTC).Unix()
	maxSeconds = time.Date(9999, 12, 31, 23, 59, 59, 0, time.UTC).Unix()
)

// parseTimestamp parses metav1.Timestamp {int64 seconds = 1; int32 nanos = 2}. An empty
// message is the zero time. Nanos are dropped for a Time and truncated to the microsecond
// for a MicroTime (micro), as time_proto.go and micro_time_proto.go do. The result is in
// UTC, as package api keeps times.
func parseTimestamp(b []byte, micro bool) (time.Time, error) {
	if len(b) == 0 {
		return time.Time{}, nil
	}
	var seconds, nanos int64
	err := eachField(b, "Timestamp", func(num protowire.Number, typ protowire.Type, b []byte) (int, error) {
		switch num {
		case 1:
			x, n, err := consumeVarint(typ, b)
			seconds = int64(x)
			return n, err
		case 2:
			x, n, err := consumeVarint(typ, b)
			nanos = int64(int32(x))
			return n, err
		}
		return skip(num, typ, b)
	})
	if err != nil {
		return time.Time{}, err
	}
	if !micro {
		nanos = 0
	}
	t := time.Unix(seconds, int64(time.Duration(nanos).Truncate(time.Microsecond))).UTC()
	// Check seconds before time.Unix could wrap, and after nanos may have carried.
	if seconds < minSeconds || seconds > maxSeconds || t.Unix() < minSeconds || t.Unix() > maxSeconds {
		return time.Time{}, fmt.Errorf("Timestamp of %d seconds and %d nanoseconds is outside years 0 to 9999", seconds, nanos)
	}
	return t, nil
}

// parseIntOrString parses intstr.IntOrString {int64 type = 1; int32 intVal = 2; string
// strVal = 3} into v, merging with what v holds as gogo does.
func parseIntOrString(b []byte, v *api.IntOrString) error {
	err := eachField(b, "IntOrString", func(num protowire.Number, typ protowire.Type, b []byte) (int, error) {
		switch num {
		case 1:
			x, n, err := consumeVarint(typ, b)
			v.Type = api.IntOrStringType(int64(x))
			return n, err
		case 2:
			x, n, err := consumeVarint(typ, b)
			v.IntVal = int32(x)
			return n, err
		case 3:
			s, n, err := consumeBytes(typ, b)
			v.StrVal = string(s)
			return n, err
		}
		return skip(num, typ, b)
	})
	if err != nil {
		return err
	}
	if v.Type != api.Int && v.Type != api.String {
		return fmt.Errorf("IntOrString type %d is neither %d (int) nor %d (string)", v.Type, api.Int, api.String)
	}
	return nil
}

// parseQuantity parses resource.Quantity {string string = 1}. The text is kept as sent, as
// api.ResourceList keeps JSON quantities.
func parseQuantity(b []byte) (string, error) {
	var q string
	err := eachField(b, "Quantity", func(num protowire.Number, typ protowire.Type, b []byte) (int, error) {
		if num != 1 {
			return skip(num, typ, b)
		}
		s, n, err := consumeBytes(typ, b)
		q = string(s)
		return n, err
	})
	return q, err
}

// parseRaw parses runtime.RawExtension or metav1.FieldsV1 {bytes raw = 1} and returns a
// copy of raw, which must be JSON: package api keeps these fields as json.RawMessage and
// serves them in JSON bodies. An empty or missing raw is nil.
func parseRaw(b []byte) ([]byte, error) {
	var raw []byte
	err := eachField(b, "raw", func(num protowire.Number, typ protowire.Type, b []byte) (int, error) {
		if num != 1 {
			return skip(num, typ, b)
		}
		s, n, err := consumeBytes(typ, b)
		raw = s
		return n, err
	})
	if err != nil || len(raw) == 0 {
		return nil, err
	}
	if !json.Valid(raw) {
		return nil, errors.New("raw is not valid JSON")
	}
	return append([]byte(nil), raw...), nil
}

// wrongWireType is the error for a field sent with another wire type than its type's.
func wrongWireType(got, want protowire.Type) error {
	return fmt.Errorf("wire type %s, want %s", wireName(got), wireName(want))
}
