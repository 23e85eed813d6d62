package protowire

import (
	"encoding/binary"
	"encoding/json"
	"reflect"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/miniplane/miniplane/api"
)

// FuzzRoundTrip builds one of our top-level objects from the fuzz input and runs the
// checks of the package comment on it. The first byte picks the kind; the rest is read as a
// stream of choices by a reflection filler (see [choices]), so the fuzzer steers every
// field directly and a short input gives a small object.
func FuzzRoundTrip(f *testing.F) {
	f.Add([]byte{0})
	for i := range kinds {
		seed := []byte{byte(i)}
		for j := range 200 {
			seed = append(seed, byte(j*37+i*11+1))
		}
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) == 0 {
			return
		}
		k := kinds[int(data[0])%len(kinds)]
		obj := reflect.New(k.ours)
		(&choices{data: data[1:]}).fill(obj.Elem())
		checkRoundTrips(t, obj.Interface())
	})
}

// choices fills values from a byte stream. Once the stream is used up every choice is
// zero, which ends every slice, map and pointer, so filling always stops. Values are kept to
// what both sides can carry through JSON, which builds the upstream object: valid UTF-8,
// times in years 1 to 9999 at the type's precision, canonical quantities, and compact JSON
// for raw messages.
type choices struct {
	data []byte
}

func (c *choices) bytes(n int) []byte {
	out := make([]byte, n)
	copied := copy(out, c.data)
	c.data = c.data[copied:]
	return out
}

func (c *choices) byte() byte { return c.bytes(1)[0] }

func (c *choices) uint64() uint64 { return binary.LittleEndian.Uint64(c.bytes(8)) }

// count returns a length from 0 to 3.
func (c *choices) count() int { return int(c.byte() % 4) }

// alphabet holds the runes strings are made of: ASCII letters and punctuation that JSON
// escapes, two- and three-byte UTF-8, and a control character.
var alphabet = []rune("abcz09-./:=\"\\ \n\x01éß世界\u2028")

func (c *choices) string() string {
	n := int(c.byte() % 12)
	runes := make([]rune, n)
	for i := range runes {
		runes[i] = alphabet[int(c.byte())%len(alphabet)]
	}
	return string(runes)
}

var (
	timeType         = reflect.TypeFor[api.Time]()
	microTimeType    = reflect.TypeFor[api.MicroTime]()
	intOrStringType  = reflect.TypeFor[api.IntOrString]()
	resourceListType = reflect.TypeFor[api.ResourceList]()
	quantityType     = reflect.TypeFor[api.Quantity]()
	rawMessageType   = reflect.TypeFor[json.RawMessage]()
	typeMetaType     = reflect.TypeFor[api.TypeMeta]()

	// minSeconds and maxSeconds bound the times RFC 3339 can write, years 1 to 9999; the
	// very first second is the zero time, which a zero choice picks.
	minSeconds = time.Date(1, 1, 1, 0, 0, 0, 0, time.UTC).Unix()
	maxSeconds = time.Date(9999, 12, 31, 23, 59, 59, 0, time.UTC).Unix()
)

func (c *choices) seconds() int64 {
	return minSeconds + 1 + int64(c.uint64()%uint64(maxSeconds-minSeconds))
}

// quantity returns a canonical quantity, as resource.Quantity writes it: upstream decodes
// a quantity and writes its canonical form, so any other spelling would not come back.
func (c *choices) quantity() string {
	value := int64(c.uint64()) >> int(c.byte()%64)
	formats := []resource.Format{resource.DecimalSI, resource.BinarySI, resource.DecimalExponent}
	q := resource.NewMilliQuantity(value, formats[int(c.byte())%len(formats)])
	canonical := q.String()
	// A canonical form may still change once when read back (BinarySI falls back to
	// DecimalSI for fractions); keep the fixed point.
	again := resource.MustParse(canonical)
	return again.String()
}

// rawJSON returns a small compact JSON object, or nil; encoding/json compacts raw
// messages, so a non-compact one would not survive the JSON trip to the upstream object.
func (c *choices) rawJSON() json.RawMessage {
	n := c.count()
	if n == 0 {
		return nil
	}
	fields := map[string]any{}
	for range n {
		fields["f:"+c.string()] = map[string]any{}
	}
	data, err := json.Marshal(fields)
	if err != nil {
		panic(err) // a map of strings always encodes
	}
	return data
}

// fillTime sets v, a Time or a MicroTime, to a time that is not zero.
func (c *choices) fillTime(v reflect.Value) {
	if v.Type() == timeType {
		v.Set(reflect.ValueOf(api.NewTime(time.Unix(c.seconds(), 0))))
		return
	}
	micros := int64(c.uint64() % 1e6)
	v.Set(reflect.ValueOf(api.NewMicroTime(time.Unix(c.seconds(), micros*1000))))
}

func (c *choices) fill(v reflect.Value) {
	switch v.Type() {
	case typeMetaType:
		return // not on the wire
	case timeType, microTimeType:
		if c.byte()%4 != 0 {
			c.fillTime(v)
		}
		return
	case intOrStringType:
		if c.byte()%2 == 0 {
			v.Set(reflect.ValueOf(api.IntOrString{Type: api.Int, IntVal: int32(c.uint64())}))
		} else {
			v.Set(reflect.ValueOf(api.FromString(c.string())))
		}
		return
	case resourceListType:
		n := c.count()
		if n == 0 {
			return
		}
		list := api.ResourceList{}
		for range n {
			list[c.string()] = c.quantity()
		}
		v.Set(reflect.ValueOf(list))
		return
	case rawMessageType:
		v.Set(reflect.ValueOf(c.rawJSON()))
		return
	case quantityType:
		v.SetString(c.quantity()) // never empty: upstream writes a zero quantity as "0"
		return
	}
	switch v.Kind() {
	case reflect.String:
		v.SetString(c.string())
	case reflect.Bool:
		v.SetBool(c.byte()%2 == 1)
	case reflect.Uint8: // an element of []byte: a secret's or a config map's binary data
		v.SetUint(uint64(c.byte()))
	case reflect.Int32:
		v.SetInt(int64(int32(c.uint64())))
	case reflect.Int64:
		v.SetInt(int64(c.uint64()))
	case reflect.Pointer:
		if c.byte()%2 == 1 {
			p := reflect.New(v.Type().Elem())
			if elem := p.Elem(); elem.Type() == timeType || elem.Type() == microTimeType {
				// Never a pointer to the zero time: its JSON is null, as for a nil
				// pointer, so the upstream object built from JSON could not hold it.
				c.fillTime(elem)
			} else {
				c.fill(elem)
			}
			v.Set(p)
		}
	case reflect.Slice:
		n := c.count()
		if n == 0 {
			return // nil, as our decoder leaves an absent repeated field
		}
		s := reflect.MakeSlice(v.Type(), n, n)
		for i := range n {
			c.fill(s.Index(i))
		}
		v.Set(s)
	case reflect.Map:
		n := c.count()
		if n == 0 {
			return
		}
		m := reflect.MakeMap(v.Type())
		for range n {
			key, value := reflect.New(v.Type().Key()).Elem(), reflect.New(v.Type().Elem()).Elem()
			c.fill(key)
			c.fill(value)
			if value.Kind() == reflect.Slice && value.IsNil() {
				// Never a nil []byte value: gogo writes none for it and reads the
				// absence back as empty, so even upstream's own round trip turns a
				// JSON null into "".
				value.Set(reflect.MakeSlice(value.Type(), 0, 0))
			}
			m.SetMapIndex(key, value)
		}
		v.Set(m)
	case reflect.Struct:
		for i := range v.NumField() {
			c.fill(v.Field(i))
		}
	default:
		panic("choices: no filler for " + v.Type().String())
	}
}
