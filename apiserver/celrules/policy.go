package celrules

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strings"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/api/apierrors"
)

// The variables of an admission expression. Kubernetes:
// k8s.io/apiserver/pkg/admission/plugin/cel (compile.go). object, oldObject,
// params, request and namespaceObject are dyn here (Kubernetes types request
// and namespaceObject; an expression naming a field they lack then fails at
// evaluation, not at compilation); authorizer is not declared.
const (
	objectVar    = "object"
	oldObjectVar = "oldObject"
	paramsVar    = "params"
	requestVar   = "request"
	namespaceVar = "namespaceObject"
	variablesVar = "variables"

	// variablesType is the object type of variables, one field per
	// variable, typed by its expression as Kubernetes types it.
	variablesType = "kubernetes.variables"
)

// Policy is a ValidatingAdmissionPolicy's (or a webhook's) expressions,
// compiled: its match conditions, variables and validations. It is
// immutable and safe for concurrent use.
type Policy struct {
	conditions  []namedProgram
	variables   []namedProgram
	validations []policyValidation
	varType     *types.Type
}

type namedProgram struct {
	name, expr string
	prog       cel.Program
}

type policyValidation struct {
	src api.Validation
	// prog is the expression; msg its messageExpression, or nil.
	prog, msg cel.Program
}

// PolicyInput is what a policy's expressions read: the request's object and
// old object, the parameters, the request and the namespace, each a JSON
// value (map[string]any from Value, or nil when absent).
type PolicyInput struct {
	Object, OldObject, Params, Request, Namespace any
}

// Value returns v, a Go object of the api package or already a JSON value,
// as the JSON value Kubernetes' unstructured objects hold: integers int64,
// other numbers float64.
func Value(v any) (any, error) {
	if v == nil || reflect.ValueOf(v).Kind() == reflect.Pointer && reflect.ValueOf(v).IsNil() {
		return nil, nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var out any
	if err := d.Decode(&out); err != nil {
		return nil, err
	}
	return numbers(out), nil
}

func numbers(v any) any {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			x[k] = numbers(e)
		}
	case []any:
		for i, e := range x {
			x[i] = numbers(e)
		}
	case json.Number:
		if i, err := x.Int64(); err == nil {
			return i
		}
		f, _ := x.Float64()
		return f
	}
	return v
}

// PolicyOptions are what a policy's environment declares beyond object,
// oldObject, request and namespaceObject.
type PolicyOptions struct {
	// HasParams declares params (the policy has a paramKind).
	HasParams bool
}

// CompilePolicy compiles a policy's match conditions, variables and
// validations (spec.matchConditions, spec.variables, spec.validations), and
// returns it with the errors that refuse the policy, at kube-apiserver's
// field paths under spec: "compilation failed: …" and "must evaluate to bool
// but got …". A variable is typed by its expression and readable by the
// variables after it, as variables.NAME. Kubernetes: the CEL parts of
// validateValidatingAdmissionPolicySpec.
func (c *Compiler) CompilePolicy(spec *api.ValidatingAdmissionPolicySpec) (*Policy, apierrors.FieldErrors) {
	p := &Policy{}
	opts := PolicyOptions{HasParams: spec.ParamKind != nil}
	var errs apierrors.FieldErrors
	conds, cerrs := c.CompileMatchConditions(spec.MatchConditions, opts, "spec.matchConditions")
	p.conditions, errs = conds.conditions, append(errs, cerrs...)
	fields := map[string]*types.Type{}
	composed := len(spec.Variables) > 0
	for i, v := range spec.Variables {
		if strings.TrimSpace(v.Expression) == "" || v.Name == "" {
			continue // the field rules say so
		}
		env, err := c.policyEnv(opts, composed, fields)
		if err != nil {
			return nil, append(errs, internalError("spec.variables", err))
		}
		ast, detail := compileExpr(env, v.Expression, nil)
		if detail != "" {
			errs = append(errs, invalid(fmt.Sprintf("spec.variables[%d].expression", i), v.Expression, detail))
			fields[v.Name] = types.DynType // later expressions may still name it
		} else {
			prog, err := env.Program(ast, policyProgramOptions(c)...)
			if err != nil {
				return nil, append(errs, internalError("spec.variables", err))
			}
			fields[v.Name] = ast.OutputType()
			p.variables = append(p.variables, namedProgram{name: v.Name, expr: v.Expression, prog: prog})
		}
	}
	env, err := c.policyEnv(opts, composed, fields)
	if err != nil {
		return nil, append(errs, internalError("spec", err))
	}
	if composed {
		p.varType = types.NewObjectType(variablesType)
	}
	for i, v := range spec.Validations {
		pv := policyValidation{src: v}
		at := fmt.Sprintf("spec.validations[%d]", i)
		if strings.TrimSpace(v.Expression) != "" {
			ast, detail := compileExpr(env, v.Expression, cel.BoolType)
			if detail != "" {
				errs = append(errs, invalid(at+".expression", v.Expression, detail))
			} else if pv.prog, err = env.Program(ast, policyProgramOptions(c)...); err != nil {
				return nil, append(errs, internalError(at, err))
			}
		}
		if strings.TrimSpace(v.MessageExpression) != "" {
			ast, detail := compileExpr(env, v.MessageExpression, cel.StringType)
			if detail != "" {
				errs = append(errs, invalid(at+".messageExpression", v.MessageExpression, detail))
			} else if pv.msg, err = env.Program(ast, policyProgramOptions(c)...); err != nil {
				return nil, append(errs, internalError(at, err))
			}
		}
		p.validations = append(p.validations, pv)
	}
	return p, errs
}

// CompileMatchConditions compiles the match conditions of a webhook (or a
// policy), at path ("webhooks[0].matchConditions"), into a Policy that only
// matches.
func (c *Compiler) CompileMatchConditions(conds []api.MatchCondition, opts PolicyOptions, path string) (*Policy, apierrors.FieldErrors) {
	p := &Policy{}
	if len(conds) == 0 {
		return p, nil
	}
	env, err := c.policyEnv(opts, false, nil)
	if err != nil {
		return nil, apierrors.FieldErrors{internalError(path, err)}
	}
	var errs apierrors.FieldErrors
	for i, mc := range conds {
		if strings.TrimSpace(mc.Expression) == "" {
			continue
		}
		ast, detail := compileExpr(env, strings.TrimSpace(mc.Expression), cel.BoolType)
		if detail != "" {
			errs = append(errs, invalid(fmt.Sprintf("%s[%d].expression", path, i), strings.TrimSpace(mc.Expression), detail))
			continue
		}
		prog, err := env.Program(ast, policyProgramOptions(c)...)
		if err != nil {
			return nil, append(errs, internalError(path, err))
		}
		p.conditions = append(p.conditions, namedProgram{name: mc.Name, expr: mc.Expression, prog: prog})
	}
	return p, errs
}

func internalError(p string, err error) apierrors.FieldError {
	return apierrors.FieldError{Type: api.CauseTypeInternal, Field: p, Detail: err.Error()}
}

// compileExpr compiles expr and checks its type (any when want is nil): the
// detail of Kubernetes' error, or "".
func compileExpr(env *cel.Env, expr string, want *cel.Type) (*cel.Ast, string) {
	ast, iss := env.Compile(expr)
	if iss != nil && iss.Err() != nil {
		return nil, "compilation failed: " + iss.String()
	}
	if want != nil && !ast.OutputType().IsExactType(want) {
		return nil, fmt.Sprintf("must evaluate to %v but got %v", want, ast.OutputType())
	}
	return ast, ""
}

// policyEnv is the base environment with an admission expression's
// variables; variables is declared when composed (the policy has
// variables), with fields the variables compiled so far.
func (c *Compiler) policyEnv(opts PolicyOptions, composed bool, fields map[string]*types.Type) (*cel.Env, error) {
	base, err := c.baseEnv()
	if err != nil {
		return nil, err
	}
	decls := []cel.EnvOption{
		cel.Variable(objectVar, cel.DynType), cel.Variable(oldObjectVar, cel.DynType),
		cel.Variable(requestVar, cel.DynType), cel.Variable(namespaceVar, cel.DynType),
	}
	if opts.HasParams {
		decls = append(decls, cel.Variable(paramsVar, cel.DynType))
	}
	if composed {
		decls = append(decls, cel.CustomTypeProvider(&varsProvider{Provider: base.CELTypeProvider(), fields: fields}),
			cel.Variable(variablesVar, types.NewObjectType(variablesType)))
	}
	return base.Extend(decls...)
}

func policyProgramOptions(c *Compiler) []cel.ProgramOption {
	k := compilation{c: c}
	return k.programOptions()
}

// varsProvider adds the variables object type to the base provider.
type varsProvider struct {
	types.Provider
	fields map[string]*types.Type
}

func (p *varsProvider) FindStructType(name string) (*types.Type, bool) {
	if name == variablesType {
		return types.NewTypeTypeWithParam(types.NewObjectType(variablesType)), true
	}
	return p.Provider.FindStructType(name)
}

func (p *varsProvider) FindStructFieldNames(name string) ([]string, bool) {
	if name != variablesType {
		return p.Provider.FindStructFieldNames(name)
	}
	return sortedKeysOf(p.fields), true
}

func (p *varsProvider) FindStructFieldType(name, field string) (*types.FieldType, bool) {
	if name != variablesType {
		return p.Provider.FindStructFieldType(name, field)
	}
	t, ok := p.fields[field]
	if !ok {
		return nil, false
	}
	return &types.FieldType{Type: t}, true
}

func sortedKeysOf(m map[string]*types.Type) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// evaluation is one input's activation, with its variables evaluated
// lazily, at most once each, and the runtime budget left.
type evaluation struct {
	p      *Policy
	vars   map[string]any
	values map[string]ref.Val // the variables evaluated so far
	budget int64
}

// ErrBudget says the runtime cost budget of a request is spent.
var ErrBudget = errors.New("validation failed due to running out of cost budget, no further validation rules will be run")

func (p *Policy) newEvaluation(in PolicyInput) *evaluation {
	e := &evaluation{p: p, budget: RuntimeCostBudget, values: map[string]ref.Val{}}
	e.vars = map[string]any{
		objectVar: orNull(in.Object), oldObjectVar: orNull(in.OldObject), paramsVar: orNull(in.Params),
		requestVar: orNull(in.Request), namespaceVar: orNull(in.Namespace),
	}
	if p.varType != nil {
		e.vars[variablesVar] = &lazyVariables{e: e}
	}
	return e
}

func orNull(v any) any {
	if v == nil {
		return types.NullValue
	}
	return v
}

// eval runs one program against the activation, charging its cost.
func (e *evaluation) eval(prog cel.Program) (ref.Val, error) {
	out, det, err := prog.Eval(e.vars)
	if det != nil && det.ActualCost() != nil {
		cost := *det.ActualCost()
		if cost > math.MaxInt64 || int64(cost) > e.budget {
			e.budget = -1
			return nil, ErrBudget
		}
		e.budget -= int64(cost)
	}
	return out, err
}

// Matches evaluates the match conditions, in order: false at the first
// false one; an error (kube-apiserver's message) when none is false and one
// failed to evaluate. Kubernetes: matchconditions.Matcher.Match.
func (p *Policy) Matches(in PolicyInput) (bool, error) {
	e := p.newEvaluation(in)
	var firstErr error
	for _, c := range p.conditions {
		out, err := e.eval(c.prog)
		if err != nil {
			if firstErr == nil {
				firstErr = fmt.Errorf("matchCondition '%s' resulted in error: %v", c.name, err)
			}
			continue
		}
		if out == types.False {
			return false, nil
		}
	}
	return firstErr == nil, firstErr
}

// Failure is a validation that did not pass: its message and reason, or
// an evaluation error (Error set: the failure policy decides).
type Failure struct {
	Message string
	Reason  api.StatusReason
	Error   bool
}

// Validate evaluates the validations and returns those that failed, in
// order, with kube-apiserver's messages: the messageExpression's result,
// else the message, else "failed expression: EXPR"; an evaluation error is
// "expression 'EXPR' resulted in error: …". The reason defaults to Invalid.
// Kubernetes: validating.validator.Validate.
func (p *Policy) Validate(in PolicyInput) []Failure {
	e := p.newEvaluation(in)
	var out []Failure
	for _, v := range p.validations {
		if v.prog == nil {
			continue
		}
		res, err := e.eval(v.prog)
		switch {
		case errors.Is(err, ErrBudget):
			return append(out, Failure{Message: err.Error(), Error: true})
		case err != nil:
			out = append(out, Failure{Message: fmt.Sprintf("expression '%v' resulted in error: %v", v.src.Expression, err), Error: true})
			continue
		case res == types.True:
			continue
		}
		f := Failure{Reason: api.StatusReasonInvalid}
		if v.src.Reason != nil {
			f.Reason = *v.src.Reason
		}
		if v.msg != nil {
			if m, err := e.eval(v.msg); err == nil {
				if s, ok := m.Value().(string); ok {
					s = strings.TrimSpace(s)
					if len(s) <= maxMessageExpressionBytes && !strings.Contains(s, "\n") {
						f.Message = s
					}
				}
			}
		}
		if f.Message == "" {
			f.Message = strings.TrimSpace(v.src.Message)
		}
		if f.Message == "" {
			f.Message = "failed expression: " + strings.TrimSpace(v.src.Expression)
		}
		out = append(out, f)
	}
	return out
}

// lazyVariables is the value of variables: each field is its variable's
// expression, evaluated on first read. Kubernetes: compositionContext.
type lazyVariables struct {
	e *evaluation
}

func (v *lazyVariables) Get(key ref.Val) ref.Val {
	name, ok := key.Value().(string)
	if !ok {
		return types.NewErr("no such key: %v", key)
	}
	if val, ok := v.e.values[name]; ok {
		return val
	}
	for _, np := range v.e.p.variables {
		if np.name != name {
			continue
		}
		out, err := v.e.eval(np.prog)
		if err != nil {
			out = types.WrapErr(err)
		}
		v.e.values[name] = out
		return out
	}
	return types.NewErr("no such key: %v", name)
}

func (v *lazyVariables) IsSet(field ref.Val) ref.Val {
	name, _ := field.Value().(string)
	for _, np := range v.e.p.variables {
		if np.name == name {
			return types.True
		}
	}
	return types.False
}

func (v *lazyVariables) ConvertToNative(reflect.Type) (any, error) {
	return nil, errors.New("variables cannot be converted")
}
func (v *lazyVariables) ConvertToType(t ref.Type) ref.Val {
	return types.NewErr("variables cannot be converted to %v", t)
}
func (v *lazyVariables) Equal(other ref.Val) ref.Val { return types.Bool(v == other) }
func (v *lazyVariables) Type() ref.Type              { return types.NewObjectType(variablesType) }
func (v *lazyVariables) Value() any                  { return v }
