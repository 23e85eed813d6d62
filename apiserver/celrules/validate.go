package celrules

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/api/apierrors"
)

// Validate evaluates every rule against obj, a custom resource as decoded
// JSON with apiVersion, kind and metadata (name and generateName are what a
// rule sees of it), and on update against old, the stored object (nil on
// create): a transition rule (one that reads oldSelf) runs only where an old
// value can be matched to the new one, unless it sets optionalOldSelf. Rules
// stop when the runtime budget is spent. The errors are kube-apiserver's: a
// rule failing on spec is
//
//	spec: Invalid value: "object": <message>
//
// and on the object itself the field is "<nil>". Kubernetes: Validator.Validate.
func (v *Validator) Validate(obj, old map[string]any) apierrors.FieldErrors {
	errs, _ := v.validate(obj, old, RuntimeCostBudget)
	return errs
}

// validate is Validate within budget; it returns what is left of it
// (below zero when it ran out).
func (v *Validator) validate(obj, old map[string]any, budget int64) (apierrors.FieldErrors, int64) {
	if v == nil {
		return nil, budget
	}
	var oldVal any
	if old != nil {
		oldVal = old
	}
	r := run{budget: budget}
	r.node(v.root, "", obj, oldVal)
	return r.errs, r.budget
}

// run is one Validate call's state.
type run struct {
	errs   apierrors.FieldErrors
	budget int64 // what is left; below zero, no more rules run
}

func child(p, name string) string {
	if p == "" {
		return name
	}
	return p + "." + name
}

func nilPath(p string) string {
	if p == "" {
		return "<nil>"
	}
	return p
}

// node validates value x (old its matched old value, or nil) at path p.
func (r *run) node(n *node, p string, x, old any) {
	if n == nil || x == nil || r.budget < 0 {
		return
	}
	r.rules(n, p, x, old)
	switch x := x.(type) {
	case map[string]any:
		oldMap, _ := old.(map[string]any)
		if !mapCorrelatable(n.t.schema) {
			oldMap = nil
		}
		if n.values != nil {
			for _, k := range sortedKeys(x) {
				r.node(n.values, p+"["+k+"]", x[k], oldMap[k])
			}
		}
		for _, k := range sortedKeys(x) {
			if c := n.props[k]; c != nil {
				r.node(c, child(p, k), x[k], oldMap[k])
			}
		}
	case []any:
		if n.items == nil {
			return
		}
		oldList, _ := old.([]any)
		match := matcher(n.t, oldList)
		for i, e := range x {
			r.node(n.items, p+"["+strconv.Itoa(i)+"]", e, match(e))
		}
	}
}

// matcher returns the function that finds an item's old value: by its keys
// in a list-type map, never in any other list.
func matcher(t *declType, old []any) func(any) any {
	if t.schema.XListType == nil || *t.schema.XListType != "map" || len(old) == 0 {
		return func(any) any { return nil }
	}
	l := &listVal{t: t}
	byKey := make(map[string]any, len(old))
	for _, e := range old {
		byKey[l.key(e)] = e
	}
	return func(e any) any { return byKey[l.key(e)] }
}

// typeName is the bad value of a rule's error: the schema's type.
func typeName(t *declType) string { return t.schema.Type }

// rules runs n's rules on x.
func (r *run) rules(n *node, p string, x, old any) {
	if len(n.rules) == 0 {
		return
	}
	fp := nilPath(p)
	bad := typeName(n.t)
	if r.budget <= 0 {
		r.errs = append(r.errs, invalid(fp, bad, "validation failed due to running out of cost budget, no further validation rules will be run"))
		r.budget = -1
		return
	}
	self := toVal(x, n.t)
	vars := map[string]any{selfVar: self}
	optVars := map[string]any{selfVar: self, oldSelfVar: types.OptionalNone}
	if old != nil {
		oldSelf := toVal(old, n.t)
		vars[oldSelfVar] = oldSelf
		optVars[oldSelfVar] = types.OptionalOf(oldSelf)
	}
	for i := range n.rules {
		cr := &n.rules[i]
		if cr.usesOldSelf && old == nil && !cr.optionalOldSelf() {
			continue
		}
		act := vars
		if cr.optionalOldSelf() {
			act = optVars
		}
		out, det, err := cr.prog.Eval(act)
		if !r.charge(det, fp, bad) {
			return
		}
		if err != nil {
			msg := err.Error()
			switch {
			case strings.HasPrefix(msg, "no such overload"):
				r.errs = append(r.errs, invalid(fp, bad, fmt.Sprintf("'%v': call arguments did not match a supported operator, function or macro signature for rule: %v", msg, ruleString(cr.src))))
			case strings.HasPrefix(msg, "operation cancelled: actual cost limit exceeded"):
				r.errs = append(r.errs, invalid(fp, bad, fmt.Sprintf("'%v': no further validation rules will be run due to call cost exceeds limit for rule: %v", msg, ruleString(cr.src))))
				r.budget = -1
				return
			default:
				r.errs = append(r.errs, invalid(fp, bad, fmt.Sprintf("%v evaluating rule: %v", msg, ruleString(cr.src))))
			}
			continue
		}
		if out == types.True {
			continue
		}
		ep := fp
		if cr.fieldPath != "" {
			ep = child(p, cr.fieldPath)
		}
		msg := ruleMessage(cr.src)
		if cr.msg != nil {
			m, stop := r.message(cr, act)
			if stop != "" {
				r.errs = append(r.errs, invalid(ep, bad, stop))
				r.budget = -1
				return
			}
			if m != "" {
				msg = m
			}
		}
		r.errs = append(r.errs, reasonError(cr.src.Reason, ep, bad, msg))
	}
}

// charge takes an evaluation's cost from the budget; false when it is spent
// (the error says so).
func (r *run) charge(det *cel.EvalDetails, fp, bad string) bool {
	var cost *uint64
	if det != nil {
		cost = det.ActualCost()
	}
	if cost == nil {
		r.errs = append(r.errs, apierrors.FieldError{Type: api.CauseTypeInternal, Field: fp, Detail: "runtime cost could not be calculated for validation rule, no further validation rules will be run"})
		r.budget = -1
		return false
	}
	if *cost > math.MaxInt64 || int64(*cost) > r.budget {
		r.errs = append(r.errs, invalid(fp, bad, "validation failed due to running out of cost budget, no further validation rules will be run"))
		r.budget = -1
		return false
	}
	r.budget -= int64(*cost)
	return true
}

// message evaluates a rule's messageExpression: the message, or "" to use the
// rule's message; or, when the budget is spent, why no rule runs further.
// Kubernetes: evalMessageExpression.
func (r *run) message(cr *compiledRule, act map[string]any) (msg, stop string) {
	out, det, err := cr.msg.Eval(act)
	var cost *uint64
	if det != nil {
		cost = det.ActualCost()
	}
	if cost == nil || *cost > math.MaxInt64 || int64(*cost) > r.budget {
		return "", "messageExpression evaluation failed due to running out of cost budget, no further validation rules will be run"
	}
	if err != nil {
		if strings.HasPrefix(err.Error(), "operation cancelled: actual cost limit exceeded") {
			return "", fmt.Sprintf("no further validation rules will be run due to call cost exceeds limit for messageExpression: %q", cr.src.MessageExpression)
		}
		r.budget -= int64(*cost)
		return "", ""
	}
	r.budget -= int64(*cost)
	s, ok := out.Value().(string)
	s = strings.TrimSpace(s)
	if !ok || s == "" || len(s) > maxMessageExpressionBytes || strings.Contains(s, "\n") {
		return "", "" // Kubernetes logs why and falls back to the message
	}
	return s, ""
}

func reasonError(reason *string, p, bad, msg string) apierrors.FieldError {
	if reason == nil {
		return invalid(p, bad, msg)
	}
	switch *reason {
	case "FieldValueForbidden":
		return forbidden(p, msg)
	case "FieldValueRequired":
		return required(p, msg)
	case "FieldValueDuplicate":
		return apierrors.FieldError{Type: api.CauseTypeFieldValueDuplicate, Field: p, BadValue: bad}
	}
	return invalid(p, bad, msg)
}

// ruleMessage is the error of a failed rule without messageExpression.
func ruleMessage(r api.ValidationRule) string {
	if r.Message == "" {
		return "failed rule: " + ruleString(r)
	}
	return strings.TrimSpace(r.Message)
}

func ruleString(r api.ValidationRule) string {
	if r.Message != "" {
		return strings.TrimSpace(r.Message)
	}
	return strings.TrimSpace(r.Rule)
}

// normalizeFieldPath checks a rule's fieldPath (".spec.x", ".m['key']")
// against the schema it is relative to and returns it as a field path
// ("spec.x", "m[key]"). Kubernetes: ValidFieldPath.
func normalizeFieldPath(path string, s *api.JSONSchemaProps) (string, error) {
	var out string
	rest := path
	step := func(name string) error {
		switch {
		case s.Properties != nil:
			ps, ok := s.Properties[name]
			if !ok {
				return errors.New("does not refer to a valid field")
			}
			out = child(out, name)
			s = &ps
		case s.AdditionalProperties != nil:
			out += "[" + name + "]"
			s = s.AdditionalProperties.Schema
			if s == nil {
				s = &api.JSONSchemaProps{}
			}
		default:
			return errors.New("does not refer to a valid field")
		}
		return nil
	}
	for rest != "" {
		switch rest[0] {
		case '.':
			rest = rest[1:]
			end := strings.IndexAny(rest, ".[]")
			if end < 0 {
				end = len(rest)
			}
			name := rest[:end]
			rest = rest[end:]
			if name == "" {
				return "", errors.New("unexpected end of JSON path")
			}
			if err := step(name); err != nil {
				return "", err
			}
		case '[':
			rest = rest[1:]
			if len(rest) < 2 || rest[0] != '\'' {
				return "", fmt.Errorf("expected single quoted string but got %s", rest)
			}
			end := 1
			for end < len(rest) && !(rest[end] == '\'' && rest[end-1] != '\\') {
				end++
			}
			if end >= len(rest) {
				return "", errors.New("unexpected end of JSON path")
			}
			name, err := unescapeQuoted(rest[1:end])
			if err != nil {
				return "", err
			}
			rest = rest[end+1:]
			if !strings.HasPrefix(rest, "]") {
				return "", errors.New("expected ]")
			}
			rest = rest[1:]
			if err := step(name); err != nil {
				return "", err
			}
		default:
			return "", fmt.Errorf("expected [ or . but got: %s", rest)
		}
	}
	return out, nil
}

// unescapeQuoted undoes the escapes of a single-quoted path segment.
func unescapeQuoted(s string) (string, error) {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' {
			b.WriteByte(s[i])
			continue
		}
		i++
		if i >= len(s) {
			return "", errors.New("invalid escape")
		}
		switch s[i] {
		case 'a':
			b.WriteByte('\a')
		case 'b':
			b.WriteByte('\b')
		case 'f':
			b.WriteByte('\f')
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 't':
			b.WriteByte('\t')
		case 'v':
			b.WriteByte('\v')
		case '\'', '\\':
			b.WriteByte(s[i])
		default:
			return "", fmt.Errorf("invalid escape char \\%c", s[i])
		}
	}
	return b.String(), nil
}
