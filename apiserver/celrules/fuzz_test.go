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

// FuzzPolicy compiles any policy expressions (a match condition, a
// variable, a validation and its message expression) and evaluates them on
// any object, old object and parameters: nothing may panic.
func FuzzPolicy(f *testing.F) {
	f.Add("object.metadata.name != 'x'", "object.spec.replicas", "variables.v <= 5", "'over: ' + string(variables.v)", `{"metadata":{"name":"a"},"spec":{"replicas":6}}`, "", `{"data":{"max":"3"}}`)
	f.Add("has(object.spec)", "params.data.max", "int(variables.v) > oldObject.spec.replicas", "", `{"spec":{}}`, `{"spec":{"replicas":1.5}}`, `{}`)
	f.Add("request.operation == 'CREATE'", "[1, 2].map(x, x * 2)", "variables.v.all(x, x > 0) && namespaceObject == null", "string(variables.v)", `{}`, "", "")
	c := &Compiler{}
	f.Fuzz(func(t *testing.T, cond, variable, expr, msgExpr, objJSON, oldJSON, paramsJSON string) {
		spec := api.ValidatingAdmissionPolicySpec{
			ParamKind:       &api.ParamKind{APIVersion: "v1", Kind: "ConfigMap"},
			MatchConditions: []api.MatchCondition{{Name: "c", Expression: cond}},
			Variables:       []api.Variable{{Name: "v", Expression: variable}},
			Validations:     []api.Validation{{Expression: expr, MessageExpression: msgExpr}},
		}
		p, errs := c.CompilePolicy(&spec)
		for _, e := range errs {
			_ = e.Error()
		}
		if p == nil {
			return
		}
		obj, ok := decodeObject(objJSON)
		if !ok {
			return
		}
		in := PolicyInput{Object: obj, Request: map[string]any{"operation": "CREATE"}}
		if old, ok := decodeObject(oldJSON); ok {
			in.OldObject = old
		}
		if params, ok := decodeObject(paramsJSON); ok {
			in.Params = params
		}
		if _, err := p.Matches(in); err != nil {
			_ = err.Error()
		}
		for _, f := range p.Validate(in) {
			_ = f.Message
		}
	})
}
