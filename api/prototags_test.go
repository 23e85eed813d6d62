package api

import (
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// protoTag is a parsed `protobuf:"..."` struct tag, e.g. "bytes,2,rep,name=containers".
type protoTag struct {
	wire   string // "varint", "bytes" or "fixed64"; the only wire types the api types use
	number int
	label  string // "opt" or "rep"
	name   string
}

// parseProtoTag parses a tag of k8s.io/api's form: wire type, field number, label, then
// name= and optional extras (casttype=, ...), which are ignored.
func parseProtoTag(tag string) (protoTag, error) {
	parts := strings.Split(tag, ",")
	if len(parts) < 4 {
		return protoTag{}, fmt.Errorf("tag %q: want wire,number,label,name=...", tag)
	}
	n, err := strconv.Atoi(parts[1])
	if err != nil || n < 1 || n > 1<<29-1 || (n >= 19000 && n <= 19999) {
		return protoTag{}, fmt.Errorf("tag %q: field number %q is not a valid protobuf field number", tag, parts[1])
	}
	pt := protoTag{wire: parts[0], number: n, label: parts[2]}
	for _, p := range parts[3:] {
		if name, ok := strings.CutPrefix(p, "name="); ok {
			pt.name = name
		}
	}
	if pt.name == "" {
		return protoTag{}, fmt.Errorf("tag %q: no name=", tag)
	}
	return pt, nil
}

// wantWire returns the wire type and label a field of Go type typ must have: a pointer is
// its element, a slice or map is repeated (except []byte, which is one bytes field), a map
// entry is a message, integers and bools are varints, a float64 is a fixed64 (a proto
// double), and strings and structs are bytes.
func wantWire(typ reflect.Type) (wire, label string) {
	label = "opt"
	if typ.Kind() == reflect.Map {
		return "bytes", "rep"
	}
	if typ.Kind() == reflect.Slice && typ.Elem().Kind() != reflect.Uint8 {
		typ, label = typ.Elem(), "rep"
	}
	for typ.Kind() == reflect.Pointer {
		typ = typ.Elem()
	}
	switch typ.Kind() {
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "varint", label
	case reflect.Float64:
		return "fixed64", label
	default:
		return "bytes", label
	}
}

// checkProtoTags returns the problems with the protobuf tags of struct type typ: a field
// other than TypeMeta without a tag (or TypeMeta with one), a malformed tag, a wire type or
// label that does not fit the Go type, a name that differs from the JSON name (camel-cased
// where it is not a proto identifier, see protoName; or capitalized, see
// upstreamCapitalized), a map without
// protobuf_key and protobuf_val, or two fields with one number.
func checkProtoTags(typ reflect.Type) []string {
	var problems []string
	report := func(field reflect.StructField, format string, args ...any) {
		problems = append(problems, typ.Name()+"."+field.Name+": "+fmt.Sprintf(format, args...))
	}
	numbers := map[int]string{}
	for i := range typ.NumField() {
		field := typ.Field(i)
		jsonName, _, _ := strings.Cut(field.Tag.Get("json"), ",")
		tag, tagged := field.Tag.Lookup("protobuf")
		switch {
		case field.Type == reflect.TypeFor[TypeMeta]():
			if tagged {
				report(field, "TypeMeta must have no protobuf tag: objects carry no TypeMeta on the wire")
			}
			continue
		case !field.IsExported() || jsonName == "-":
			continue
		case !tagged:
			report(field, "no protobuf tag")
			continue
		}
		pt, err := parseProtoTag(tag)
		if err != nil {
			report(field, "%v", err)
			continue
		}
		if wire, label := wantWire(field.Type); pt.wire != wire || pt.label != label {
			report(field, "tag %q: a %s is %s,%s", tag, field.Type, wire, label)
		}
		if jsonName != "" && pt.name != protoName(jsonName) && !upstreamCapitalized(pt.name, jsonName) {
			report(field, "tag %q: name %q differs from the JSON name %q", tag, pt.name, jsonName)
		}
		if other, dup := numbers[pt.number]; dup {
			report(field, "field number %d is also %s's", pt.number, other)
		}
		numbers[pt.number] = field.Name
		if field.Type.Kind() == reflect.Map {
			for _, entry := range []struct{ key, want string }{
				{"protobuf_key", "bytes,1,opt,name=key"},
				{"protobuf_val", "bytes,2,opt,name=value"},
			} {
				if got := field.Tag.Get(entry.key); got != entry.want {
					report(field, "map needs %s:%q, has %q", entry.key, entry.want, got)
				}
			}
		}
	}
	return problems
}

// protoName is the name go-to-protobuf gives a field whose JSON name is not a proto
// identifier: "$ref" is ref, "x-kubernetes-list-type" xKubernetesListType. Other names are
// kept.
func protoName(jsonName string) string {
	words := strings.FieldsFunc(jsonName, func(r rune) bool { return r == '-' || r == '$' })
	for i := 1; i < len(words); i++ {
		words[i] = strings.ToUpper(words[i][:1]) + words[i][1:]
	}
	return strings.Join(words, "")
}

// upstreamCapitalized reports whether name is jsonName with its first letter
// upper-cased, as admissionregistration's generated.proto names a few fields
// ("Expression", "Webhooks"): the wire goes by number, the name is kept as
// k8s.io/api tags it. networking/v1 names IngressClassParametersReference's
// apiGroup "aPIGroup", from its Go name APIGroup.
func upstreamCapitalized(name, jsonName string) bool {
	return jsonName != "" && name == strings.ToUpper(jsonName[:1])+jsonName[1:] ||
		jsonName == "apiGroup" && name == "aPIGroup"
}

// protoStructs returns every struct type reachable from the top-level types, except Time
// and MicroTime, which the codec encodes by Go type (they embed time.Time), and TypeMeta,
// which is not on the wire.
func protoStructs() []reflect.Type {
	seen := map[reflect.Type]bool{}
	var out []reflect.Type
	var walk func(reflect.Type)
	walk = func(typ reflect.Type) {
		switch typ.Kind() {
		case reflect.Pointer, reflect.Slice:
			walk(typ.Elem())
			return
		case reflect.Map:
			walk(typ.Key())
			walk(typ.Elem())
			return
		case reflect.Struct:
		default:
			return
		}
		if seen[typ] || typ == timeType || typ == microTimeType || typ == reflect.TypeFor[TypeMeta]() {
			return
		}
		seen[typ] = true
		out = append(out, typ)
		for i := range typ.NumField() {
			walk(typ.Field(i).Type)
		}
	}
	for _, typ := range allTopLevelTypes() {
		if !jsonOnly[typ] {
			walk(typ)
		}
	}
	return out
}

// jsonOnly are the kinds served in JSON only, as kube-apiserver serves custom resources:
// custom resources themselves. The HTTP front answers them in JSON whatever the client
// accepts, and refuses a protobuf body of them with 415.
var jsonOnly = map[reflect.Type]bool{
	reflect.TypeFor[Unstructured](): true,
}

// TestProtobufTags requires every struct reachable from the served kinds to carry protobuf
// tags the codec can use, so a field or kind added later cannot forget them.
func TestProtobufTags(t *testing.T) {
	structs := protoStructs()
	require.Greater(t, len(structs), 60, "the walk should reach every nested type")
	for _, typ := range structs {
		t.Run(typ.Name(), func(t *testing.T) {
			assert.Empty(t, checkProtoTags(typ))
		})
	}
}

// TestCheckProtoTagsCatches feeds the checker broken structs: each must be reported.
func TestCheckProtoTagsCatches(t *testing.T) {
	tests := []struct {
		name string
		typ  reflect.Type
		want string
	}{
		{"missing tag", reflect.TypeFor[struct {
			A string `json:"a" protobuf:"bytes,1,opt,name=a"`
			B string `json:"b"`
		}](), "B: no protobuf tag"},
		{"duplicate number", reflect.TypeFor[struct {
			A string `json:"a" protobuf:"bytes,1,opt,name=a"`
			B string `json:"b" protobuf:"bytes,1,opt,name=b"`
		}](), "B: field number 1 is also A's"},
		{"tagged TypeMeta", reflect.TypeFor[struct {
			TypeMeta `json:",inline" protobuf:"bytes,1,opt,name=typeMeta"`
		}](), "TypeMeta must have no protobuf tag"},
		{"varint for a string", reflect.TypeFor[struct {
			A *DeletionPropagation `json:"a" protobuf:"varint,4,opt,name=a"`
		}](), "is bytes,opt"},
		{"opt for a slice", reflect.TypeFor[struct {
			A []Taint `json:"a" protobuf:"bytes,5,opt,name=a"`
		}](), "is bytes,rep"},
		{"rep for a string", reflect.TypeFor[struct {
			A PodQOSClass `json:"a" protobuf:"bytes,9,rep,name=a"`
		}](), "is bytes,opt"},
		{"bytes for an int", reflect.TypeFor[struct {
			A *int32 `json:"a" protobuf:"bytes,25,opt,name=a"`
		}](), "is varint,opt"},
		{"name differs from JSON", reflect.TypeFor[struct {
			A string `json:"a" protobuf:"bytes,1,opt,name=b"`
		}](), `name "b" differs from the JSON name "a"`},
		{"map without entry tags", reflect.TypeFor[struct {
			A map[string]string `json:"a" protobuf:"bytes,1,rep,name=a"`
		}](), "map needs protobuf_key"},
		{"bad number", reflect.TypeFor[struct {
			A string `json:"a" protobuf:"bytes,0,opt,name=a"`
		}](), "not a valid protobuf field number"},
		{"no name", reflect.TypeFor[struct {
			A string `json:"a" protobuf:"bytes,1,opt"`
		}](), "want wire,number,label,name="},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			problems := checkProtoTags(tt.typ)
			require.NotEmpty(t, problems)
			assert.Contains(t, strings.Join(problems, "\n"), tt.want)
		})
	}
}
