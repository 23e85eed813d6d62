package celrules

import (
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/checker"
	"github.com/google/cel-go/interpreter"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/api/apierrors"
)

// Cost limits, in CEL's cost units. Kubernetes: k8s.io/apiserver/pkg/apis/cel
// config.go (PerCallLimit, RuntimeCELCostBudget) and apiextensions
// validation.go (StaticEstimatedCostLimit, StaticEstimatedCRDCostLimit).
const (
	// PerCallLimit bounds one rule's evaluation.
	PerCallLimit = 1000000
	// RuntimeCostBudget bounds all the rules evaluated for one write.
	RuntimeCostBudget = 10000000
	// StaticEstimatedCostLimit bounds one rule's estimated cost, times the
	// number of times it can run in one object.
	StaticEstimatedCostLimit = 10000000
	// StaticEstimatedCRDCostLimit bounds the estimated costs of all of a
	// schema's rules together.
	StaticEstimatedCRDCostLimit = 100000000

	maxMessageExpressionBytes = 5 * 1024
)

// Variable names of a rule.
const (
	selfVar    = "self"
	oldSelfVar = "oldSelf"
)

// Compiler compiles schemas' rules. Its base environment is built on first
// use and shared by every schema it compiles; it is safe for concurrent use.
type Compiler struct {
	// PerCallLimit overrides the per-rule runtime cost limit when not zero
	// (tests lower it).
	PerCallLimit uint64
	// noStaticCost skips the estimated cost limits, as Kubernetes' own
	// validator tests do (tests set it).
	noStaticCost bool

	once sync.Once
	base *cel.Env // nil when building it failed, with err saying why
	err  error

	// mu guards recent: the last schemas compiled, by their JSON, so
	// that a definition's validation, its kind's registration and its
	// status update compile its rules once. Validators are immutable.
	mu     sync.Mutex
	recent map[string]compiled
}

// compiled is one Compile's result.
type compiled struct {
	v    *Validator
	errs apierrors.FieldErrors
}

// maxRecent bounds the compiled schemas kept.
const maxRecent = 32

func (c *Compiler) baseEnv() (*cel.Env, error) {
	c.once.Do(func() {
		opts := append(envOptions(), cel.CostEstimatorOptions(checker.PresenceTestHasCost(false)))
		c.base, c.err = cel.NewEnv(opts...)
	})
	return c.base, c.err
}

func (c *Compiler) perCallLimit() uint64 {
	if c.PerCallLimit != 0 {
		return c.PerCallLimit
	}
	return PerCallLimit
}

// Validator holds a schema's compiled rules, one node per schema node that
// has rules or a descendant with some. A nil Validator has no rules.
type Validator struct {
	root *node
}

// node is one schema node's rules and the nodes under it.
type node struct {
	t      *declType
	rules  []compiledRule
	props  map[string]*node // by JSON name
	items  *node
	values *node // additionalProperties
}

// compiledRule is one x-kubernetes-validations entry, ready to run.
type compiledRule struct {
	src         api.ValidationRule
	prog        cel.Program
	msg         cel.Program // nil without messageExpression
	usesOldSelf bool
	// maxCost is the rule's estimated cost, once.
	maxCost uint64
	// fieldPath is src.FieldPath normalized ("spec.x[key]"), or "".
	fieldPath string
}

func (r *compiledRule) optionalOldSelf() bool {
	return r.src.OptionalOldSelf != nil && *r.src.OptionalOldSelf
}

// compilation is one Compile call's state.
type compilation struct {
	c        *Compiler
	env      *cel.Env // the base environment
	provider *provider
	objects  map[string]*declType
	errs     apierrors.FieldErrors
	total    uint64
	// expensive are the costliest rules' paths (at most 4, above 1% of the
	// CRD limit), named when the total is over it.
	expensive []ruleCost
}

type ruleCost struct {
	path string
	cost uint64
}

// Compile compiles every rule of root, the schema of a custom resource, and
// returns its Validator (nil when it has no rules), or the errors that refuse
// the definition, at field paths under path
// ("spec.validation.openAPIV3Schema"): rules malformed, not compiling, not
// boolean, using oldSelf where no old value can be matched, or over the cost
// limits. Kubernetes: the x-kubernetes-validations part of
// ValidateCustomResourceDefinitionOpenAPISchema, and cel.Compile.
func (c *Compiler) Compile(root *api.JSONSchemaProps, path string) (*Validator, apierrors.FieldErrors) {
	if !hasRules(root) {
		return nil, nil
	}
	b, err := json.Marshal(root)
	if err != nil {
		return c.compile(root, path)
	}
	key := string(b)
	c.mu.Lock()
	r, ok := c.recent[key]
	c.mu.Unlock()
	if !ok {
		r.v, r.errs = c.compile(root, rootMark)
		c.mu.Lock()
		if len(c.recent) >= maxRecent || c.recent == nil {
			c.recent = map[string]compiled{}
		}
		c.recent[key] = r
		c.mu.Unlock()
	}
	return r.v, atPath(r.errs, path)
}

// rootMark stands for the schema's path in the errors kept, which are
// shared by every path the schema is compiled at.
const rootMark = "\x00"

// atPath returns errs with rootMark replaced by path.
func atPath(errs apierrors.FieldErrors, path string) apierrors.FieldErrors {
	if len(errs) == 0 {
		return nil
	}
	out := make(apierrors.FieldErrors, len(errs))
	for i, e := range errs {
		e.Field = strings.ReplaceAll(e.Field, rootMark, path)
		e.Detail = strings.ReplaceAll(e.Detail, rootMark, path)
		out[i] = e
	}
	return out
}

func (c *Compiler) compile(root *api.JSONSchemaProps, path string) (*Validator, apierrors.FieldErrors) {
	if errs := checkRuleShapes(nil, root, path); len(errs) > 0 {
		return nil, errs
	}
	base, err := c.baseEnv()
	if err != nil {
		return nil, apierrors.FieldErrors{{Type: api.CauseTypeInternal, Field: path, Detail: err.Error()}}
	}
	objects := map[string]*declType{}
	rootType := declTypeOf(root, "selfType", true, objects)
	prov := &provider{Provider: base.CELTypeProvider(), objects: objects}
	k := &compilation{c: c, env: base, provider: prov, objects: objects}
	one := uint64(1)
	n := k.node(root, rootType, path, &one, "")
	if k.total > StaticEstimatedCRDCostLimit {
		for _, e := range k.expensive {
			k.errs = append(k.errs, forbidden(e.path, "contributed to estimated rule cost total exceeding cost limit for entire OpenAPIv3 schema"))
		}
		k.errs = append(k.errs, forbidden(path, costMessage("x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema", k.total, StaticEstimatedCRDCostLimit)))
	}
	if len(k.errs) > 0 {
		return nil, k.errs
	}
	if n == nil {
		return nil, nil
	}
	return &Validator{root: n}, nil
}

// node compiles the rules of schema s, of type t, at path p and under it.
// cardinality is how many times s's value can occur in one object, nil when
// unbounded; uncorrelatable is the path under which oldSelf cannot be used,
// or "".
func (k *compilation) node(s *api.JSONSchemaProps, t *declType, p string, cardinality *uint64, uncorrelatable string) *node {
	n := &node{t: t}
	if len(s.XValidations) > 0 {
		if t == nil {
			k.errs = append(k.errs, apierrors.FieldError{Type: api.CauseTypeInternal, Field: p + ".x-kubernetes-validations",
				Detail: "internal error: failed to retrieve type information for x-kubernetes-validations"})
		} else {
			n.rules = k.rules(s, t, p, cardinality, uncorrelatable)
		}
	}
	childCard := func(maxElements *int64) *uint64 {
		if cardinality == nil || maxElements == nil {
			return nil
		}
		c := mulGuard(*cardinality, uint64(max0(*maxElements)))
		return &c
	}
	one := int64(1)
	if !mapCorrelatable(s) && uncorrelatable == "" {
		uncorrelatable = p
	}
	for _, name := range sortedProps(s) {
		ps := s.Properties[name]
		if !hasRules(&ps) {
			continue
		}
		var ft *declType
		if t != nil && t.kind == objectKind {
			if esc, ok := escape(name); ok && t.fields[esc] != nil {
				ft = t.fields[esc].t
			}
		}
		if ft == nil {
			continue // a field CEL cannot see: its rules are not run, as in Kubernetes
		}
		if c := k.node(&ps, ft, p+".properties["+name+"]", childCard(&one), uncorrelatable); c != nil {
			if n.props == nil {
				n.props = map[string]*node{}
			}
			n.props[name] = c
		}
	}
	if items := s.ItemSchema(); items != nil && hasRules(items) && t != nil && t.elem != nil {
		u := uncorrelatable
		if u == "" && (s.XListType == nil || *s.XListType != "map") {
			u = p
		}
		n.items = k.node(items, t.elem, p+".items", childCard(s.MaxItems), u)
	}
	if ap := s.AdditionalProperties; ap != nil && ap.Schema != nil && hasRules(ap.Schema) && t != nil && t.elem != nil {
		n.values = k.node(ap.Schema, t.elem, p+".additionalProperties", childCard(s.MaxProperties), uncorrelatable)
	}
	if n.rules == nil && n.props == nil && n.items == nil && n.values == nil {
		return nil
	}
	return n
}

// rules compiles the rules of one node.
func (k *compilation) rules(s *api.JSONSchemaProps, t *declType, p string, cardinality *uint64, uncorrelatable string) []compiledRule {
	// One environment per node and kind of oldSelf: extending one costs
	// more than compiling a rule in it.
	envs := map[bool]*cel.Env{}
	envFor := func(optional bool) (*cel.Env, error) {
		if e := envs[optional]; e != nil {
			return e, nil
		}
		old := t.cel
		if optional {
			old = cel.OptionalType(t.cel)
		}
		e, err := k.env.Extend(cel.CustomTypeProvider(k.provider), cel.Variable(selfVar, t.cel), cel.Variable(oldSelfVar, old))
		envs[optional] = e
		return e, err
	}
	est := &estimator{root: t}
	card := uint64(maxRequestSizeBytes / (t.minSize + 1))
	if cardinality != nil {
		card = *cardinality
	}
	out := make([]compiledRule, 0, len(s.XValidations))
	for i, r := range s.XValidations {
		rp := fmt.Sprintf("%s.x-kubernetes-validations[%d]", p, i)
		e, err := envFor(r.OptionalOldSelf != nil && *r.OptionalOldSelf)
		if err != nil {
			k.errs = append(k.errs, apierrors.FieldError{Type: api.CauseTypeInternal, Field: p + ".x-kubernetes-validations", Detail: err.Error()})
			return nil
		}
		cr, ok := k.rule(e, est, s, r, rp, card)
		if !ok {
			continue
		}
		if cr.usesOldSelf && uncorrelatable != "" {
			k.errs = append(k.errs, invalid(rp+".rule", r.Rule, "oldSelf cannot be used on the uncorrelatable portion of the schema within "+uncorrelatable))
		} else if !cr.usesOldSelf && r.OptionalOldSelf != nil {
			k.errs = append(k.errs, invalid(rp+".optionalOldSelf", *r.OptionalOldSelf, "may not be set if oldSelf is not used in rule"))
		}
		out = append(out, cr)
	}
	return out
}

// rule compiles one rule and its message expression, and weighs their
// estimated costs; false when it cannot run.
func (k *compilation) rule(env *cel.Env, est *estimator, s *api.JSONSchemaProps, r api.ValidationRule, rp string, card uint64) (compiledRule, bool) {
	cr := compiledRule{src: r}
	bad := ruleValue(r)
	ast, iss := env.Compile(r.Rule)
	switch {
	case iss != nil && iss.Err() != nil:
		k.errs = append(k.errs, invalid(rp+".rule", bad, "compilation failed: "+iss.String()))
		return cr, false
	case ast.OutputType() != cel.BoolType:
		k.errs = append(k.errs, invalid(rp+".rule", bad, "cel expression must evaluate to a bool"))
		return cr, false
	}
	for _, ref := range ast.NativeRep().ReferenceMap() {
		if ref.Name == oldSelfVar {
			cr.usesOldSelf = true
		}
	}
	prog, err := env.Program(ast, k.programOptions()...)
	if err != nil {
		k.errs = append(k.errs, invalid(rp+".rule", bad, "program instantiation failed: "+err.Error()))
		return cr, false
	}
	cr.prog = prog
	cost, err := env.EstimateCost(ast, est)
	if err != nil {
		k.errs = append(k.errs, apierrors.FieldError{Type: api.CauseTypeInternal, Field: rp + ".rule", Detail: "cost estimation failed: " + err.Error()})
		return cr, false
	}
	cr.maxCost = cost.Max
	k.observe(rp+".rule", "estimated rule cost", mulGuard(cost.Max, card))
	if r.MessageExpression != "" {
		ast, iss := env.Compile(r.MessageExpression)
		switch {
		case iss != nil && iss.Err() != nil:
			k.errs = append(k.errs, invalid(rp+".messageExpression", bad, "messageExpression compilation failed: "+iss.String()))
			return cr, false
		case ast.OutputType() != cel.StringType:
			k.errs = append(k.errs, invalid(rp+".messageExpression", bad, "messageExpression must evaluate to a string"))
			return cr, false
		}
		msg, err := env.Program(ast, k.programOptions()...)
		if err != nil {
			k.errs = append(k.errs, invalid(rp+".messageExpression", bad, "messageExpression instantiation failed: "+err.Error()))
			return cr, false
		}
		cr.msg = msg
		cost, err := env.EstimateCost(ast, est)
		if err != nil {
			k.errs = append(k.errs, apierrors.FieldError{Type: api.CauseTypeInternal, Field: rp + ".messageExpression", Detail: "cost estimation failed for messageExpression: " + err.Error()})
			return cr, false
		}
		// Kubernetes weighs a message expression once, not per occurrence.
		k.observe(rp+".messageExpression", "estimated messageExpression cost", cost.Max)
	}
	if r.FieldPath != "" {
		cr.fieldPath, _ = normalizeFieldPath(r.FieldPath, s)
	}
	return cr, true
}

func (k *compilation) programOptions() []cel.ProgramOption {
	return []cel.ProgramOption{
		cel.EvalOptions(cel.OptOptimize, cel.OptTrackCost),
		cel.CostLimit(k.c.perCallLimit()),
		cel.CostTrackerOptions(interpreter.PresenceTestHasCost(false)),
		cel.CostTracking(runtimeCost{}),
	}
}

// observe counts one expression's cost against the limits.
func (k *compilation) observe(p, what string, cost uint64) {
	if k.c.noStaticCost {
		return
	}
	if cost > StaticEstimatedCostLimit {
		k.errs = append(k.errs, forbidden(p, costMessage(what, cost, StaticEstimatedCostLimit)))
	}
	if math.MaxUint64-k.total < cost {
		k.total = math.MaxUint64
	} else {
		k.total += cost
	}
	if cost < StaticEstimatedCRDCostLimit/100 {
		return
	}
	k.expensive = append(k.expensive, ruleCost{path: p, cost: cost})
	slices.SortStableFunc(k.expensive, func(a, b ruleCost) int {
		switch {
		case a.cost > b.cost:
			return -1
		case a.cost < b.cost:
			return 1
		}
		return 0
	})
	if len(k.expensive) > 4 {
		k.expensive = k.expensive[:4]
	}
}

// costMessage says by how much a cost is over its limit. Kubernetes:
// getCostErrorMessage.
func costMessage(what string, cost, limit uint64) string {
	f := float64(cost) / float64(limit)
	var factor string
	switch {
	case f > 100:
		factor = "more than 100x"
	case f < 1.5:
		factor = fmt.Sprintf("%fx", f)
	default:
		factor = fmt.Sprintf("%.1fx", f)
	}
	return fmt.Sprintf("%s exceeds budget by factor of %s (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)", what, factor)
}

func mulGuard(a, b uint64) uint64 {
	if a == 0 {
		return 0
	}
	if math.MaxUint64/a < b {
		return math.MaxUint64
	}
	return a * b
}

func mapCorrelatable(s *api.JSONSchemaProps) bool {
	return s.XMapType == nil || *s.XMapType == "granular" || *s.XMapType == "atomic"
}

// hasRules reports whether s or a schema under it has rules.
func hasRules(s *api.JSONSchemaProps) bool {
	if s == nil {
		return false
	}
	if len(s.XValidations) > 0 {
		return true
	}
	for _, ps := range s.Properties {
		if hasRules(&ps) {
			return true
		}
	}
	if ap := s.AdditionalProperties; ap != nil && hasRules(ap.Schema) {
		return true
	}
	return hasRules(s.ItemSchema())
}

var supportedReasons = []string{"FieldValueDuplicate", "FieldValueForbidden", "FieldValueInvalid", "FieldValueRequired"}

var newlines = regexp.MustCompile(`[\n\r]+`)

// checkRuleShapes checks what a rule must be before it is compiled: a rule,
// a one-line message, a known reason, a field path the schema has.
func checkRuleShapes(errs apierrors.FieldErrors, s *api.JSONSchemaProps, p string) apierrors.FieldErrors {
	for i, r := range s.XValidations {
		rp := fmt.Sprintf("%s.x-kubernetes-validations[%d]", p, i)
		rule, msg := strings.TrimSpace(r.Rule), strings.TrimSpace(r.Message)
		switch {
		case rule == "":
			errs = append(errs, required(rp+".rule", "rule is not specified"))
		case r.Message != "" && msg == "":
			errs = append(errs, invalid(rp+".message", r.Message, "message must be non-empty if specified"))
		case newlines.MatchString(msg):
			errs = append(errs, invalid(rp+".message", r.Message, "message must not contain line breaks"))
		case newlines.MatchString(rule) && msg == "":
			errs = append(errs, required(rp+".message", "message must be specified if rule contains line breaks"))
		}
		if r.MessageExpression != "" && strings.TrimSpace(r.MessageExpression) == "" {
			errs = append(errs, required(rp+".messageExpression", "messageExpression must be non-empty if specified"))
		}
		if r.Reason != nil && !slices.Contains(supportedReasons, *r.Reason) {
			quoted := make([]string, len(supportedReasons))
			for i, s := range supportedReasons {
				quoted[i] = fmt.Sprintf("%q", s)
			}
			errs = append(errs, apierrors.FieldError{Type: api.CauseTypeFieldValueNotSupported, Field: rp + ".reason", BadValue: *r.Reason,
				Detail: "supported values: " + strings.Join(quoted, ", ")})
		}
		if r.FieldPath != "" && strings.TrimSpace(r.FieldPath) == "" {
			errs = append(errs, invalid(rp+".fieldPath", r.FieldPath, "fieldPath must be non-empty if specified"))
		}
		if newlines.MatchString(r.FieldPath) {
			errs = append(errs, invalid(rp+".fieldPath", r.FieldPath, "fieldPath must not contain line breaks"))
		}
		if r.FieldPath != "" {
			if _, err := normalizeFieldPath(r.FieldPath, s); err != nil {
				errs = append(errs, invalid(rp+".fieldPath", r.FieldPath, "fieldPath must be a valid path"))
			}
		}
	}
	for _, name := range sortedProps(s) {
		ps := s.Properties[name]
		errs = checkRuleShapes(errs, &ps, p+".properties["+name+"]")
	}
	if items := s.ItemSchema(); items != nil {
		errs = checkRuleShapes(errs, items, p+".items")
	}
	if ap := s.AdditionalProperties; ap != nil && ap.Schema != nil {
		errs = checkRuleShapes(errs, ap.Schema, p+".additionalProperties")
	}
	return errs
}

func invalid(p string, v any, detail string) apierrors.FieldError {
	return apierrors.FieldError{Type: api.CauseTypeFieldValueInvalid, Field: p, BadValue: v, Detail: detail}
}

func required(p, detail string) apierrors.FieldError {
	return apierrors.FieldError{Type: api.CauseTypeFieldValueRequired, Field: p, Detail: detail}
}

func forbidden(p, detail string) apierrors.FieldError {
	return apierrors.FieldError{Type: api.CauseTypeFieldValueForbidden, Field: p, Detail: detail}
}

// ruleValue prints a rule as kube-apiserver prints it as a bad value: the
// internal ValidationRule in Go syntax.
type ruleValue api.ValidationRule

func (r ruleValue) String() string {
	reason := "(*apiextensions.FieldValueErrorReason)(nil)"
	if r.Reason != nil {
		reason = fmt.Sprintf("(*apiextensions.FieldValueErrorReason)(%q)", *r.Reason)
	}
	opt := "(*bool)(nil)"
	if r.OptionalOldSelf != nil {
		opt = fmt.Sprintf("(*bool)(%v)", *r.OptionalOldSelf)
	}
	return fmt.Sprintf("apiextensions.ValidationRule{Rule:%q, Message:%q, MessageExpression:%q, Reason:%s, FieldPath:%q, OptionalOldSelf:%s}",
		r.Rule, r.Message, r.MessageExpression, reason, r.FieldPath, opt)
}

// estimator sizes the values a rule reads from the schema's bounds
// (maxLength, maxItems, maxProperties, or what fits in a request).
// Kubernetes: sizeEstimator in compilation.go.
type estimator struct {
	root *declType
}

func (e *estimator) EstimateSize(n checker.AstNode) *checker.SizeEstimate {
	path := n.Path()
	if len(path) == 0 {
		return nil
	}
	t := e.root
	for _, step := range path[1:] {
		switch step {
		case "@items", "@values":
			t = t.elem
		case "@keys":
			// Kubernetes sizes a map's keys as its plain string type: 0.
			return &checker.SizeEstimate{Min: 0, Max: 0}
		default:
			f := t.field(step)
			if f == nil {
				return nil
			}
			t = f.t
		}
		if t == nil {
			return nil
		}
	}
	return &checker.SizeEstimate{Min: 0, Max: uint64(t.maxElements)}
}
