package celrules

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/api/apierrors"
)

// Schemas of the tables, as Kubernetes' validation_test.go names them.
const (
	integerType    = `{"type":"integer"}`
	numberType     = `{"type":"number"}`
	stringType     = `{"type":"string"}`
	booleanType    = `{"type":"boolean"}`
	byteType       = `{"type":"string","format":"byte"}`
	durationFormat = `{"type":"string","format":"duration"}`
	dateFormat     = `{"type":"string","format":"date"}`
	dateTimeFormat = `{"type":"string","format":"date-time"}`
	intOrString    = `{"x-kubernetes-int-or-string":true}`
)

func listOf(items string) string { return `{"type":"array","items":` + items + `}` }
func setOf(items string) string {
	return `{"type":"array","x-kubernetes-list-type":"set","items":` + items + `}`
}
func mapOf(values string) string { return `{"type":"object","additionalProperties":` + values + `}` }
func nullable(s string) string   { return s[:len(s)-1] + `,"nullable":true}` }
func objectOf(props ...string) string { // name, schema, name, schema...
	var b strings.Builder
	b.WriteString(`{"type":"object","properties":{`)
	for i := 0; i < len(props); i += 2 {
		if i > 0 {
			b.WriteString(",")
		}
		b.WriteString(`"` + props[i] + `":` + props[i+1])
	}
	b.WriteString(`}}`)
	return b.String()
}

// vals is an object of fields val1, val2, ... of the schemas given.
func vals(schemas ...string) string {
	var props []string
	for i, s := range schemas {
		props = append(props, "val"+strconv.Itoa(i+1), s)
	}
	return objectOf(props...)
}

// valsObj is the object val1, val2, ... with the JSON values given.
func valsObj(values ...string) string {
	var parts []string
	for i, v := range values {
		parts = append(parts, `"val`+strconv.Itoa(i+1)+`":`+v)
	}
	return "{" + strings.Join(parts, ",") + "}"
}

func decode(t testing.TB, s string) map[string]any {
	t.Helper()
	if s == "" {
		return nil
	}
	v, err := api.DecodeJSONValue([]byte(s))
	require.NoError(t, err)
	return v.(map[string]any)
}

func schemaOf(t testing.TB, s string) *api.JSONSchemaProps {
	t.Helper()
	var out api.JSONSchemaProps
	require.NoError(t, json.Unmarshal([]byte(s), &out))
	return &out
}

// withRules returns schema s with rules at its root.
func withRules(t testing.TB, s string, rules ...api.ValidationRule) *api.JSONSchemaProps {
	sc := schemaOf(t, s)
	sc.XValidations = rules
	return sc
}

// check compiles rule at the root of schema and runs it on obj (and old);
// it returns every error, compile-time and run-time, as text.
func check(t testing.TB, c *Compiler, schema string, rule api.ValidationRule, obj, old string) string {
	t.Helper()
	v, errs := c.Compile(withRules(t, schema, rule), "root")
	if len(errs) > 0 {
		return errs.Error()
	}
	return errString(v.Validate(decode(t, obj), decode(t, old)))
}

func errString(errs apierrors.FieldErrors) string {
	if len(errs) == 0 {
		return ""
	}
	return errs.Error()
}

// TestValidationExpressions ports the tables of Kubernetes'
// TestValidationExpressions: each valid rule holds on the object, each
// erroneous one fails with an error containing the text given.
func TestValidationExpressions(t *testing.T) {
	c := &Compiler{noStaticCost: true}
	for _, tc := range []struct {
		name, schema, obj, old string
		valid                  []string
		errors                 map[string]string
	}{
		{name: "integers", schema: vals(integerType, integerType, `{"type":"integer","format":"int32"}`),
			obj: valsObj("9223372036854775807", "9223372036854775807", "2147483647"),
			valid: []string{"self.val1 == self.val2", "self.val1 == 9223372036854775807", "self.val3 == 2147483647",
				"self.val1 > self.val3", "type(self.val1) == int", "self.val3 + 1 > self.val3"},
			errors: map[string]string{"self.val1 + 1 == 0": "integer overflow"}},
		{name: "numbers", schema: vals(numberType, numberType, numberType),
			obj:   valsObj("1.7976931348623157e+308", "1.7976931348623157e+308", "3"),
			valid: []string{"self.val1 == self.val2", "self.val3 == 3.0", "type(self.val3) == double"}},
		{name: "numeric comparisons", schema: vals(integerType, numberType),
			obj:   valsObj("5", "10.5"),
			valid: []string{"self.val1 < self.val2", "double(self.val1) < self.val2", "self.val1 < 6", "self.val2 > 10"}},
		{name: "unicode strings", schema: vals(stringType, stringType),
			obj: valsObj(`"Rook takes 👑"`, `"Rook takes 👑"`),
			valid: []string{"self.val1 == self.val2", "self.val1 == 'Rook takes 👑'",
				"self.val1.startsWith('Rook')", "!self.val1.startsWith('knight')", "self.val1.contains('takes')",
				"self.val1.endsWith('👑')", "self.val1.matches('^[^0-9]*$')", "!self.val1.matches('^[0-9]*$')",
				"type(self.val1) == string", "size(self.val1) == 12",
				"self.val1.charAt(3) == 'k'", "self.val1.indexOf('o') == 1", "self.val1.indexOf('o', 2) == 2",
				"self.val1.replace(' ', 'x') == 'Rookxtakesx👑'", "self.val1.replace(' ', 'x', 1) == 'Rookxtakes 👑'",
				"self.val1.split(' ') == ['Rook', 'takes', '👑']", "self.val1.split(' ', 2) == ['Rook', 'takes 👑']",
				"self.val1.substring(5) == 'takes 👑'", "self.val1.substring(0, 4) == 'Rook'",
				"self.val1.substring(4, 10).trim() == 'takes'", "self.val1.upperAscii() == 'ROOK TAKES 👑'",
				"self.val1.lowerAscii() == 'rook takes 👑'",
				"'%d %s %f %s %s'.format([1, 'abc', 1.0, duration('1m'), timestamp('2000-01-01T00:00:00.000Z')]) == '1 abc 1.000000 60s 2000-01-01T00:00:00Z'",
				"'%o %o %o'.format([7, 8, 9]) == '7 10 11'", "'%b %b %b'.format([7, 8, 9]) == '111 1000 1001'"},
			errors: map[string]string{"self.val1.matches(')')": "compilation failed: ERROR: <input>:1:19: invalid matches argument"}},
		{name: "bytes", schema: vals(byteType, byteType), obj: valsObj(`"QUI="`, `"QUI="`),
			valid: []string{"self.val1 == self.val2", "self.val1 == b'AB'", "self.val1 == bytes('AB')",
				"self.val1 == b'\\x41\\x42'", "type(self.val1) == bytes", "size(self.val1) == 2"}},
		{name: "booleans", schema: vals(booleanType, booleanType, booleanType), obj: valsObj("true", "true", "false"),
			valid: []string{"self.val1 == self.val2", "self.val1 != self.val3", "type(self.val1) == bool"}},
		{name: "duration format", schema: vals(durationFormat, durationFormat), obj: valsObj(`"1h2m3s4ms"`, `"1h2m3s4ms"`),
			valid: []string{"self.val1 == self.val2", "self.val1 == duration('1h2m3s4ms')",
				"self.val1 == duration('1h2m') + duration('3s4ms')", "self.val1.getHours() == 1",
				"self.val1.getMinutes() == 62", "self.val1.getSeconds() == 3723", "self.val1.getMilliseconds() == 3723004",
				"type(self.val1) == google.protobuf.Duration"},
			errors: map[string]string{
				"duration('1')":                      "compilation failed: ERROR: <input>:1:10: invalid duration argument",
				"duration('1d')":                     "compilation failed: ERROR: <input>:1:10: invalid duration argument",
				"duration('1us') < duration('1nns')": "compilation failed: ERROR: <input>:1:28: invalid duration argument"}},
		{name: "date format", schema: vals(dateFormat, dateFormat), obj: valsObj(`"1997-07-16"`, `"1997-07-16"`),
			valid: []string{"self.val1 == self.val2", "self.val1 == timestamp('1997-07-16T00:00:00.000Z')",
				"self.val1.getDate() == 16", "self.val1.getMonth() == 06", "self.val1.getFullYear() == 1997",
				"type(self.val1) == google.protobuf.Timestamp"}},
		{name: "date-time format", schema: vals(dateTimeFormat, dateTimeFormat),
			obj: valsObj(`"2011-08-18T19:03:37.010000000+01:00"`, `"2011-08-18T19:03:37.010000000+01:00"`),
			valid: []string{"self.val1 == self.val2", "self.val1 == timestamp('2011-08-18T19:03:37.010+01:00')",
				"self.val1 == timestamp('2011-08-18T00:00:00.000+01:00') + duration('19h3m37s10ms')",
				"self.val1.getDate('01:00') == 18", "self.val1.getMonth('01:00') == 7", "self.val1.getFullYear('01:00') == 2011",
				"self.val1.getHours('01:00') == 19", "self.val1.getMinutes('01:00') == 03", "self.val1.getSeconds('01:00') == 37",
				"self.val1.getMilliseconds('01:00') == 10", "self.val1.getHours('UTC') == 18",
				"type(self.val1) == google.protobuf.Timestamp"},
			errors: map[string]string{
				"timestamp('1000-00-00T00:00:00Z')":  "compilation failed: ERROR: <input>:1:11: invalid timestamp",
				"timestamp('1000-01-01T00:00:00ZZ')": "compilation failed: ERROR: <input>:1:11: invalid timestamp",
				"timestamp(-62135596801)":            "compilation failed: ERROR: <input>:1:11: invalid timestamp"}},
		{name: "enums", schema: objectOf("enumStr", `{"type":"string","enum":["Pending","Available","Bound","Released","Failed"]}`),
			obj:   `{"enumStr":"Pending"}`,
			valid: []string{"self.enumStr == 'Pending'", "self.enumStr in ['Pending', 'Available']"}},
		{name: "conversions", schema: vals(integerType, numberType, numberType, numberType, booleanType, stringType, byteType, stringType, durationFormat),
			obj: valsObj("10", "10.0", "10.49", "10.5", "true", `"10"`, `"MTA="`, `"3723.004s"`, `"1h2m3s4ms"`),
			valid: []string{"int(self.val2) == self.val1", "int(self.val3) == self.val1", "int(self.val4) == self.val1",
				"int(self.val6) == self.val1", "double(self.val1) == self.val2", "double(self.val6) == self.val2",
				"bytes(self.val6) == self.val7", "string(self.val1) == self.val6", "string(self.val3) == '10.49'",
				"string(self.val5) == 'true'", "string(self.val7) == self.val6", "duration(self.val8) == self.val9",
				"string(self.val9) == self.val8"}},
		{name: "lists", schema: vals(listOf(integerType), listOf(integerType)), obj: valsObj("[1,2,3]", "[1,2,3]"),
			valid: []string{"self.val1 == self.val2", "self.val1 == [1, 2, 3]", "1 in self.val1", "self.val2[0] in self.val1",
				"!(0 in self.val1)", "self.val1 + self.val2 == [1, 2, 3, 1, 2, 3]", "self.val1 + [4, 5] == [1, 2, 3, 4, 5]"},
			errors: map[string]string{
				"[1, 'a', false].filter(x, string(x) == 'a')": "compilation failed: ERROR: <input>:1:5: expected type 'int' but found 'string'"}},
		{name: "string lists", schema: vals(listOf(stringType)), obj: valsObj(`["a","b","c"]`),
			valid: []string{"self.val1.join('-') == 'a-b-c'", "self.val1.join() == 'abc'", "['a', 'b', 'c'].join('-') == 'a-b-c'"}},
		{name: "listSets", schema: vals(setOf(stringType), setOf(stringType)), obj: valsObj(`["a","b","c"]`, `["a","c","b"]`),
			valid: []string{"self.val1 == ['c', 'b', 'a']", "self.val1 == self.val2", "'a' in self.val1",
				"self.val2[0] in self.val1", "!('x' in self.val1)", "self.val1 + self.val2 == ['a', 'b', 'c']",
				"self.val1 + ['c', 'd'] == ['a', 'b', 'c', 'd']",
				"sets.contains(['a', 'b'], ['b'])", "!sets.contains(['a', 'b'], ['c'])",
				"sets.equivalent(['c', 'b', 'a'], ['b', 'c', 'a'])", "sets.intersects(['a', 'b'], ['b', 'c'])",
				"sets.contains([{'a': 1}, {'b': 2}], [{'b': 2}])"}},
		{name: "listMaps",
			schema: objectOf("objs", listOf(`{"type":"array","x-kubernetes-list-type":"map","x-kubernetes-list-map-keys":["k"],"items":`+objectOf("k", stringType, "v", stringType)+`}`)),
			obj:    `{"objs":[[{"k":"a","v":"1"},{"k":"b","v":"2"}],[{"k":"b","v":"2"},{"k":"a","v":"1"}],[{"k":"b","v":"3"},{"k":"a","v":"1"}],[{"k":"c","v":"4"}]]}`,
			valid: []string{"self.objs[0] == self.objs[1]", "self.objs[0] + self.objs[2] == self.objs[2]",
				"self.objs[2] + self.objs[0] == self.objs[0]", "self.objs[0] == [self.objs[0][0], self.objs[0][1]]",
				"self.objs[0] == [self.objs[0][1], self.objs[0][0]]",
				"self.objs[2] + [self.objs[0][0], self.objs[0][1]] == self.objs[0]",
				"size(self.objs[0] + [self.objs[3][0]]) == 3"},
			errors: map[string]string{"self.objs[0] == {'k': 'a', 'v': '1'}": "no matching overload for '_==_'"}},
		{name: "maps", schema: vals(mapOf(stringType), mapOf(stringType)),
			obj:    valsObj(`{"k1":"a","k2":"b"}`, `{"k2":"b","k1":"a"}`),
			valid:  []string{"self.val1 == self.val2", "'k1' in self.val1", "!('k3' in self.val1)", "self.val1 == {'k1': 'a', 'k2': 'b'}"},
			errors: map[string]string{"{'k1': 'a', 'k2': 1, 'k2': false}": "expected type 'string' but found 'int'"}},
		{name: "objects", schema: objectOf("objs", listOf(objectOf("f1", stringType, "f2", stringType))),
			obj:   `{"objs":[{"f1":"a","f2":"b"},{"f1":"a","f2":"b"}]}`,
			valid: []string{"self.objs[0] == self.objs[1]"}},
		{name: "object access",
			schema: objectOf("a", objectOf("b", integerType, "c", integerType, "d", nullable(integerType)),
				"a1", objectOf("b1", objectOf("c1", integerType), "d2", objectOf("e2", integerType))),
			obj: `{"a":{"b":1,"d":null},"a1":{"b1":{"c1":4}},"a3":{}}`,
			valid: []string{"has(self.a.b)", "!has(self.a.c)", "!has(self.a.d)", "has(self.a1.b1.c1)",
				"!(has(self.a1.d2) && has(self.a1.d2.e2))", "!has(self.a1.d2)"},
			errors: map[string]string{
				"has(self.a.z)":      "undefined field 'z'",
				"self.a['b'] == 1":   "no matching overload for '_[_]'",
				"has(self.a1.d2.e2)": "no such key: d2"}},
		{name: "map access", schema: objectOf("val", mapOf(integerType)), obj: `{"val":{"b":1,"d":2}}`,
			valid: []string{"!('a' in self.val)", "'b' in self.val", "!('c' in self.val)", "'d' in self.val",
				"!has(self.val.a)", "has(self.val.b)", "self.val.size() == 2", "self.val.all(k, self.val[k] > 0)",
				"self.val.exists_one(k, self.val[k] == 2)", "!self.val.exists(k, self.val[k] > 2)",
				"self.val.map(k, self.val[k]).size() == 2", "self.val.?a.orValue(5) == 5"},
			errors: map[string]string{"self.val['c'] == 1": "no such key: c"}},
		{name: "typemeta and objectmeta access",
			schema: objectOf("spec", objectOf("x", stringType)),
			obj:    `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"foo","generateName":"pickItForMe","namespace":"xyz"},"spec":{"x":"y"}}`,
			valid: []string{"self.kind == 'Pod'", "self.apiVersion == 'v1'", "self.metadata.name == 'foo'",
				"self.metadata.generateName == 'pickItForMe'"},
			errors: map[string]string{"self.metadata.namespace == 'xyz'": "undefined field 'namespace'"}},
		{name: "embedded object",
			schema: objectOf("embedded", `{"type":"object","x-kubernetes-embedded-resource":true,"x-kubernetes-preserve-unknown-fields":true}`),
			obj:    `{"embedded":{"apiVersion":"v1","kind":"Pod","metadata":{"name":"foo","generateName":"pickItForMe","namespace":"xyz"},"spec":{"field1":"a"}}}`,
			valid: []string{"self.embedded.kind == 'Pod'", "self.embedded.apiVersion == 'v1'",
				"self.embedded.metadata.name == 'foo'", "self.embedded.metadata.generateName == 'pickItForMe'"},
			errors: map[string]string{
				"self.embedded.metadata.namespace == 'xyz'": "undefined field 'namespace'",
				"self.embedded.spec.field1 == 'a'":          "undefined field 'spec'"}},
		{name: "string in intOrString", schema: objectOf("something", intOrString), obj: `{"something":"25%"}`,
			valid: []string{"self.something == '25%'", "self.something != 1", "self.something == 1 || self.something == '25%'",
				"type(self.something) == string && self.something == '25%'",
				"type(self.something) == int ? self.something == 1 : self.something == '25%'",
				"self.something != ['anything']"}},
		{name: "int in intOrString", schema: objectOf("something", intOrString), obj: `{"something":1}`,
			valid: []string{"self.something == 1", "self.something != 'some string'",
				"type(self.something) == int && self.something == 1"}},
		{name: "null in intOrString", schema: objectOf("something", nullable(intOrString)), obj: `{"something":null}`,
			valid:  []string{"!has(self.something)"},
			errors: map[string]string{"type(self.something) == int": "no such key"}},
		{name: "percent comparison using intOrString",
			schema: objectOf("min", intOrString, "current", integerType, "available", integerType),
			obj:    `{"min":"50%","current":5,"available":10}`,
			valid: []string{`type(self.min) == string && self.min.matches(r'(\d+(\.\d+)?%)')`,
				"type(self.min) == int ? self.current <= self.min : double(self.current) / double(self.available) >= double(self.min.replace('%', '')) / 100.0"}},
		{name: "preserve unknown fields", schema: `{"type":"object","x-kubernetes-preserve-unknown-fields":true,"properties":{"known":{"type":"integer"}}}`,
			obj:    `{"known":1,"unknown":2}`,
			valid:  []string{"self.known == 1", "has(self.known)"},
			errors: map[string]string{"self.unknown == 2": "undefined field 'unknown'"}},
		{name: "escaping",
			schema: objectOf("namespace", integerType, "if", integerType, "self", integerType, "int", integerType,
				"dot.dot", integerType, "dash-dash", integerType, "slash/slash", integerType, "double__underscore", integerType, "0leading", integerType),
			obj: `{"namespace":1,"if":2,"self":3,"int":4,"dot.dot":5,"dash-dash":6,"slash/slash":7,"double__underscore":8,"0leading":9}`,
			valid: []string{"self.__namespace__ == 1", "self.namespace == 1", "self.__if__ == 2", "self.if == 2", "self.self == 3", "self.int == 4",
				"self.dot__dot__dot == 5", "self.dash__dash__dash == 6", "self.slash__slash__slash == 7",
				"self.double__underscores__underscore == 8"},
			errors: map[string]string{"self.true == 1": "mismatched input 'true' expecting IDENTIFIER",
				"self == 201": "found no matching overload for '_==_'", "self.__illegal__ == 301": "undefined field '__illegal__'"}},
		{name: "map keys are not escaped", schema: objectOf("labels", mapOf(stringType)),
			obj:   `{"labels":{"app.kubernetes.io/name":"nginx"}}`,
			valid: []string{"self.labels['app.kubernetes.io/name'] == 'nginx'"}},
		{name: "stdlib list functions",
			schema: objectOf("ints", listOf(integerType), "unsortedInts", listOf(integerType), "emptyInts", listOf(integerType),
				"doubles", listOf(numberType), "durations", listOf(durationFormat), "strings", listOf(stringType),
				"unsortedStrings", listOf(stringType), "objs", listOf(objectOf("f1", stringType))),
			obj: `{"ints":[1,2,2,3],"unsortedInts":[2,1],"emptyInts":[],"doubles":[1,2,2,3],"durations":["1s","1m","1m","1h"],
				"strings":["a","b","b","c"],"unsortedStrings":["b","a"],"objs":[{"f1":"a"},{"f1":"b"},{"f1":"b"}]}`,
			valid: []string{"self.ints.sum() == 8", "self.ints.min() == 1", "self.ints.max() == 3", "self.emptyInts.sum() == 0",
				"self.ints.isSorted()", "self.emptyInts.isSorted()", "self.unsortedInts.isSorted() == false",
				"self.ints.indexOf(2) == 1", "self.ints.lastIndexOf(2) == 2", "self.ints.indexOf(10) == -1",
				"self.doubles.sum() == 8.0", "self.doubles.max() == 3.0", "self.doubles.indexOf(2.0) == 1",
				"self.durations.sum() == duration('1h2m1s')", "self.durations.min() == duration('1s')",
				"self.durations.max() == duration('1h')", "self.durations.isSorted()",
				"self.strings.min() == 'a'", "self.strings.max() == 'c'", "self.strings.isSorted()",
				"self.unsortedStrings.isSorted() == false", "self.strings.lastIndexOf('b') == 2",
				"[[1], [2]].indexOf([1]) == 0", "[{'a': 1}, {'b': 2}].lastIndexOf({'b': 2}) == 1",
				"self.objs.indexOf(self.objs[1]) == 1", "self.objs.lastIndexOf(self.objs[1]) == 2",
				"([0] + self.emptyInts).min() == 0"},
			errors: map[string]string{
				"self.emptyInts.min() == 1":              "min called on empty list",
				"self.emptyInts.max() == 3":              "max called on empty list",
				"['a', 'b'].sum() == 'c'":                "found no matching overload for 'sum' applied to 'list(string).()",
				"[[1], [2]].min() == [1]":                "found no matching overload for 'min' applied to 'list(list(int)).()",
				"[{'a': 1}, {'b': 2}].max() == {'b': 2}": "found no matching overload for 'max' applied to 'list(map(string, int)).()"}},
		{name: "stdlib regex functions", schema: objectOf("str", stringType), obj: `{"str":"this is a 123 string 456"}`,
			valid: []string{"self.str.find('[0-9]+') == '123'", "self.str.find('xyz') == ''",
				"self.str.findAll('[0-9]+') == ['123', '456']", "self.str.findAll('[0-9]+', 0) == []",
				"self.str.findAll('[0-9]+', 1) == ['123']", "self.str.findAll('[0-9]+', -1) == ['123', '456']"},
			errors: map[string]string{"self.str.matches('x++')": "invalid matches argument",
				"self.str.find(')') == ''": "error parsing regexp: unexpected ): `)`"}},
		{name: "URL parsing", schema: objectOf("url", stringType),
			obj: `{"url":"https://user:pass@kubernetes.io:80/docs/home?k1=a&k2=b&k2=c#anchor"}`,
			valid: []string{"url('/path').getScheme() == ''", "url('https://example.com/').getScheme() == 'https'",
				"url('https://example.com:80/').getHost() == 'example.com:80'", "url('https://[::1]:80/').getHost() == '[::1]:80'",
				"url('https://[::1]/').getHostname() == '::1'", "url('https://example.com:80/').getPort() == '80'",
				"url('https://example.com/with space/').getEscapedPath() == '/with%20space/'",
				"url('https://example.com/path?k1=a&k2=b&k2=c').getQuery() == { 'k1': ['a'], 'k2': ['b', 'c']}",
				"url(self.url).getHostname() == 'kubernetes.io'", "url(self.url).getEscapedPath() == '/docs/home'",
				"isURL('https://user:pass@example.com:80/path?query=val#fragment')", "isURL('/path') == true",
				"isURL('https://a:b:c/') == false", "isURL('../relative-path') == false"}},
		{name: "IP addresses", schema: objectOf("ip", stringType), obj: `{"ip":"10.0.0.1"}`,
			valid: []string{"isIP(self.ip)", "ip(self.ip).family() == 4", "ip('::1').family() == 6",
				"isIP('1.2.3.4.5') == false", "isIP('fe80::1%eth0') == false", "isIP('::ffff:1.2.3.4') == false",
				"ip.isCanonical('2001:db8::1')", "ip.isCanonical('2001:DB8::1') == false",
				"ip('0.0.0.0').isUnspecified()", "ip('127.0.0.1').isLoopback()", "ip('::1').isLoopback()",
				"ip('224.0.0.1').isLinkLocalMulticast()", "ip('fe80::1').isLinkLocalUnicast()",
				"ip('192.168.0.1').isGlobalUnicast()", "ip('127.0.0.1').isGlobalUnicast() == false",
				"string(ip('2001:DB8::1')) == '2001:db8::1'", "ip('10.0.0.1') == ip(self.ip)", "ip('10.0.0.2') != ip(self.ip)"},
			errors: map[string]string{"ip('10.0.0') == ip('10.0.0.1')": `IP Address "10.0.0" parse error during conversion from string`,
				"ip('::ffff:1.2.3.4').family() == 6": `IPv4-mapped IPv6 address "::ffff:1.2.3.4" is not allowed`,
				"ip('fe80::1%eth0').family() == 6":   `IP address "fe80::1%eth0" with zone value is not allowed`}},
		{name: "CIDRs", schema: objectOf("cidr", stringType), obj: `{"cidr":"192.168.0.0/24"}`,
			valid: []string{"isCIDR(self.cidr)", "isCIDR('192.168.0.0') == false", "isCIDR('::ffff:1.2.3.4/120') == false",
				"cidr(self.cidr).containsIP('192.168.0.1')", "cidr(self.cidr).containsIP(ip('192.168.1.1')) == false",
				"cidr(self.cidr).containsIP('::1') == false",
				"cidr(self.cidr).containsCIDR('192.168.0.128/25')", "cidr(self.cidr).containsCIDR(cidr('192.168.0.0/16')) == false",
				"cidr('10.0.0.0/8').containsCIDR('::/0') == false",
				"cidr('192.168.0.1/24').ip() == ip('192.168.0.1')", "cidr('192.168.0.1/24').masked() == cidr('192.168.0.0/24')",
				"cidr('2001:db8::/32').prefixLength() == 32", "string(cidr('2001:DB8::/32')) == '2001:db8::/32'"},
			errors: map[string]string{"cidr('192.168.0.0/33').prefixLength() == 33": "network address parse error during conversion from string",
				"cidr(self.cidr).containsIP('x')": `IP Address "x" parse error during conversion from string`}},
		{name: "quantities", schema: objectOf("q", stringType), obj: `{"q":"1.5Gi"}`,
			valid: []string{"isQuantity(self.q)", "isQuantity('1,5') == false", "isQuantity('20x') == false",
				"quantity('1k') == quantity('1000')", "quantity('1Ki') != quantity('1k')",
				"quantity(self.q).isGreaterThan(quantity('1Gi'))", "quantity('500m').isLessThan(quantity('1'))",
				"quantity('1').compareTo(quantity('1000m')) == 0", "quantity('2').compareTo(quantity('3')) == -1",
				"quantity('-5').sign() == -1", "quantity('0').sign() == 0",
				"quantity('1k').isInteger()", "quantity('500m').isInteger() == false", "quantity('1Mi').asInteger() == 1048576",
				"quantity('500m').asApproximateFloat() == 0.5",
				"quantity('1').add(quantity('500m')) == quantity('1500m')", "quantity('1').add(2) == quantity('3')",
				"quantity('1').sub(quantity('500m')) == quantity('500m')", "quantity('5').sub(10).sign() == -1"},
			errors: map[string]string{"quantity('20x').sign() == 1": "quantities must match the regular expression",
				"quantity('500m').asInteger() == 0": "cannot convert value to integer"}},
		{name: "transition rules", schema: vals(integerType), obj: valsObj("10"), old: valsObj("10"),
			valid: []string{"oldSelf.val1 == self.val1", "self == oldSelf"}},
		{name: "skipped transition rule without an old value", schema: vals(integerType), obj: valsObj("10"),
			valid: []string{"oldSelf.val1 == 99"}},
		{name: "optionals", schema: objectOf("presentObj", objectOf("presentStr", stringType, "absentStr", stringType),
			"absentObj", objectOf("absentStr", stringType), "m", mapOf(stringType)),
			obj: `{"presentObj":{"presentStr":"value"},"m":{"k":"v"}}`,
			valid: []string{"self.?presentObj.?presentStr == optional.of('value')",
				"self.presentObj.?presentStr == optional.of('value')", "self.?absentObj.?absentStr == optional.none()",
				"self.?presentObj.?absentStr == optional.none()", "self.m.?k == optional.of('v')", "self.m[?'x'].orValue('d') == 'd'",
				"optional.ofNonZeroValue('').hasValue() == false", "['a', ?optional.none(), 'c'] == ['a', 'c']",
				"{?'k': optional.none(), 'k2': 'v2'} == {'k2': 'v2'}"},
			errors: map[string]string{"self.absentObj.?absentStr == optional.none()": "no such key: absentObj"}},
		{name: "two-variable comprehensions", schema: objectOf("m", mapOf(integerType), "l", listOf(stringType)),
			obj:   `{"m":{"a":1,"b":2},"l":["x","y"]}`,
			valid: []string{"self.m.all(k, v, v > 0)", "self.l.exists(i, v, i == 1 && v == 'y')"}},
		{name: "not a bool", schema: vals(integerType), obj: valsObj("1"),
			errors: map[string]string{"self.val1": "cel expression must evaluate to a bool"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, rule := range tc.valid {
				assert.Empty(t, check(t, c, tc.schema, api.ValidationRule{Rule: rule}, tc.obj, tc.old), rule)
			}
			for rule, want := range tc.errors {
				assert.Contains(t, check(t, c, tc.schema, api.ValidationRule{Rule: rule}, tc.obj, tc.old), want, rule)
			}
		})
	}
}
