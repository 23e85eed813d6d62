package celrules

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/miniplane/miniplane/api"
)

// TestCelCompilation ports cases of Kubernetes' TestCelCompilation: which
// rules compile against a schema, the error of those that do not, and which
// are transition rules.
func TestCelCompilation(t *testing.T) {
	opt := ptr(true)
	object := objectOf("i", integerType, "b", booleanType, "s", stringType, "a", listOf(integerType),
		"o", objectOf("i", integerType, "s", stringType, "o", `{"type":"object"}`))
	for _, tc := range []struct {
		name, schema string
		rule         api.ValidationRule
		err          string // "" when it compiles
		transition   bool
	}{
		{"optional primitive: value()", integerType, api.ValidationRule{Rule: "self >= oldSelf.value()", OptionalOldSelf: opt}, "", true},
		{"optional primitive: orValue", integerType, api.ValidationRule{Rule: "self >= oldSelf.orValue(1)", OptionalOldSelf: opt}, "", true},
		{"optional primitive: hasValue", integerType, api.ValidationRule{Rule: "oldSelf.hasValue() ? self >= oldSelf.value() : true", OptionalOldSelf: opt}, "", true},
		{"optional primitive used as a value", integerType, api.ValidationRule{Rule: "self >= oldSelf", OptionalOldSelf: opt}, "optional", false},
		{"optional primitive: orValue of another type", integerType, api.ValidationRule{Rule: "self >= oldSelf.orValue('')", OptionalOldSelf: opt}, "orValue", false},
		{"optional complex: field of value()", object, api.ValidationRule{Rule: "self.o.i >= oldSelf.o.i.value()", OptionalOldSelf: opt}, "", true},
		{"optional complex: object equality", object, api.ValidationRule{Rule: "self.o == oldSelf.o.value()", OptionalOldSelf: opt}, "", true},
		{"optional complex: orValue", object, api.ValidationRule{Rule: "self.o.i >= oldSelf.o.i.orValue(1)", OptionalOldSelf: opt}, "", true},
		{"optional complex used as a value", object, api.ValidationRule{Rule: "self.o.i >= oldSelf.o.i", OptionalOldSelf: opt}, "optional", false},
		{"optional complex: orValue of another type", object, api.ValidationRule{Rule: "self.o.i >= oldSelf.o.s.orValue(0)", OptionalOldSelf: opt}, "orValue", false},
		{"valid for string", stringType, api.ValidationRule{Rule: "self.startsWith('s')"}, "", false},
		{"valid for byte", byteType, api.ValidationRule{Rule: "string(self).endsWith('s')"}, "", false},
		{"valid for boolean", booleanType, api.ValidationRule{Rule: "self == true"}, "", false},
		{"valid for integer", integerType, api.ValidationRule{Rule: "self > 0"}, "", false},
		{"valid for number", numberType, api.ValidationRule{Rule: "self > 1.0"}, "", false},
		{"valid nested array of object", listOf(objectOf("val", integerType)), api.ValidationRule{Rule: "self.all(x, x.val > 0)"}, "", false},
		{"valid map", mapOf(booleanType), api.ValidationRule{Rule: "size(self) > 0"}, "", false},
		{"invalid checking for number", numberType, api.ValidationRule{Rule: "size(self) == 10"}, "found no matching overload for 'size'", false},
		{"compilation failure", integerType, api.ValidationRule{Rule: "size(self) == 10"}, "compilation failed", false},
		{"valid for escaping", objectOf("namespace", listOf(listOf(stringType)), "if", integerType, "self", integerType),
			api.ValidationRule{Rule: "size(self.__namespace__[0]) == 10 && self.__if__ == 10 && self.self == 10"}, "", false},
		{"keywords as field names", objectOf("namespace", listOf(listOf(stringType)), "if", integerType),
			api.ValidationRule{Rule: "size(self.namespace[0]) == 10 && self.if == 10"}, "", false},
		{"self is not its field", objectOf("self", integerType), api.ValidationRule{Rule: "self == 10"}, "found no matching overload", false},
		{"transition rule identified", integerType, api.ValidationRule{Rule: "self >= oldSelf"}, "", true},
		{"not a transition rule", integerType, api.ValidationRule{Rule: "self > 0"}, "", false},
		{"expression must evaluate to bool", integerType, api.ValidationRule{Rule: "42"}, "cel expression must evaluate to a bool", false},
		{"messageExpression", integerType, api.ValidationRule{Rule: "self > 0", MessageExpression: `"expected self to be greater than 0, but got " + string(self)`}, "", false},
		{"messageExpression must evaluate to a string", integerType, api.ValidationRule{Rule: "self > 0", MessageExpression: "42"}, "messageExpression must evaluate to a string", false},
		{"messageExpression syntax error", integerType, api.ValidationRule{Rule: "self > 0", MessageExpression: `"hello" +`}, "messageExpression compilation failed", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := schemaOf(t, objectOf("x", tc.schema))
			x := root.Properties["x"]
			x.XValidations = []api.ValidationRule{tc.rule}
			root.Properties["x"] = x
			v, errs := (&Compiler{noStaticCost: true}).compile(root, "")
			if tc.err != "" {
				require.NotEmpty(t, errs)
				assert.Contains(t, errs.Error(), tc.err)
				return
			}
			require.Empty(t, errs)
			assert.Equal(t, tc.transition, v.root.props["x"].rules[0].usesOldSelf)
		})
	}
}
