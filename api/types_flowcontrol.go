package api

// FlowSchema sorts requests into priority levels for API Priority and
// Fairness: the schema of the highest precedence (lowest matchingPrecedence)
// whose rules match a request names its level. It is cluster-scoped, with a
// status. miniplane stores and validates FlowSchemas but does not do priority
// and fairness: every request is served as it comes. Kubernetes:
// flowcontrolv1.FlowSchema.
type FlowSchema struct {
	TypeMeta `json:",inline"`
	// Metadata is the schema's identity.
	Metadata ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Spec is what the schema matches and the level it names.
	Spec FlowSchemaSpec `json:"spec,omitempty" protobuf:"bytes,2,opt,name=spec"`
	// Status holds the schema's conditions (Dangling).
	Status FlowSchemaStatus `json:"status,omitempty" protobuf:"bytes,3,opt,name=status"`
}

// GetObjectMeta returns the schema's metadata.
func (fs *FlowSchema) GetObjectMeta() *ObjectMeta { return &fs.Metadata }

// FlowSchemaSpec is what a FlowSchema matches. Kubernetes:
// flowcontrolv1.FlowSchemaSpec.
type FlowSchemaSpec struct {
	// PriorityLevelConfiguration names the level of the matched requests.
	PriorityLevelConfiguration PriorityLevelConfigurationReference `json:"priorityLevelConfiguration" protobuf:"bytes,1,opt,name=priorityLevelConfiguration"`
	// MatchingPrecedence orders the schemas, lowest first: 1 to 10000; default 1000.
	MatchingPrecedence int32 `json:"matchingPrecedence" protobuf:"varint,2,opt,name=matchingPrecedence"`
	// DistinguisherMethod splits matched requests into flows: ByUser or ByNamespace.
	DistinguisherMethod *FlowDistinguisherMethod `json:"distinguisherMethod,omitempty" protobuf:"bytes,3,opt,name=distinguisherMethod"`
	// Rules match a request when any of them does.
	Rules []PolicyRulesWithSubjects `json:"rules,omitempty" protobuf:"bytes,4,rep,name=rules"`
}

// FlowDistinguisherMethod is how a schema's requests are split into flows.
// Kubernetes: flowcontrolv1.FlowDistinguisherMethod.
type FlowDistinguisherMethod struct {
	// Type is ByUser or ByNamespace.
	Type string `json:"type" protobuf:"bytes,1,opt,name=type"`
}

// PriorityLevelConfigurationReference names a priority level. Kubernetes:
// flowcontrolv1.PriorityLevelConfigurationReference.
type PriorityLevelConfigurationReference struct {
	// Name is the PriorityLevelConfiguration's name.
	Name string `json:"name" protobuf:"bytes,1,opt,name=name"`
}

// PolicyRulesWithSubjects matches a request made by one of its subjects that
// one of its rules matches. Kubernetes: flowcontrolv1.PolicyRulesWithSubjects.
type PolicyRulesWithSubjects struct {
	// Subjects are who the rule applies to.
	Subjects []FlowSubject `json:"subjects" protobuf:"bytes,1,rep,name=subjects"`
	// ResourceRules match resource requests.
	// Its upstream Go tag says "opt"; the label follows generated.proto (repeated).
	ResourceRules []ResourcePolicyRule `json:"resourceRules,omitempty" protobuf:"bytes,2,rep,name=resourceRules"`
	// NonResourceRules match requests for other paths.
	// Its upstream Go tag says "opt"; the label follows generated.proto (repeated).
	NonResourceRules []NonResourcePolicyRule `json:"nonResourceRules,omitempty" protobuf:"bytes,3,rep,name=nonResourceRules"`
}

// FlowSubject is who a FlowSchema's rule applies to: a user, a group or a
// service account, as Kind says. Kubernetes: flowcontrolv1.Subject.
type FlowSubject struct {
	// Kind is User, Group or ServiceAccount; the field of that name must be set.
	Kind string `json:"kind" protobuf:"bytes,1,opt,name=kind"`
	// User is the user subject.
	User *UserSubject `json:"user,omitempty" protobuf:"bytes,2,opt,name=user"`
	// Group is the group subject.
	Group *GroupSubject `json:"group,omitempty" protobuf:"bytes,3,opt,name=group"`
	// ServiceAccount is the service account subject.
	ServiceAccount *ServiceAccountSubject `json:"serviceAccount,omitempty" protobuf:"bytes,4,opt,name=serviceAccount"`
}

// UserSubject is a user by name; "*" is every user. Kubernetes:
// flowcontrolv1.UserSubject.
type UserSubject struct {
	// Name is the user name.
	Name string `json:"name" protobuf:"bytes,1,opt,name=name"`
}

// GroupSubject is a group by name; "*" is every group. Kubernetes:
// flowcontrolv1.GroupSubject.
type GroupSubject struct {
	// Name is the group name.
	Name string `json:"name" protobuf:"bytes,1,opt,name=name"`
}

// ServiceAccountSubject is a service account; a name of "*" is every account
// of the namespace. Kubernetes: flowcontrolv1.ServiceAccountSubject.
type ServiceAccountSubject struct {
	// Namespace is the account's namespace.
	Namespace string `json:"namespace" protobuf:"bytes,1,opt,name=namespace"`
	// Name is the account's name, or "*".
	Name string `json:"name" protobuf:"bytes,2,opt,name=name"`
}

// ResourcePolicyRule matches resource requests by verb, group, resource and
// namespace. Kubernetes: flowcontrolv1.ResourcePolicyRule.
type ResourcePolicyRule struct {
	// Verbs are the matched verbs; "*" is all of them.
	Verbs []string `json:"verbs" protobuf:"bytes,1,rep,name=verbs"`
	// APIGroups are the matched groups; "*" is all of them.
	APIGroups []string `json:"apiGroups" protobuf:"bytes,2,rep,name=apiGroups"`
	// Resources are the matched resources ("pods", "pods/status"); "*" is all of them.
	Resources []string `json:"resources" protobuf:"bytes,3,rep,name=resources"`
	// ClusterScope matches requests that name no namespace.
	ClusterScope bool `json:"clusterScope,omitempty" protobuf:"varint,4,opt,name=clusterScope"`
	// Namespaces are the matched namespaces; "*" is any namespace.
	Namespaces []string `json:"namespaces" protobuf:"bytes,5,rep,name=namespaces"`
}

// NonResourcePolicyRule matches requests for paths that are not resources.
// Kubernetes: flowcontrolv1.NonResourcePolicyRule.
type NonResourcePolicyRule struct {
	// Verbs are the matched verbs; "*" is all of them.
	Verbs []string `json:"verbs" protobuf:"bytes,1,rep,name=verbs"`
	// NonResourceURLs are the matched paths; a trailing "/*" matches a prefix.
	NonResourceURLs []string `json:"nonResourceURLs" protobuf:"bytes,6,rep,name=nonResourceURLs"`
}

// FlowSchemaStatus is a FlowSchema's conditions. Kubernetes:
// flowcontrolv1.FlowSchemaStatus.
type FlowSchemaStatus struct {
	// Conditions are the schema's conditions.
	Conditions []FlowSchemaCondition `json:"conditions,omitempty" patchStrategy:"merge" patchMergeKey:"type" protobuf:"bytes,1,rep,name=conditions"`
}

// FlowSchemaCondition is one condition of a FlowSchema. Kubernetes:
// flowcontrolv1.FlowSchemaCondition.
type FlowSchemaCondition struct {
	// Type is the condition's type (Dangling).
	Type string `json:"type,omitempty" protobuf:"bytes,1,opt,name=type"`
	// Status is True, False or Unknown.
	Status ConditionStatus `json:"status,omitempty" protobuf:"bytes,2,opt,name=status"`
	// LastTransitionTime is when the status last changed.
	LastTransitionTime Time `json:"lastTransitionTime,omitempty" protobuf:"bytes,3,opt,name=lastTransitionTime"`
	// Reason is a one-word CamelCase reason.
	Reason string `json:"reason,omitempty" protobuf:"bytes,4,opt,name=reason"`
	// Message is a human-readable detail.
	Message string `json:"message,omitempty" protobuf:"bytes,5,opt,name=message"`
}

// FlowSchemaList is a list of flow schemas. Kubernetes:
// flowcontrolv1.FlowSchemaList.
type FlowSchemaList struct {
	TypeMeta `json:",inline"`
	// Metadata holds the revision the list was read at.
	Metadata ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Items are the flow schemas.
	Items []FlowSchema `json:"items" protobuf:"bytes,2,rep,name=items"`
}

// PriorityLevelConfiguration is a priority level of API Priority and
// Fairness: Exempt (never queued) or Limited (a share of the server's
// concurrency, queued or refused past it). It is cluster-scoped, with a
// status. miniplane stores and validates them but does not do priority and
// fairness. Kubernetes: flowcontrolv1.PriorityLevelConfiguration.
type PriorityLevelConfiguration struct {
	TypeMeta `json:",inline"`
	// Metadata is the level's identity.
	Metadata ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Spec is the level's kind and limits.
	Spec PriorityLevelConfigurationSpec `json:"spec,omitempty" protobuf:"bytes,2,opt,name=spec"`
	// Status holds the level's conditions.
	Status PriorityLevelConfigurationStatus `json:"status,omitempty" protobuf:"bytes,3,opt,name=status"`
}

// GetObjectMeta returns the level's metadata.
func (pl *PriorityLevelConfiguration) GetObjectMeta() *ObjectMeta { return &pl.Metadata }

// PriorityLevelConfigurationSpec is a level's kind and limits. Kubernetes:
// flowcontrolv1.PriorityLevelConfigurationSpec.
type PriorityLevelConfigurationSpec struct {
	// Type is Exempt or Limited; the field of that name may be set, and Limited must be.
	Type string `json:"type" protobuf:"bytes,1,opt,name=type"`
	// Limited is a Limited level's share and what happens past it.
	Limited *LimitedPriorityLevelConfiguration `json:"limited,omitempty" protobuf:"bytes,2,opt,name=limited"`
	// Exempt is an Exempt level's share.
	Exempt *ExemptPriorityLevelConfiguration `json:"exempt,omitempty" protobuf:"bytes,3,opt,name=exempt"`
}

// LimitedPriorityLevelConfiguration is a Limited level's share of the
// server's concurrency. Kubernetes: flowcontrolv1.LimitedPriorityLevelConfiguration.
type LimitedPriorityLevelConfiguration struct {
	// NominalConcurrencyShares is the level's share; default 30.
	NominalConcurrencyShares *int32 `json:"nominalConcurrencyShares" protobuf:"varint,1,opt,name=nominalConcurrencyShares"`
	// LimitResponse is what happens to requests past the level's limit.
	LimitResponse LimitResponse `json:"limitResponse,omitempty" protobuf:"bytes,2,opt,name=limitResponse"`
	// LendablePercent, 0 to 100, is how much of the share other levels may borrow; default 0.
	LendablePercent *int32 `json:"lendablePercent,omitempty" protobuf:"varint,3,opt,name=lendablePercent"`
	// BorrowingLimitPercent bounds what the level may borrow, as a percent of its share.
	BorrowingLimitPercent *int32 `json:"borrowingLimitPercent,omitempty" protobuf:"varint,4,opt,name=borrowingLimitPercent"`
}

// ExemptPriorityLevelConfiguration is an Exempt level's share. Kubernetes:
// flowcontrolv1.ExemptPriorityLevelConfiguration.
type ExemptPriorityLevelConfiguration struct {
	// NominalConcurrencyShares is the level's share; default 0.
	NominalConcurrencyShares *int32 `json:"nominalConcurrencyShares,omitempty" protobuf:"varint,1,opt,name=nominalConcurrencyShares"`
	// LendablePercent, 0 to 100, is how much of the share other levels may borrow; default 0.
	LendablePercent *int32 `json:"lendablePercent,omitempty" protobuf:"varint,2,opt,name=lendablePercent"`
}

// LimitResponse is what a Limited level does with requests past its limit.
// Kubernetes: flowcontrolv1.LimitResponse.
type LimitResponse struct {
	// Type is Queue or Reject.
	Type string `json:"type" protobuf:"bytes,1,opt,name=type"`
	// Queuing is how a Queue level queues; set only for Queue.
	Queuing *QueuingConfiguration `json:"queuing,omitempty" protobuf:"bytes,2,opt,name=queuing"`
}

// QueuingConfiguration is how a level queues. Kubernetes:
// flowcontrolv1.QueuingConfiguration.
type QueuingConfiguration struct {
	// Queues is the number of queues; default 64.
	Queues int32 `json:"queues" protobuf:"varint,1,opt,name=queues"`
	// HandSize is how many queues a flow is dealt; default 8.
	HandSize int32 `json:"handSize" protobuf:"varint,2,opt,name=handSize"`
	// QueueLengthLimit is each queue's length; default 50.
	QueueLengthLimit int32 `json:"queueLengthLimit" protobuf:"varint,3,opt,name=queueLengthLimit"`
}

// PriorityLevelConfigurationStatus is a level's conditions. Kubernetes:
// flowcontrolv1.PriorityLevelConfigurationStatus.
type PriorityLevelConfigurationStatus struct {
	// Conditions are the level's conditions.
	Conditions []PriorityLevelConfigurationCondition `json:"conditions,omitempty" patchStrategy:"merge" patchMergeKey:"type" protobuf:"bytes,1,rep,name=conditions"`
}

// PriorityLevelConfigurationCondition is one condition of a level.
// Kubernetes: flowcontrolv1.PriorityLevelConfigurationCondition.
type PriorityLevelConfigurationCondition struct {
	// Type is the condition's type.
	Type string `json:"type,omitempty" protobuf:"bytes,1,opt,name=type"`
	// Status is True, False or Unknown.
	Status ConditionStatus `json:"status,omitempty" protobuf:"bytes,2,opt,name=status"`
	// LastTransitionTime is when the status last changed.
	LastTransitionTime Time `json:"lastTransitionTime,omitempty" protobuf:"bytes,3,opt,name=lastTransitionTime"`
	// Reason is a one-word CamelCase reason.
	Reason string `json:"reason,omitempty" protobuf:"bytes,4,opt,name=reason"`
	// Message is a human-readable detail.
	Message string `json:"message,omitempty" protobuf:"bytes,5,opt,name=message"`
}

// PriorityLevelConfigurationList is a list of priority levels. Kubernetes:
// flowcontrolv1.PriorityLevelConfigurationList.
type PriorityLevelConfigurationList struct {
	TypeMeta `json:",inline"`
	// Metadata holds the revision the list was read at.
	Metadata ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Items are the priority levels.
	Items []PriorityLevelConfiguration `json:"items" protobuf:"bytes,2,rep,name=items"`
}
