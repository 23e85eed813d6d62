package apiserver

// FlowSchemas and PriorityLevelConfigurations: defaulting, validation and
// the mandatory objects. Kubernetes: pkg/apis/flowcontrol/v1/defaults.go,
// pkg/apis/flowcontrol/validation and the mandatory configuration of
// k8s.io/apiserver/pkg/apis/flowcontrol/bootstrap (v1.32). miniplane does
// not do priority and fairness: these objects are stored, validated and
// kept, and no request is ever classified by them.

import (
	"fmt"
	"math"
	"reflect"
	"slices"
	"strings"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/api/apierrors"
)

// flowControlMeta is how a schema's or level's metadata is checked:
// cluster-scoped, a DNS subdomain name.
var flowControlMeta = metaRules{name: nameIsDNSSubdomain, kubeFinalizers: true}

// The flow-control names and values upstream fixes.
const (
	flowSchemaMaxMatchingPrecedence = 10000
	maxQueues                       = 10 * 1000 * 1000
	// shuffleShardingMaxHashBits is k8s.io/apiserver's shufflesharding.MaxHashBits.
	shuffleShardingMaxHashBits = 60
	// autoUpdateAnnotation marks the objects the server made and may update.
	autoUpdateAnnotation = "apf.kubernetes.io/autoupdate-spec"
	// preserveZeroSharesAnnotation is refused on levels (it is the v1beta3 conversion's).
	preserveZeroSharesAnnotation = "flowcontrol.k8s.io/v1beta3-preserve-zero-concurrency-shares"
)

var (
	flowVerbs               = []string{"create", "delete", "deletecollection", "get", "list", "patch", "proxy", "update", "watch"}
	flowSubjectKinds        = []string{"Group", "ServiceAccount", "User"}
	distinguisherMethods    = []string{"ByNamespace", "ByUser"}
	priorityLevelTypes      = []string{"Exempt", "Limited"}
	limitResponseTypes      = []string{"Queue", "Reject"}
	flowControlNsErrorIntro = "each member of this list must be '*' or a DNS-1123 label; "
)

// upstreamValue is a bad value printed as kube-apiserver prints it, in its
// Go syntax (a struct of flowcontrol's internal types).
type upstreamValue string

func (v upstreamValue) String() string { return string(v) }

// mandatoryFlowSchemas are the schemas kube-apiserver creates at start and
// keeps: exempt (system:masters, never queued) and catch-all (everyone
// else, the last resort). Kubernetes: bootstrap.MandatoryFlowSchemas.
func mandatoryFlowSchemas() []*api.FlowSchema {
	everything := func(groups ...string) api.PolicyRulesWithSubjects {
		r := api.PolicyRulesWithSubjects{
			ResourceRules: []api.ResourcePolicyRule{{Verbs: []string{"*"}, APIGroups: []string{"*"}, Resources: []string{"*"},
				Namespaces: []string{"*"}, ClusterScope: true}},
			NonResourceRules: []api.NonResourcePolicyRule{{Verbs: []string{"*"}, NonResourceURLs: []string{"*"}}},
		}
		for _, g := range groups {
			r.Subjects = append(r.Subjects, api.FlowSubject{Kind: "Group", Group: &api.GroupSubject{Name: g}})
		}
		return r
	}
	meta := func(name string) api.ObjectMeta {
		return api.ObjectMeta{Name: name, Annotations: map[string]string{autoUpdateAnnotation: "true"}}
	}
	return []*api.FlowSchema{
		{Metadata: meta("exempt"), Spec: api.FlowSchemaSpec{PriorityLevelConfiguration: api.PriorityLevelConfigurationReference{Name: "exempt"},
			MatchingPrecedence: 1, Rules: []api.PolicyRulesWithSubjects{everything("system:masters")}}},
		{Metadata: meta("catch-all"), Spec: api.FlowSchemaSpec{PriorityLevelConfiguration: api.PriorityLevelConfigurationReference{Name: "catch-all"},
			MatchingPrecedence: 10000, DistinguisherMethod: &api.FlowDistinguisherMethod{Type: "ByUser"},
			Rules: []api.PolicyRulesWithSubjects{everything("system:unauthenticated", "system:authenticated")}}},
	}
}

// mandatoryPriorityLevels are the levels kube-apiserver creates at start
// and keeps. Kubernetes: bootstrap.MandatoryPriorityLevelConfigurations.
func mandatoryPriorityLevels() []*api.PriorityLevelConfiguration {
	meta := func(name string) api.ObjectMeta {
		return api.ObjectMeta{Name: name, Annotations: map[string]string{autoUpdateAnnotation: "true"}}
	}
	return []*api.PriorityLevelConfiguration{
		{Metadata: meta("exempt"), Spec: api.PriorityLevelConfigurationSpec{Type: "Exempt",
			Exempt: &api.ExemptPriorityLevelConfiguration{NominalConcurrencyShares: ptr(int32(0)), LendablePercent: ptr(int32(0))}}},
		{Metadata: meta("catch-all"), Spec: api.PriorityLevelConfigurationSpec{Type: "Limited",
			Limited: &api.LimitedPriorityLevelConfiguration{NominalConcurrencyShares: ptr(int32(5)), LendablePercent: ptr(int32(0)),
				LimitResponse: api.LimitResponse{Type: "Reject"}}}},
	}
}

// defaultFlowSchema: matchingPrecedence 1000. Kubernetes: SetDefaults_FlowSchemaSpec.
func defaultFlowSchema(fs *api.FlowSchema) {
	if fs.Spec.MatchingPrecedence == 0 {
		fs.Spec.MatchingPrecedence = 1000
	}
}

// defaultPriorityLevelConfiguration fills shares, lendable percents and
// queuing. Kubernetes: the v1 SetDefaults_ functions.
func defaultPriorityLevelConfiguration(pl *api.PriorityLevelConfiguration) {
	if e := pl.Spec.Exempt; e != nil {
		if e.NominalConcurrencyShares == nil {
			e.NominalConcurrencyShares = ptr(int32(0))
		}
		if e.LendablePercent == nil {
			e.LendablePercent = ptr(int32(0))
		}
	}
	if l := pl.Spec.Limited; l != nil {
		if l.NominalConcurrencyShares == nil {
			l.NominalConcurrencyShares = ptr(int32(30))
		}
		if l.LendablePercent == nil {
			l.LendablePercent = ptr(int32(0))
		}
		if q := l.LimitResponse.Queuing; q != nil {
			if q.HandSize == 0 {
				q.HandSize = 8
			}
			if q.Queues == 0 {
				q.Queues = 64
			}
			if q.QueueLengthLimit == 0 {
				q.QueueLengthLimit = 50
			}
		}
	}
}

// validateFlowSchema checks a schema, on create and (wholly again) on
// update. Kubernetes: ValidateFlowSchema.
func validateFlowSchema(fs *api.FlowSchema) apierrors.FieldErrors {
	errs := validateObjectMeta(nil, &fs.Metadata, flowControlMeta, metadataPath)
	spec := NewPath("spec")
	errs = validateFlowSchemaSpec(errs, fs.Metadata.Name, &fs.Spec, spec)
	for _, m := range mandatoryFlowSchemas() {
		if m.Metadata.Name == fs.Metadata.Name && !reflect.DeepEqual(m.Spec, fs.Spec) {
			errs = append(errs, Invalid(spec, jsonValue{fs.Spec}, fmt.Sprintf("spec of '%s' must equal the fixed value", fs.Metadata.Name)))
		}
	}
	return validateFlowConditions(errs, flowSchemaConditionTypes(fs))
}

func validateFlowSchemaUpdate(fs, old *api.FlowSchema) apierrors.FieldErrors {
	return validateObjectMetaUpdate(validateFlowSchema(fs), &fs.Metadata, &old.Metadata, metadataPath)
}

func validateFlowSchemaSpec(errs apierrors.FieldErrors, name string, s *api.FlowSchemaSpec, p Path) apierrors.FieldErrors {
	mp := p.Child("matchingPrecedence")
	if s.MatchingPrecedence <= 0 {
		errs = append(errs, Invalid(mp, s.MatchingPrecedence, "must be a positive value"))
	}
	if s.MatchingPrecedence > flowSchemaMaxMatchingPrecedence {
		errs = append(errs, Invalid(mp, s.MatchingPrecedence, fmt.Sprintf("must not be greater than %d", flowSchemaMaxMatchingPrecedence)))
	}
	if s.MatchingPrecedence == 1 && name != "exempt" {
		errs = append(errs, Invalid(mp, s.MatchingPrecedence, "only the schema named 'exempt' may have matchingPrecedence 1"))
	}
	if d := s.DistinguisherMethod; d != nil && !slices.Contains(distinguisherMethods, d.Type) {
		errs = append(errs, NotSupported(p.Child("distinguisherMethod").Child("type"),
			upstreamValue(fmt.Sprintf("flowcontrol.FlowDistinguisherMethod{Type:%q}", d.Type)), distinguisherMethods...))
	}
	pl := p.Child("priorityLevelConfiguration").Child("name")
	if n := s.PriorityLevelConfiguration.Name; n != "" {
		errs = invalidEach(errs, pathAt(pl), n, nameIsDNSSubdomain(n, false))
	} else {
		errs = append(errs, Required(pl, "must reference a priority level"))
	}
	for i := range s.Rules {
		errs = validateFlowRule(errs, &s.Rules[i], p.Child("rules").Index(i))
	}
	return errs
}

// validateFlowRule: Kubernetes' ValidateFlowSchemaPolicyRulesWithSubjects.
func validateFlowRule(errs apierrors.FieldErrors, r *api.PolicyRulesWithSubjects, p Path) apierrors.FieldErrors {
	if len(r.Subjects) == 0 {
		errs = append(errs, Required(p.Child("subjects"), "subjects must contain at least one value"))
	}
	for i := range r.Subjects {
		errs = validateFlowSubject(errs, &r.Subjects[i], p.Child("subjects").Index(i))
	}
	if len(r.ResourceRules) == 0 && len(r.NonResourceRules) == 0 {
		errs = append(errs, Required(p, "at least one of resourceRules and nonResourceRules has to be non-empty"))
	}
	for i := range r.ResourceRules {
		errs = validateResourcePolicyRule(errs, &r.ResourceRules[i], p.Child("resourceRules").Index(i))
	}
	for i := range r.NonResourceRules {
		errs = validateNonResourcePolicyRule(errs, &r.NonResourceRules[i], p.Child("nonResourceRules").Index(i))
	}
	return errs
}

// validateFlowSubject: Kubernetes' ValidateFlowSchemaSubject.
func validateFlowSubject(errs apierrors.FieldErrors, s *api.FlowSubject, p Path) apierrors.FieldErrors {
	notUser := func(errs apierrors.FieldErrors) apierrors.FieldErrors {
		if s.User != nil {
			errs = append(errs, Forbidden(p.Child("user"), "user is forbidden when subject kind is not 'User'"))
		}
		return errs
	}
	notGroup := func(errs apierrors.FieldErrors) apierrors.FieldErrors {
		if s.Group != nil {
			errs = append(errs, Forbidden(p.Child("group"), "group is forbidden when subject kind is not 'Group'"))
		}
		return errs
	}
	notSA := func(errs apierrors.FieldErrors) apierrors.FieldErrors {
		if s.ServiceAccount != nil {
			errs = append(errs, Forbidden(p.Child("serviceAccount"), "serviceAccount is forbidden when subject kind is not 'ServiceAccount'"))
		}
		return errs
	}
	switch s.Kind {
	case "ServiceAccount":
		sp := p.Child("serviceAccount")
		if sa := s.ServiceAccount; sa == nil {
			errs = append(errs, Required(sp, "serviceAccount is required when subject kind is 'ServiceAccount'"))
		} else {
			if sa.Name == "" {
				errs = append(errs, Required(sp.Child("name"), ""))
			} else if sa.Name != "*" {
				errs = invalidEach(errs, pathAt(sp.Child("name")), sa.Name, nameIsDNSSubdomain(sa.Name, false))
			}
			if sa.Namespace == "" {
				errs = append(errs, Required(sp.Child("namespace"), "must specify namespace for service account"))
			} else {
				errs = invalidEach(errs, pathAt(sp.Child("namespace")), sa.Namespace, nameIsDNSLabel(sa.Namespace, false))
			}
		}
		return notGroup(notUser(errs))
	case "User":
		if s.User == nil {
			errs = append(errs, Required(p.Child("user"), "user is required when subject kind is 'User'"))
		} else if s.User.Name == "" {
			errs = append(errs, Required(p.Child("user").Child("name"), ""))
		}
		return notGroup(notSA(errs))
	case "Group":
		if s.Group == nil {
			errs = append(errs, Required(p.Child("group"), "group is required when subject kind is 'Group'"))
		} else if s.Group.Name == "" {
			errs = append(errs, Required(p.Child("group").Child("name"), ""))
		}
		return notUser(notSA(errs))
	}
	return append(errs, NotSupported(p.Child("kind"), s.Kind, flowSubjectKinds...))
}

// validateFlowVerbs checks a rule's verbs: some, "*" alone, or known ones.
func validateFlowVerbs(errs apierrors.FieldErrors, verbs []string, p Path) apierrors.FieldErrors {
	switch {
	case len(verbs) == 0:
		return append(errs, Required(p, "verbs must contain at least one value"))
	case slices.Contains(verbs, "*"):
		if len(verbs) > 1 {
			errs = append(errs, Invalid(p, verbs, "if '*' is present, must not specify other verbs"))
		}
		return errs
	}
	for _, v := range verbs {
		if !slices.Contains(flowVerbs, v) {
			return append(errs, NotSupported(p, verbs, flowVerbs...))
		}
	}
	return errs
}

// validateResourcePolicyRule: Kubernetes' ValidateFlowSchemaResourcePolicyRule.
func validateResourcePolicyRule(errs apierrors.FieldErrors, r *api.ResourcePolicyRule, p Path) apierrors.FieldErrors {
	errs = validateFlowVerbs(errs, r.Verbs, p.Child("verbs"))
	if len(r.APIGroups) == 0 {
		errs = append(errs, Required(p.Child("apiGroups"), "resource rules must supply at least one api group"))
	} else if len(r.APIGroups) > 1 && slices.Contains(r.APIGroups, "*") {
		errs = append(errs, Invalid(p.Child("apiGroups"), r.APIGroups, "if '*' is present, must not specify other api groups"))
	}
	if len(r.Resources) == 0 {
		errs = append(errs, Required(p.Child("resources"), "resource rules must supply at least one resource"))
	} else if len(r.Resources) > 1 && slices.Contains(r.Resources, "*") {
		errs = append(errs, Invalid(p.Child("resources"), r.Resources, "if '*' is present, must not specify other resources"))
	}
	switch {
	case len(r.Namespaces) == 0 && !r.ClusterScope:
		errs = append(errs, Required(p.Child("namespaces"), "resource rules that are not cluster scoped must supply at least one namespace"))
	case slices.Contains(r.Namespaces, "*"):
		if len(r.Namespaces) > 1 {
			errs = append(errs, Invalid(p.Child("namespaces"), r.Namespaces, "if '*' is present, must not specify other namespaces"))
		}
	default:
		for i, ns := range r.Namespaces {
			for _, msg := range nameIsDNSLabel(ns, false) {
				errs = append(errs, Invalid(p.Child("namespaces").Index(i), ns, flowControlNsErrorIntro+msg))
			}
		}
	}
	return errs
}

// validateNonResourcePolicyRule: Kubernetes' ValidateFlowSchemaNonResourcePolicyRule.
func validateNonResourcePolicyRule(errs apierrors.FieldErrors, r *api.NonResourcePolicyRule, p Path) apierrors.FieldErrors {
	errs = validateFlowVerbs(errs, r.Verbs, p.Child("verbs"))
	up := p.Child("nonResourceURLs")
	switch {
	case len(r.NonResourceURLs) == 0:
		errs = append(errs, Required(up, "nonResourceURLs must contain at least one value"))
	case slices.Contains(r.NonResourceURLs, "*"):
		if len(r.NonResourceURLs) > 1 {
			errs = append(errs, Invalid(up, r.NonResourceURLs, "if '*' is present, must not specify other non-resource URLs"))
		}
	default:
		for i, u := range r.NonResourceURLs {
			if msg := nonResourceURLProblem(u); msg != "" {
				errs = append(errs, Invalid(up.Index(i), u, msg))
			}
		}
	}
	return errs
}

// nonResourceURLProblem says what is wrong with a rule's path, "" when
// nothing. Kubernetes: ValidateNonResourceURLPath.
func nonResourceURLProblem(path string) string {
	switch {
	case path == "":
		return "must not be empty"
	case path == "/":
		return ""
	case !strings.HasPrefix(path, "/"):
		return "must start with slash"
	case strings.Contains(path, " "):
		return "must not contain white-space"
	case strings.Contains(path, "//"):
		return "must not contain double slash"
	}
	if n := strings.Count(path, "*"); n > 1 || (n == 1 && !strings.HasSuffix(path, "/*")) {
		return "wildcard can only do suffix matching"
	}
	return ""
}

// flowSchemaConditionTypes and priorityLevelConditionTypes list the types
// of an object's conditions, which validateFlowConditions checks alike.
func flowSchemaConditionTypes(fs *api.FlowSchema) []string {
	types := make([]string, len(fs.Status.Conditions))
	for i, c := range fs.Status.Conditions {
		types[i] = c.Type
	}
	return types
}

func priorityLevelConditionTypes(pl *api.PriorityLevelConfiguration) []string {
	types := make([]string, len(pl.Status.Conditions))
	for i, c := range pl.Status.Conditions {
		types[i] = c.Type
	}
	return types
}

// validateFlowConditions checks conditions' types: not empty, not twice.
// Kubernetes: ValidateFlowSchemaStatus, ValidatePriorityLevelConfigurationStatus.
func validateFlowConditions(errs apierrors.FieldErrors, types []string) apierrors.FieldErrors {
	seen := map[string]bool{}
	for i, t := range types {
		p := NewPath("status", "conditions").Index(i).Child("type")
		if seen[t] {
			errs = append(errs, Duplicate(p, t))
		}
		seen[t] = true
		if t == "" {
			errs = append(errs, Required(p, "must not be empty"))
		}
	}
	return errs
}

// validatePriorityLevelConfiguration checks a level, on create and
// (wholly again) on update. Kubernetes: ValidatePriorityLevelConfiguration.
func validatePriorityLevelConfiguration(pl *api.PriorityLevelConfiguration) apierrors.FieldErrors {
	errs := validateObjectMeta(nil, &pl.Metadata, flowControlMeta, metadataPath)
	if _, ok := pl.Metadata.Annotations[preserveZeroSharesAnnotation]; ok {
		errs = append(errs, Forbidden(NewPath("metadata", "annotations"), fmt.Sprintf("annotation '%s' is forbidden", preserveZeroSharesAnnotation)))
	}
	spec := NewPath("spec")
	errs = validatePriorityLevelSpec(errs, pl.Metadata.Name, &pl.Spec, spec)
	for _, m := range mandatoryPriorityLevels() {
		if m.Metadata.Name != pl.Metadata.Name {
			continue
		}
		have := pl.Spec
		if m.Metadata.Name == "exempt" {
			have.Exempt = m.Spec.Exempt
			if !reflect.DeepEqual(m.Spec, have) {
				errs = append(errs, Invalid(spec, jsonValue{pl.Spec}, "spec of 'exempt' except the 'spec.exempt' field must equal the fixed value"))
			}
		} else if !reflect.DeepEqual(m.Spec, have) {
			errs = append(errs, Invalid(spec, jsonValue{pl.Spec}, fmt.Sprintf("spec of '%s' must equal the fixed value", pl.Metadata.Name)))
		}
	}
	return validateFlowConditions(errs, priorityLevelConditionTypes(pl))
}

func validatePriorityLevelConfigurationUpdate(pl, old *api.PriorityLevelConfiguration) apierrors.FieldErrors {
	return validateObjectMetaUpdate(validatePriorityLevelConfiguration(pl), &pl.Metadata, &old.Metadata, metadataPath)
}

// validatePriorityLevelSpec: Kubernetes' ValidatePriorityLevelConfigurationSpec.
func validatePriorityLevelSpec(errs apierrors.FieldErrors, name string, s *api.PriorityLevelConfigurationSpec, p Path) apierrors.FieldErrors {
	if (name == "exempt") != (s.Type == "Exempt") {
		errs = append(errs, Invalid(p.Child("type"), s.Type, "type must be 'Exempt' if and only if name is 'exempt'"))
	}
	switch s.Type {
	case "Exempt":
		if s.Limited != nil {
			errs = append(errs, Forbidden(p.Child("limited"), "must be nil if the type is not Limited"))
		}
		if e := s.Exempt; e != nil {
			if e.NominalConcurrencyShares != nil && *e.NominalConcurrencyShares < 0 {
				errs = append(errs, Invalid(p.Child("exempt").Child("nominalConcurrencyShares"), *e.NominalConcurrencyShares, "must be a non-negative integer"))
			}
			errs = validateLendablePercent(errs, e.LendablePercent, p.Child("exempt").Child("lendablePercent"))
		}
	case "Limited":
		if s.Exempt != nil {
			errs = append(errs, Forbidden(p.Child("exempt"), "must be nil if the type is Limited"))
		}
		if s.Limited == nil {
			errs = append(errs, Required(p.Child("limited"), "must not be empty when type is Limited"))
		} else {
			errs = validateLimitedPriorityLevel(errs, s.Limited, p.Child("limited"))
		}
	default:
		errs = append(errs, NotSupported(p.Child("type"), s.Type, priorityLevelTypes...))
	}
	return errs
}

func validateLendablePercent(errs apierrors.FieldErrors, v *int32, p Path) apierrors.FieldErrors {
	if v != nil && (*v < 0 || *v > 100) {
		errs = append(errs, Invalid(p, *v, "must be between 0 and 100, inclusive"))
	}
	return errs
}

// validateLimitedPriorityLevel: Kubernetes' ValidateLimitedPriorityLevelConfiguration.
func validateLimitedPriorityLevel(errs apierrors.FieldErrors, l *api.LimitedPriorityLevelConfiguration, p Path) apierrors.FieldErrors {
	if l.NominalConcurrencyShares != nil && *l.NominalConcurrencyShares < 0 {
		errs = append(errs, Invalid(p.Child("nominalConcurrencyShares"), *l.NominalConcurrencyShares, "must be a non-negative integer"))
	}
	lr := p.Child("limitResponse")
	switch l.LimitResponse.Type {
	case "Reject":
		if l.LimitResponse.Queuing != nil {
			errs = append(errs, Forbidden(lr.Child("queuing"), "must be nil if limited.limitResponse.type is not Limited"))
		}
	case "Queue":
		if q := l.LimitResponse.Queuing; q == nil {
			errs = append(errs, Required(lr.Child("queuing"), "must not be empty if limited.limitResponse.type is Limited"))
		} else {
			errs = validateQueuing(errs, q, lr.Child("queuing"))
		}
	default:
		errs = append(errs, NotSupported(lr.Child("type"), l.LimitResponse.Type, limitResponseTypes...))
	}
	errs = validateLendablePercent(errs, l.LendablePercent, p.Child("lendablePercent"))
	if b := l.BorrowingLimitPercent; b != nil && *b < 0 {
		errs = append(errs, Invalid(p.Child("borrowingLimitPercent"), *b, "if specified, must be a non-negative integer"))
	}
	return errs
}

// validateQueuing: Kubernetes' ValidatePriorityLevelQueuingConfiguration.
func validateQueuing(errs apierrors.FieldErrors, q *api.QueuingConfiguration, p Path) apierrors.FieldErrors {
	if q.QueueLengthLimit <= 0 {
		errs = append(errs, Invalid(p.Child("queueLengthLimit"), q.QueueLengthLimit, "must be positive"))
	}
	if q.Queues <= 0 {
		errs = append(errs, Invalid(p.Child("queues"), q.Queues, "must be positive"))
	} else if q.Queues > maxQueues {
		errs = append(errs, Invalid(p.Child("queues"), q.Queues, fmt.Sprintf("must not be greater than %d", maxQueues)))
	}
	switch {
	case q.HandSize <= 0:
		errs = append(errs, Invalid(p.Child("handSize"), q.HandSize, "must be positive"))
	case q.HandSize > q.Queues:
		errs = append(errs, Invalid(p.Child("handSize"), q.HandSize, fmt.Sprintf("should not be greater than queues (%d)", q.Queues)))
	case requiredEntropyBits(int(q.Queues), int(q.HandSize)) > shuffleShardingMaxHashBits:
		errs = append(errs, Invalid(p.Child("handSize"), q.HandSize,
			fmt.Sprintf("required entropy bits of deckSize %d and handSize %d should not be greater than %d", q.Queues, q.HandSize, shuffleShardingMaxHashBits)))
	}
	return errs
}

// requiredEntropyBits is the bits a hash needs to deal handSize cards from
// a deck of deckSize. Kubernetes: shufflesharding.RequiredEntropyBits,
// int(math.Ceil(math.Log2(float64(deckSize)) * float64(handSize))).
func requiredEntropyBits(deckSize, handSize int) int {
	return int(math.Ceil(math.Log2(float64(deckSize)) * float64(handSize)))
}
