package celrules

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/miniplane/miniplane/api"
)

func ptr[T any](v T) *T { return &v }

// TestMessageExpression ports Kubernetes' TestMessageExpression: the
// message a failing rule's messageExpression gives, the rule's own message
// when it gives none fit to use, and the budget it spends.
func TestMessageExpression(t *testing.T) {
	schema := objectOf("str", stringType)
	for _, tc := range []struct {
		name, message, messageExpression string
		perCallLimit                     uint64
		budget                           int64
		want                             string
	}{
		{name: "used", messageExpression: `"this is messageExpression"`,
			want: `<nil>: Invalid value: "object": this is messageExpression`},
		{name: "reads self", message: "rule message", messageExpression: `self.str`,
			want: `<nil>: Invalid value: "object": this is the string`},
		{name: "an error falls back to the message", message: "message not messageExpression", messageExpression: `"str1 " + ["a", "b", "c", "d"][4]`,
			want: `<nil>: Invalid value: "object": message not messageExpression`},
		{name: "an error without a message falls back to the rule", messageExpression: `"str1 " + ["a", "b", "c", "d"][4]`,
			want: `<nil>: Invalid value: "object": failed rule: false`},
		{name: "line breaks fall back", message: "message not messageExpression", messageExpression: `"str with \na newline"`,
			want: `<nil>: Invalid value: "object": message not messageExpression`},
		{name: "too long falls back", message: "message not messageExpression", messageExpression: `"` + strings.Repeat("a", 5121) + `"`,
			want: `<nil>: Invalid value: "object": message not messageExpression`},
		{name: "blank falls back", message: "message not messageExpression", messageExpression: `string("     ")`,
			want: `<nil>: Invalid value: "object": message not messageExpression`},
		{name: "out of budget", messageExpression: `"string 1" + "string 2" + "string 3"`, budget: 2,
			want: `<nil>: Invalid value: "object": messageExpression evaluation failed due to running out of cost budget, no further validation rules will be run`},
		{name: "per-call limit", messageExpression: `"string 1" + "string 2" + "string 3"`, perCallLimit: 1,
			want: `<nil>: Invalid value: "object": no further validation rules will be run due to call cost exceeds limit for messageExpression: "\"string 1\" + \"string 2\" + \"string 3\""`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := &Compiler{PerCallLimit: tc.perCallLimit}
			v, errs := c.Compile(withRules(t, schema, api.ValidationRule{Rule: "false", Message: tc.message, MessageExpression: tc.messageExpression}), "")
			require.Empty(t, errs)
			budget := tc.budget
			if budget == 0 {
				budget = RuntimeCostBudget
			}
			got, _ := v.validate(decode(t, `{"str":"this is the string"}`), nil, budget)
			assert.Equal(t, tc.want, errString(got))
		})
	}
}

// TestReasonAndFieldPath ports Kubernetes' TestReasonAndFldPath: a rule's
// reason picks the error's type and its fieldPath the error's field.
func TestReasonAndFieldPath(t *testing.T) {
	schema := objectOf("f", objectOf("m", mapOf(stringType), "l", listOf(stringType), "s", stringType))
	for _, tc := range []struct {
		name   string
		reason *string
		path   string
		want   string
	}{
		{"default is invalid", nil, "", `f: Invalid value: "object": failed rule: false`},
		{"forbidden", ptr("FieldValueForbidden"), "", `f: Forbidden: failed rule: false`},
		{"required", ptr("FieldValueRequired"), "", `f: Required value: failed rule: false`},
		{"duplicate", ptr("FieldValueDuplicate"), "", `f: Duplicate value: "object"`},
		{"field path", nil, ".s", `f.s: Invalid value: "object": failed rule: false`},
		{"map key path", nil, ".m['key.with.dots']", `f.m[key.with.dots]: Invalid value: "object": failed rule: false`},
		{"list path", ptr("FieldValueForbidden"), ".l", `f.l: Forbidden: failed rule: false`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := schemaOf(t, schema)
			f := root.Properties["f"]
			f.XValidations = []api.ValidationRule{{Rule: "false", Reason: tc.reason, FieldPath: tc.path}}
			root.Properties["f"] = f
			v, errs := (&Compiler{}).Compile(root, "")
			require.Empty(t, errs)
			assert.Equal(t, tc.want, errString(v.Validate(decode(t, `{"f":{"s":"x"}}`), nil)))
		})
	}
}

// TestNormalizeFieldPath ports the cases of Kubernetes' TestValidateFieldPath.
func TestNormalizeFieldPath(t *testing.T) {
	root := schemaOf(t, objectOf("foo", objectOf("bar", stringType, "a.b", stringType), "m", mapOf(objectOf("x", stringType)), "l", listOf(stringType)))
	for _, tc := range []struct{ path, want, err string }{
		{".foo", "foo", ""},
		{".foo.bar", "foo.bar", ""},
		{"['foo']['bar']", "foo.bar", ""},
		{".foo['a.b']", "foo.a.b", ""},
		{".m['k'].x", "m[k].x", ""},
		{".m.k", "m[k]", ""},
		{".baz", "", "does not refer to a valid field"},
		{".l.x", "", "does not refer to a valid field"},
		{"foo", "", "expected [ or . but got: foo"},
		{".foo[bar]", "", "expected single quoted string but got bar]"},
		{".foo['bar'", "", "expected ]"},
	} {
		t.Run(tc.path, func(t *testing.T) {
			got, err := normalizeFieldPath(tc.path, root)
			if tc.err != "" {
				require.Error(t, err)
				assert.Equal(t, tc.err, err.Error())
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.want, got)
		})
	}
}

// TestTransitionRules checks that a rule reading oldSelf runs on update
// where an old value is matched (an object's field, a map's key, a
// list-type map's item by its keys) and is skipped elsewhere, unless
// optionalOldSelf lets it run on oldSelf's absence. Kubernetes: the
// transition cases of TestValidationExpressions and TestOptionalOldSelf.
func TestTransitionRules(t *testing.T) {
	items := `{"type":"object","properties":{"k":{"type":"string"},"v":{"type":"integer"}},"required":["k"],` +
		`"x-kubernetes-validations":[{"rule":"self.v >= oldSelf.v","message":"v may not go down"}]}`
	schema := `{"type":"object","properties":{
		"list":{"type":"array","x-kubernetes-list-type":"map","x-kubernetes-list-map-keys":["k"],"items":` + items + `},
		"m":{"type":"object","additionalProperties":{"type":"integer","x-kubernetes-validations":[{"rule":"self >= oldSelf","message":"may not go down"}]}},
		"opt":{"type":"string","x-kubernetes-validations":[{"rule":"oldSelf.hasValue() || self == 'first'","optionalOldSelf":true,"message":"must start as first"}]}}}`
	c := &Compiler{}
	v, errs := c.Compile(schemaOf(t, schema), "")
	require.Empty(t, errs)
	for _, tc := range []struct{ name, obj, old, want string }{
		{"create skips transition rules", `{"list":[{"k":"a","v":1}],"m":{"x":1},"opt":"first"}`, "", ""},
		{"optionalOldSelf runs on create", `{"opt":"second"}`, "", `opt: Invalid value: "string": must start as first`},
		{"optionalOldSelf with an old value", `{"opt":"second"}`, `{"opt":"first"}`, ""},
		{"list-map items matched by key", `{"list":[{"k":"b","v":1},{"k":"a","v":1}]}`, `{"list":[{"k":"a","v":2},{"k":"b","v":0}]}`,
			`list[1]: Invalid value: "object": v may not go down`},
		{"a new item has no old value", `{"list":[{"k":"c","v":0}]}`, `{"list":[{"k":"a","v":2}]}`, ""},
		{"map values matched by key", `{"m":{"x":1,"y":5}}`, `{"m":{"x":2}}`, `m[x]: Invalid value: "integer": may not go down`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, errString(v.Validate(decode(t, tc.obj), decode(t, tc.old))))
		})
	}
}

// TestCELValidationLimit ports Kubernetes' TestCELValidationLimit: a rule
// over the per-call limit stops the rules, and so does a spent budget.
func TestCELValidationLimit(t *testing.T) {
	schema := objectOf("l", `{"type":"array","maxItems":10,"items":{"type":"integer"}}`)
	obj := `{"l":[1,2,3,4,5,6,7,8,9,10]}`
	rule := api.ValidationRule{Rule: "self.l.all(x, self.l.all(y, x + y > 0))"}

	v, errs := (&Compiler{PerCallLimit: 100}).Compile(withRules(t, schema, rule), "")
	require.Empty(t, errs)
	assert.Equal(t, `<nil>: Invalid value: "object": 'operation cancelled: actual cost limit exceeded': no further validation rules will be run due to call cost exceeds limit for rule: self.l.all(x, self.l.all(y, x + y > 0))`,
		errString(v.Validate(decode(t, obj), nil)))

	v, errs = (&Compiler{}).Compile(withRules(t, schema, rule), "")
	require.Empty(t, errs)
	got, left := v.validate(decode(t, obj), nil, 10)
	assert.Equal(t, `<nil>: Invalid value: "object": validation failed due to running out of cost budget, no further validation rules will be run`, errString(got))
	assert.Negative(t, left)
	got, left = v.validate(decode(t, obj), nil, RuntimeCostBudget)
	assert.Empty(t, got)
	assert.Less(t, left, int64(RuntimeCostBudget))
}
