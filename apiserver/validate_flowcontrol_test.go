package apiserver

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/miniplane/miniplane/api"
)

func validFlowSchema() *api.FlowSchema {
	return &api.FlowSchema{Metadata: api.ObjectMeta{Name: "system-foo"}, Spec: api.FlowSchemaSpec{
		PriorityLevelConfiguration: api.PriorityLevelConfigurationReference{Name: "system-bar"}, MatchingPrecedence: 50,
		Rules: []api.PolicyRulesWithSubjects{{
			Subjects:      []api.FlowSubject{{Kind: "User", User: &api.UserSubject{Name: "noxu"}}},
			ResourceRules: []api.ResourcePolicyRule{{Verbs: []string{"*"}, APIGroups: []string{"*"}, Resources: []string{"*"}, Namespaces: []string{"*"}}},
		}}}}
}

// The cases of Kubernetes' TestFlowSchemaValidation
// (pkg/apis/flowcontrol/validation), with kube-apiserver's messages.
func TestValidateFlowSchema(t *testing.T) {
	for _, tc := range []struct {
		name   string
		change func(*api.FlowSchema)
		want   string
		causes []cause
	}{
		{name: "valid", change: func(*api.FlowSchema) {}},
		{name: "the test's own, a non-resource rule", change: func(fs *api.FlowSchema) {
			fs.Spec.Rules[0].ResourceRules = nil
			fs.Spec.Rules[0].NonResourceRules = []api.NonResourcePolicyRule{{Verbs: []string{"*"}, NonResourceURLs: []string{"*"}}}
		}},
		{name: "precedence too high", change: func(fs *api.FlowSchema) { fs.Spec.MatchingPrecedence = 10001 },
			want: "spec.matchingPrecedence: Invalid value: 10001: must not be greater than 10000", causes: []cause{{invalid, "spec.matchingPrecedence"}}},
		{name: "precedence 1 for another than exempt", change: func(fs *api.FlowSchema) { fs.Spec.MatchingPrecedence = 1 },
			want: "spec.matchingPrecedence: Invalid value: 1: only the schema named 'exempt' may have matchingPrecedence 1", causes: []cause{{invalid, "spec.matchingPrecedence"}}},
		{name: "no level", change: func(fs *api.FlowSchema) { fs.Spec.PriorityLevelConfiguration.Name = "" },
			want: "spec.priorityLevelConfiguration.name: Required value: must reference a priority level", causes: []cause{{required, "spec.priorityLevelConfiguration.name"}}},
		{name: "unknown distinguisher", change: func(fs *api.FlowSchema) { fs.Spec.DistinguisherMethod = &api.FlowDistinguisherMethod{Type: "ByFoo"} },
			want:   `spec.distinguisherMethod.type: Unsupported value: flowcontrol.FlowDistinguisherMethod{Type:"ByFoo"}: supported values: "ByNamespace", "ByUser"`,
			causes: []cause{{notSupported, "spec.distinguisherMethod.type"}}},
		{name: "no subjects", change: func(fs *api.FlowSchema) { fs.Spec.Rules[0].Subjects = nil },
			want: "spec.rules[0].subjects: Required value: subjects must contain at least one value", causes: []cause{{required, "spec.rules[0].subjects"}}},
		{name: "no rules", change: func(fs *api.FlowSchema) { fs.Spec.Rules[0].ResourceRules = nil },
			want: "spec.rules[0]: Required value: at least one of resourceRules and nonResourceRules has to be non-empty", causes: []cause{{required, "spec.rules[0]"}}},
		{name: "user subject without a user", change: func(fs *api.FlowSchema) { fs.Spec.Rules[0].Subjects[0].User = nil },
			want: "spec.rules[0].subjects[0].user: Required value: user is required when subject kind is 'User'", causes: []cause{{required, "spec.rules[0].subjects[0].user"}}},
		{name: "user subject with a group", change: func(fs *api.FlowSchema) { fs.Spec.Rules[0].Subjects[0].Group = &api.GroupSubject{Name: "g"} },
			want: "spec.rules[0].subjects[0].group: Forbidden: group is forbidden when subject kind is not 'Group'", causes: []cause{{forbidden, "spec.rules[0].subjects[0].group"}}},
		{name: "service account without namespace", change: func(fs *api.FlowSchema) {
			fs.Spec.Rules[0].Subjects[0] = api.FlowSubject{Kind: "ServiceAccount", ServiceAccount: &api.ServiceAccountSubject{Name: "*"}}
		}, want: "spec.rules[0].subjects[0].serviceAccount.namespace: Required value: must specify namespace for service account",
			causes: []cause{{required, "spec.rules[0].subjects[0].serviceAccount.namespace"}}},
		{name: "unknown subject kind", change: func(fs *api.FlowSchema) { fs.Spec.Rules[0].Subjects[0].Kind = "Robot" },
			want: `spec.rules[0].subjects[0].kind: Unsupported value: "Robot": supported values: "Group", "ServiceAccount", "User"`, causes: []cause{{notSupported, "spec.rules[0].subjects[0].kind"}}},
		{name: "wildcard and other verbs", change: func(fs *api.FlowSchema) { fs.Spec.Rules[0].ResourceRules[0].Verbs = []string{"*", "get"} },
			want: `spec.rules[0].resourceRules[0].verbs: Invalid value: []string{"*", "get"}: if '*' is present, must not specify other verbs`, causes: []cause{{invalid, "spec.rules[0].resourceRules[0].verbs"}}},
		{name: "unknown verb", change: func(fs *api.FlowSchema) { fs.Spec.Rules[0].ResourceRules[0].Verbs = []string{"feed"} },
			want:   `spec.rules[0].resourceRules[0].verbs: Unsupported value: []string{"feed"}: supported values: "create", "delete", "deletecollection", "get", "list", "patch", "proxy", "update", "watch"`,
			causes: []cause{{notSupported, "spec.rules[0].resourceRules[0].verbs"}}},
		{name: "namespaced rule without namespaces", change: func(fs *api.FlowSchema) { fs.Spec.Rules[0].ResourceRules[0].Namespaces = nil },
			want:   "spec.rules[0].resourceRules[0].namespaces: Required value: resource rules that are not cluster scoped must supply at least one namespace",
			causes: []cause{{required, "spec.rules[0].resourceRules[0].namespaces"}}},
		{name: "a bad namespace", change: func(fs *api.FlowSchema) { fs.Spec.Rules[0].ResourceRules[0].Namespaces = []string{"-bad"} },
			want:   `spec.rules[0].resourceRules[0].namespaces[0]: Invalid value: "-bad": each member of this list must be '*' or a DNS-1123 label; ` + msgDNS1123Label,
			causes: []cause{{invalid, "spec.rules[0].resourceRules[0].namespaces[0]"}}},
		{name: "a wildcard in the middle of a path", change: func(fs *api.FlowSchema) {
			fs.Spec.Rules[0].NonResourceRules = []api.NonResourcePolicyRule{{Verbs: []string{"get"}, NonResourceURLs: []string{"/apis/*/foo"}}}
		}, want: `spec.rules[0].nonResourceRules[0].nonResourceURLs[0]: Invalid value: "/apis/*/foo": wildcard can only do suffix matching`,
			causes: []cause{{invalid, "spec.rules[0].nonResourceRules[0].nonResourceURLs[0]"}}},
		{name: "a path without a slash", change: func(fs *api.FlowSchema) {
			fs.Spec.Rules[0].NonResourceRules = []api.NonResourcePolicyRule{{Verbs: []string{"get"}, NonResourceURLs: []string{"healthz"}}}
		}, want: `spec.rules[0].nonResourceRules[0].nonResourceURLs[0]: Invalid value: "healthz": must start with slash`,
			causes: []cause{{invalid, "spec.rules[0].nonResourceRules[0].nonResourceURLs[0]"}}},
		{name: "a condition without type, and one twice", change: func(fs *api.FlowSchema) {
			fs.Status.Conditions = []api.FlowSchemaCondition{{Type: "Dangling"}, {Type: "Dangling"}, {}}
		}, want: `[status.conditions[1].type: Duplicate value: "Dangling", status.conditions[2].type: Required value: must not be empty]`,
			causes: []cause{{duplicate, "status.conditions[1].type"}, {required, "status.conditions[2].type"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fs := validFlowSchema()
			tc.change(fs)
			assertErrors(t, validateFlowSchema(fs), tc.want, tc.causes)
		})
	}
}

// The mandatory objects are valid as made, and their spec fixed.
func TestMandatoryFlowControlObjects(t *testing.T) {
	for _, fs := range mandatoryFlowSchemas() {
		assert.Nil(t, validateFlowSchema(fs), fs.Metadata.Name)
		changed := fs.DeepCopy()
		changed.Spec.MatchingPrecedence = 500
		errs := validateFlowSchema(changed)
		if assert.Len(t, errs, 1, fs.Metadata.Name) {
			assert.Equal(t, "spec of '"+fs.Metadata.Name+"' must equal the fixed value", errs[0].Detail)
		}
	}
	for _, pl := range mandatoryPriorityLevels() {
		assert.Nil(t, validatePriorityLevelConfiguration(pl), pl.Metadata.Name)
	}
	exempt := mandatoryPriorityLevels()[0]
	exempt.Spec.Exempt.NominalConcurrencyShares = ptr(int32(10))
	assert.Nil(t, validatePriorityLevelConfiguration(exempt), "exempt's spec.exempt may change")
}

func validPriorityLevel() *api.PriorityLevelConfiguration {
	pl := &api.PriorityLevelConfiguration{Metadata: api.ObjectMeta{Name: "system-foo"}, Spec: api.PriorityLevelConfigurationSpec{
		Type: "Limited", Limited: &api.LimitedPriorityLevelConfiguration{NominalConcurrencyShares: ptr(int32(100)),
			LimitResponse: api.LimitResponse{Type: "Queue", Queuing: &api.QueuingConfiguration{}}}}}
	defaultPriorityLevelConfiguration(pl)
	return pl
}

// The cases of Kubernetes' TestPriorityLevelConfigurationValidation.
func TestValidatePriorityLevelConfiguration(t *testing.T) {
	for _, tc := range []struct {
		name   string
		change func(*api.PriorityLevelConfiguration)
		want   string
		causes []cause
	}{
		{name: "valid, defaulted", change: func(*api.PriorityLevelConfiguration) {}},
		{name: "rejecting", change: func(pl *api.PriorityLevelConfiguration) {
			pl.Spec.Limited.LimitResponse = api.LimitResponse{Type: "Reject"}
		}},
		{name: "exempt named otherwise", change: func(pl *api.PriorityLevelConfiguration) {
			pl.Spec = api.PriorityLevelConfigurationSpec{Type: "Exempt"}
		}, want: `spec.type: Invalid value: "Exempt": type must be 'Exempt' if and only if name is 'exempt'`, causes: []cause{{invalid, "spec.type"}}},
		{name: "limited without limits", change: func(pl *api.PriorityLevelConfiguration) { pl.Spec.Limited = nil },
			want: "spec.limited: Required value: must not be empty when type is Limited", causes: []cause{{required, "spec.limited"}}},
		{name: "limited with exempt", change: func(pl *api.PriorityLevelConfiguration) { pl.Spec.Exempt = &api.ExemptPriorityLevelConfiguration{} },
			want: "spec.exempt: Forbidden: must be nil if the type is Limited", causes: []cause{{forbidden, "spec.exempt"}}},
		{name: "unknown type", change: func(pl *api.PriorityLevelConfiguration) { pl.Spec.Type = "Free" },
			want: `spec.type: Unsupported value: "Free": supported values: "Exempt", "Limited"`, causes: []cause{{notSupported, "spec.type"}}},
		{name: "queuing on a rejecting level", change: func(pl *api.PriorityLevelConfiguration) { pl.Spec.Limited.LimitResponse.Type = "Reject" },
			want:   "spec.limited.limitResponse.queuing: Forbidden: must be nil if limited.limitResponse.type is not Limited",
			causes: []cause{{forbidden, "spec.limited.limitResponse.queuing"}}},
		{name: "hand larger than the deck", change: func(pl *api.PriorityLevelConfiguration) {
			pl.Spec.Limited.LimitResponse.Queuing = &api.QueuingConfiguration{Queues: 7, HandSize: 8, QueueLengthLimit: 100}
		}, want: "spec.limited.limitResponse.queuing.handSize: Invalid value: 8: should not be greater than queues (7)",
			causes: []cause{{invalid, "spec.limited.limitResponse.queuing.handSize"}}},
		{name: "too much entropy", change: func(pl *api.PriorityLevelConfiguration) {
			pl.Spec.Limited.LimitResponse.Queuing = &api.QueuingConfiguration{Queues: 10 * 1000 * 1000, HandSize: 8, QueueLengthLimit: 100}
		}, want: "spec.limited.limitResponse.queuing.handSize: Invalid value: 8: required entropy bits of deckSize 10000000 and handSize 8 should not be greater than 60",
			causes: []cause{{invalid, "spec.limited.limitResponse.queuing.handSize"}}},
		{name: "lendable percent out of range", change: func(pl *api.PriorityLevelConfiguration) { pl.Spec.Limited.LendablePercent = ptr(int32(101)) },
			want: "spec.limited.lendablePercent: Invalid value: 101: must be between 0 and 100, inclusive", causes: []cause{{invalid, "spec.limited.lendablePercent"}}},
		{name: "negative borrowing limit", change: func(pl *api.PriorityLevelConfiguration) { pl.Spec.Limited.BorrowingLimitPercent = ptr(int32(-1)) },
			want:   "spec.limited.borrowingLimitPercent: Invalid value: -1: if specified, must be a non-negative integer",
			causes: []cause{{invalid, "spec.limited.borrowingLimitPercent"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pl := validPriorityLevel()
			tc.change(pl)
			assertErrors(t, validatePriorityLevelConfiguration(pl), tc.want, tc.causes)
		})
	}
}
