package celrules

import (
	"encoding/json"
	"testing"

	"github.com/miniplane/miniplane/api"
)

// FuzzRules compiles any rule, message expression and field path against
// any schema and evaluates it on any object and old object: nothing may
// panic, whatever the data's shape against the schema.
func FuzzRules(f *testing.F) {
	typed := objectOf("s", stringType, "i", integerType, "d", dateTimeFormat, "b", byteType, "io", intOrString,
		"l", `{"type":"array","x-kubernetes-list-type":"map","x-kubernetes-list-map-keys":["k"],"items":`+objectOf("k", stringType, "v", integerType)+`}`,
		"set", setOf(stringType), "m", mapOf(listOf(numberType)),
		"e", `{"type":"object","x-kubernetes-embedded-resource":true,"x-kubernetes-preserve-unknown-fields":true}`)
	f.Add(typed, "self.s.size() < 10 && self.l.all(x, x.v > 0)", "", "", `{"s":"x","l":[{"k":"a","v":1}]}`, "")
	f.Add(typed, "self.l == oldSelf.l && self.set + ['a'] == oldSelf.set", "'bad ' + self.s", ".s", `{"l":[{"k":"a"}],"set":["a"]}`, `{"l":[{"k":"a","v":2}],"set":[]}`)
	f.Add(typed, "self.d < timestamp('2020-01-01T00:00:00Z') || self.b == b'x' || self.io == 1", "", "", `{"d":"garbage","b":"!!","io":[1]}`, "")
	f.Add(typed, "self.m.all(k, self.m[k].sum() > 0.0) && self.e.kind == 'Pod'", "", ".m['x']", `{"m":{"x":[1,2.5]},"e":{"kind":3}}`, "")
	f.Add(typed, "url(self.s).getHost() == '' && self.s.find('[') == '' && [1,2].isSorted()", "", "", `{"s":"::"}`, "")
	f.Add(typed, "isIP(self.s) || cidr(self.s).containsIP(self.s) || quantity(self.s).add(1).isInteger()", "", "", `{"s":"10.0.0.0/8"}`, "")
	f.Add(`{"type":"object","properties":{"x":{"type":"array","items":{"type":"integer"}}}}`, "self.x.max() > 0", "", "", `{"x":[]}`, `{"x":null}`)
	c := &Compiler{}
	f.Fuzz(func(t *testing.T, schemaJSON, rule, msgExpr, fieldPath, objJSON, oldJSON string) {
		var s api.JSONSchemaProps
		if json.Unmarshal([]byte(schemaJSON), &s) != nil {
			return
		}
		s.XValidations = append(s.XValidations, api.ValidationRule{Rule: rule, MessageExpression: msgExpr, FieldPath: fieldPath})
		v, errs := c.Compile(&s, "")
		for _, e := range errs {
			_ = e.Error()
		}
		obj, ok := decodeObject(objJSON)
		if !ok {
			return
		}
		old, _ := decodeObject(oldJSON)
		for _, e := range v.Validate(obj, old) {
			_ = e.Error()
		}
	})
}

func decodeObject(s string) (map[string]any, bool) {
	v, err := api.DecodeJSONValue([]byte(s))
	if err != nil {
		return nil, false
	}
	m, ok := v.(map[string]any)
	return m, ok
}
