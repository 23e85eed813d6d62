package celrules

import (
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/miniplane/miniplane/api"
)

// TestCostEstimation ports Kubernetes' TestCostEstimation: a rule's
// estimated cost on a schema without bounds, and with maxItems,
// maxProperties or maxLength set to a number, is upstream's to the unit.
func TestCostEstimation(t *testing.T) {
	array := func(items string) func(string) string {
		return func(bound string) string { return `{"type":"array"` + bound + `,"items":` + items + `}` }
	}
	mapOfT := func(values string) func(string) string {
		return func(bound string) string {
			return `{"type":"object"` + bound + `,"additionalProperties":` + values + `}`
		}
	}
	str := func(bound string) string { return `{"type":"string"` + bound + `}` }
	bytesT := func(bound string) string { return `{"type":"string","format":"byte"` + bound + `}` }
	for _, tc := range []struct {
		name      string
		schema    func(bound string) string
		boundName string
		rule      string
		calc      uint64 // no bound
		max       int64
		set       uint64 // with the bound
	}{
		{"number array with all", array(numberType), "maxItems", "self.all(x, true)", 4718591, 10, 32},
		{"string array with all", array(stringType), "maxItems", "self.all(x, true)", 3145727, 20, 62},
		{"boolean array with all", array(booleanType), "maxItems", "self.all(x, true)", 1887437, 5, 17},
		{"array of number arrays with all", array(listOf(numberType)), "maxItems", "self.all(x, true)", 3145727, 100, 302},
		{"map of numbers with all", mapOfT(numberType), "maxProperties", "self.all(x, true)", 1348169, 10, 32},
		{"map of numbers with has", mapOfT(numberType), "maxProperties", "has(self.x)", 0, 100, 0},
		{"map of strings with all", mapOfT(stringType), "maxProperties", "self.all(x, true)", 1179647, 3, 11},
		{"map of booleans with all", mapOfT(booleanType), "maxProperties", "self.all(x, true)", 943718, 100, 302},
		{"string with contains", str, "maxLength", "self.contains('test')", 314574, 10, 5},
		{"string with startsWith", str, "maxLength", "self.startsWith('test')", 2, 15, 2},
		{"concat string", str, "maxLength", `size(self + "hello") > size("hello")`, 314578, 4, 7},
		{"index of array with numbers", array(numberType), "maxItems", "self[1] == 0.0", 2, 5000, 2},
		{"index of array with strings", array(stringType), "maxItems", "self[1] == self[1]", 314577, 8, 314577},
		{"O(n^2) loop with numbers", array(numberType), "maxItems", "self.all(x, self.all(y, true))", 0, 10, 352},
		{"O(n^3) loop with numbers", array(numberType), "maxItems", "self.all(x, self.all(y, self.all(z, true)))", 0, 10, 3552},
		{"regex matches simple", str, "maxLength", `self.matches("x")`, 314574, 50, 22},
		{"regex matches empty string", str, "maxLength", `"".matches("(((((((((())))))))))[0-9]")`, 7, 10, 7},
		{"regex matches empty regex", str, "maxLength", `self.matches("")`, 1, 100, 1},
		{"set array maxLength to zero", array(numberType), "maxItems", "self[3] == 0.0", 2, 0, 2},
		{"set map maxLength to zero", mapOfT(numberType), "maxProperties", `self["x"] == 0.0`, 2, 0, 2},
		{"set string maxLength to zero", str, "maxLength", `self == "x"`, 2, 0, 1},
		{"set bytes maxLength to zero", bytesT, "maxLength", `self == b"x"`, 2, 0, 1},
		{"set maxLength greater than estimated maxLength", array(numberType), "maxItems", "self.all(x, x == 0.0)", 6291454, 3 * 1024 * 2048, 25165826},
		{"int-or-string array with all", array(intOrString), "maxItems", "self.all(x, true)", 4718591, 10, 32},
		{"index of array with int-or-strings", array(intOrString), "maxItems", "self[0] == 5", 3, 10, 3},
		{"duration array with all", array(durationFormat), "maxItems", "self.all(x, true)", 2359295, 5, 17},
		{"date array with all", array(dateFormat), "maxItems", "self.all(x, true)", 725936, 15, 47},
		{"date-time array with all", array(dateTimeFormat), "maxItems", "self.all(x, true)", 428963, 25, 77},
		{"map of int-or-strings with all", mapOfT(intOrString), "maxProperties", "self.all(x, true)", 1348169, 15, 47},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// As upstream, a 0 expects nothing, and an O(n^k) loop without a
			// bound is over the per-rule limit.
			switch calc := estimatedCost(t, tc.schema(""), tc.rule); {
			case tc.calc != 0:
				assert.Equal(t, tc.calc, calc, "without a bound")
			case strings.HasPrefix(tc.name, "O(n^"):
				assert.Greater(t, calc, uint64(StaticEstimatedCostLimit))
			}
			if tc.set != 0 {
				assert.Equal(t, tc.set, estimatedCost(t, tc.schema(`,"`+tc.boundName+`":`+strconv.FormatInt(tc.max, 10)), tc.rule), "with %s %d", tc.boundName, tc.max)
			}
		})
	}
}

// estimatedCost compiles rule on a field of type schema and returns its
// estimated cost.
func estimatedCost(t *testing.T, schema, rule string) uint64 {
	t.Helper()
	root := schemaOf(t, objectOf("x", schema))
	x := root.Properties["x"]
	x.XValidations = []api.ValidationRule{{Rule: rule}}
	root.Properties["x"] = x
	v, errs := (&Compiler{noStaticCost: true}).compile(root, "")
	require.Empty(t, errs)
	return v.root.props["x"].rules[0].maxCost
}
