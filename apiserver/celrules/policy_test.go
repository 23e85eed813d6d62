package celrules

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/miniplane/miniplane/api"
)

// TestCompilePolicyErrors checks the compile errors of a policy's
// expressions, at kube-apiserver's paths. Kubernetes: the CEL cases of
// TestValidateValidatingAdmissionPolicy.
func TestCompilePolicyErrors(t *testing.T) {
	reason := api.StatusReasonForbidden
	tests := []struct {
		name      string
		spec      api.ValidatingAdmissionPolicySpec
		wantField string
		wantIn    string
	}{
		{"syntax error", api.ValidatingAdmissionPolicySpec{Validations: []api.Validation{{Expression: "object.x <"}}},
			"spec.validations[0].expression", "compilation failed: ERROR: <input>:1:11: Syntax error"},
		{"not a bool", api.ValidatingAdmissionPolicySpec{Validations: []api.Validation{{Expression: "'yes'"}}},
			"spec.validations[0].expression", "must evaluate to bool but got string"},
		{"params without paramKind", api.ValidatingAdmissionPolicySpec{Validations: []api.Validation{{Expression: "params.x == 1"}}},
			"spec.validations[0].expression", "undeclared reference to 'params'"},
		{"message expression not a string", api.ValidatingAdmissionPolicySpec{Validations: []api.Validation{{Expression: "true", MessageExpression: "1", Reason: &reason}}},
			"spec.validations[0].messageExpression", "must evaluate to string but got int"},
		{"variable used before it is declared", api.ValidatingAdmissionPolicySpec{
			Variables:   []api.Variable{{Name: "a", Expression: "variables.b"}, {Name: "b", Expression: "1"}},
			Validations: []api.Validation{{Expression: "variables.a == 1"}}},
			"spec.variables[0].expression", "undefined field 'b'"},
		{"match condition", api.ValidatingAdmissionPolicySpec{
			MatchConditions: []api.MatchCondition{{Name: "m", Expression: "1"}},
			Validations:     []api.Validation{{Expression: "true"}}},
			"spec.matchConditions[0].expression", "must evaluate to bool but got int"},
	}
	c := &Compiler{}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, errs := c.CompilePolicy(&tt.spec)
			require.Len(t, errs, 1, "%v", errs)
			assert.Equal(t, tt.wantField, errs[0].Field)
			assert.Equal(t, api.CauseTypeFieldValueInvalid, errs[0].Type)
			assert.Contains(t, errs[0].Detail, tt.wantIn)
		})
	}
}

// TestPolicyValidate evaluates policies against objects. Kubernetes: the
// scenarios of validating's validator_test.go that need no type checking.
func TestPolicyValidate(t *testing.T) {
	forbidden := api.StatusReasonForbidden
	deployment := func(replicas int) any {
		return map[string]any{"metadata": map[string]any{"name": "d", "labels": map[string]any{"app": "web"}},
			"spec": map[string]any{"replicas": int64(replicas)}}
	}
	tests := []struct {
		name string
		spec api.ValidatingAdmissionPolicySpec
		in   PolicyInput
		want []Failure
	}{
		{"passes", api.ValidatingAdmissionPolicySpec{Validations: []api.Validation{{Expression: "object.spec.replicas <= 5"}}},
			PolicyInput{Object: deployment(3)}, nil},
		{"fails with the expression as message, Invalid", api.ValidatingAdmissionPolicySpec{Validations: []api.Validation{{Expression: "object.spec.replicas <= 5"}}},
			PolicyInput{Object: deployment(6)}, []Failure{{Message: "failed expression: object.spec.replicas <= 5", Reason: api.StatusReasonInvalid}}},
		{"message and reason", api.ValidatingAdmissionPolicySpec{Validations: []api.Validation{{Expression: "object.spec.replicas <= 5", Message: " too many ", Reason: &forbidden}}},
			PolicyInput{Object: deployment(6)}, []Failure{{Message: "too many", Reason: api.StatusReasonForbidden}}},
		{"messageExpression wins over message", api.ValidatingAdmissionPolicySpec{Validations: []api.Validation{{Expression: "object.spec.replicas <= 5", Message: "m",
			MessageExpression: "'replicas ' + string(object.spec.replicas) + ' > 5'"}}},
			PolicyInput{Object: deployment(6)}, []Failure{{Message: "replicas 6 > 5", Reason: api.StatusReasonInvalid}}},
		{"an empty messageExpression result falls back to message", api.ValidatingAdmissionPolicySpec{Validations: []api.Validation{{Expression: "false", Message: "m", MessageExpression: "' '"}}},
			PolicyInput{Object: deployment(1)}, []Failure{{Message: "m", Reason: api.StatusReasonInvalid}}},
		{"variables", api.ValidatingAdmissionPolicySpec{
			Variables:   []api.Variable{{Name: "replicas", Expression: "object.spec.replicas"}, {Name: "big", Expression: "variables.replicas > 5"}},
			Validations: []api.Validation{{Expression: "!variables.big"}}},
			PolicyInput{Object: deployment(7)}, []Failure{{Message: "failed expression: !variables.big", Reason: api.StatusReasonInvalid}}},
		{"params", api.ValidatingAdmissionPolicySpec{ParamKind: &api.ParamKind{APIVersion: "v1", Kind: "ConfigMap"},
			Validations: []api.Validation{{Expression: "object.spec.replicas <= int(params.data.max)"}}},
			PolicyInput{Object: deployment(4), Params: map[string]any{"data": map[string]any{"max": "3"}}},
			[]Failure{{Message: "failed expression: object.spec.replicas <= int(params.data.max)", Reason: api.StatusReasonInvalid}}},
		{"oldObject is null on create", api.ValidatingAdmissionPolicySpec{Validations: []api.Validation{{Expression: "oldObject == null"}}},
			PolicyInput{Object: deployment(1)}, nil},
		{"request", api.ValidatingAdmissionPolicySpec{Validations: []api.Validation{{Expression: "request.operation != 'DELETE'"}}},
			PolicyInput{Request: map[string]any{"operation": "DELETE"}}, []Failure{{Message: "failed expression: request.operation != 'DELETE'", Reason: api.StatusReasonInvalid}}},
		{"an evaluation error", api.ValidatingAdmissionPolicySpec{Validations: []api.Validation{{Expression: "object.spec.missing > 1"}}},
			PolicyInput{Object: deployment(1)}, []Failure{{Message: "expression 'object.spec.missing > 1' resulted in error: no such key: missing", Error: true}}},
	}
	c := &Compiler{}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, errs := c.CompilePolicy(&tt.spec)
			require.Empty(t, errs)
			assert.Equal(t, tt.want, p.Validate(tt.in))
		})
	}
}

// TestPolicyMatches checks match conditions: all true matches, one false
// does not even when another errs, and an error alone is an error.
// Kubernetes: matchconditions' matcher_test.go.
func TestPolicyMatches(t *testing.T) {
	obj := map[string]any{"metadata": map[string]any{"name": "x"}}
	tests := []struct {
		name    string
		conds   []string
		want    bool
		wantErr string
	}{
		{"none", nil, true, ""},
		{"all true", []string{"true", "object.metadata.name == 'x'"}, true, ""},
		{"one false", []string{"true", "false"}, false, ""},
		{"false wins over an error", []string{"object.nope == 1", "false"}, false, ""},
		{"an error", []string{"true", "object.nope == 1"}, false, "matchCondition 'c1' resulted in error: no such key: nope"},
	}
	c := &Compiler{}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var mcs []api.MatchCondition
			for i, e := range tt.conds {
				mcs = append(mcs, api.MatchCondition{Name: "c" + string(rune('0'+i)), Expression: e})
			}
			p, errs := c.CompileMatchConditions(mcs, PolicyOptions{}, "spec.matchConditions")
			require.Empty(t, errs)
			got, err := p.Matches(PolicyInput{Object: obj})
			assert.Equal(t, tt.want, got)
			if tt.wantErr != "" {
				assert.EqualError(t, err, tt.wantErr)
			} else {
				assert.NoError(t, err)
			}
		})
	}
}

// TestValueNumbers checks that integers become int64, as in unstructured objects.
func TestValueNumbers(t *testing.T) {
	v, err := Value(&api.ConfigMap{Metadata: api.ObjectMeta{Name: "a", Generation: 3}})
	require.NoError(t, err)
	assert.Equal(t, int64(3), v.(map[string]any)["metadata"].(map[string]any)["generation"])
	v, err = Value((*api.ConfigMap)(nil))
	require.NoError(t, err)
	assert.Nil(t, v)
}
