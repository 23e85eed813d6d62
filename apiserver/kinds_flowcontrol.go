package apiserver

import (
	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/api/apierrors"
)

// flowControlKinds returns the flowcontrol.apiserver.k8s.io/v1 kinds,
// cluster-scoped with a status: FlowSchemas and PriorityLevelConfigurations,
// stored and validated as kube-apiserver does, the mandatory ones made at
// start (Config.FlowControl). miniplane does not do API Priority and
// Fairness: no request is classified, queued or refused by them (their
// creation answers with a Warning that says so, actedon.go).
func flowControlKinds() []*kind {
	gr := func(resource string) apierrors.GroupResource {
		return apierrors.GroupResource{Group: "flowcontrol.apiserver.k8s.io", Resource: resource}
	}
	const apiVersion = "flowcontrol.apiserver.k8s.io/v1"
	return []*kind{
		typed(&kind{
			gr: gr("flowschemas"), kind: "FlowSchema", apiVersion: apiVersion,
			newObj: func() api.Object { return &api.FlowSchema{} }, resetStatusOnCreate: true,
			status: statusOf(func(o *api.FlowSchema) *api.FlowSchemaStatus { return &o.Status }),
			prepareStatus: func(next, _ api.Object, _ bool, _ api.Time) apierrors.FieldErrors {
				return validateFlowConditions(nil, flowSchemaConditionTypes(next.(*api.FlowSchema)))
			},
			columns: []Column{nameColumn,
				{Name: "PriorityLevel", Type: "string", Description: "`name` is the name of the priority level configuration being referenced Required.",
					Cell: func(o api.Object) any { return o.(*api.FlowSchema).Spec.PriorityLevelConfiguration.Name }},
				{Name: "MatchingPrecedence", Type: "string", Description: "`matchingPrecedence` is used to choose among the FlowSchemas that match a given request. The chosen FlowSchema is among those with the numerically lowest (which we take to be logically highest) MatchingPrecedence.  Each MatchingPrecedence value must be ranged in [1,10000]. Note that if the precedence is not specified, it will be set to 1000 as default.",
					Cell: func(o api.Object) any { return int64(o.(*api.FlowSchema).Spec.MatchingPrecedence) }},
				{Name: "DistinguisherMethod", Type: "string", Description: "`distinguisherMethod` defines how to compute the flow distinguisher for requests that match this schema. `nil` specifies that the distinguisher is disabled and thus will always be the empty string.",
					Cell: func(o api.Object) any {
						if d := o.(*api.FlowSchema).Spec.DistinguisherMethod; d != nil {
							return d.Type
						}
						return "<none>"
					}},
				ageColumn,
				{Name: "MissingPL", Type: "string", Description: "references a broken or non-existent PriorityLevelConfiguration",
					Cell: func(o api.Object) any {
						for _, c := range o.(*api.FlowSchema).Status.Conditions {
							if c.Type == "Dangling" {
								return string(c.Status)
							}
						}
						return "?"
					}},
			},
		}, defaultFlowSchema, validateFlowSchema, validateFlowSchemaUpdate),
		typed(&kind{
			gr: gr("prioritylevelconfigurations"), kind: "PriorityLevelConfiguration", apiVersion: apiVersion,
			newObj: func() api.Object { return &api.PriorityLevelConfiguration{} }, resetStatusOnCreate: true,
			status: statusOf(func(o *api.PriorityLevelConfiguration) *api.PriorityLevelConfigurationStatus { return &o.Status }),
			prepareStatus: func(next, _ api.Object, _ bool, _ api.Time) apierrors.FieldErrors {
				return validateFlowConditions(nil, priorityLevelConditionTypes(next.(*api.PriorityLevelConfiguration)))
			},
			columns: []Column{nameColumn,
				{Name: "Type", Type: "string", Description: "`type` indicates whether this priority level is subject to limitation on request execution.  A value of `\"Exempt\"` means that requests of this priority level are not subject to a limit (and thus are never queued) and do not detract from the capacity made available to other priority levels.  A value of `\"Limited\"` means that (a) requests of this priority level _are_ subject to limits and (b) some of the server's limited capacity is made available exclusively to this priority level. Required.",
					Cell: func(o api.Object) any { return o.(*api.PriorityLevelConfiguration).Spec.Type }},
				{Name: "NominalConcurrencyShares", Type: "string", Description: "`nominalConcurrencyShares` (NCS) contributes to the computation of the NominalConcurrencyLimit (NominalCL) of this level.",
					Cell: func(o api.Object) any {
						if l := o.(*api.PriorityLevelConfiguration).Spec.Limited; l != nil && l.NominalConcurrencyShares != nil {
							return int64(*l.NominalConcurrencyShares)
						}
						return "<none>"
					}},
				{Name: "Queues", Type: "string", Description: "`queues` is the number of queues for this priority level. The queues exist independently at each apiserver. The value must be positive.  Setting it to 1 effectively precludes shufflesharding and thus makes the distinguisher method of associated flow schemas irrelevant.  This field has a default value of 64.",
					Cell: func(o api.Object) any {
						return queuingCell(o, func(q *api.QueuingConfiguration) int32 { return q.Queues })
					}},
				{Name: "HandSize", Type: "string", Description: "`handSize` is a small positive number that configures the shuffle sharding of requests into queues.",
					Cell: func(o api.Object) any {
						return queuingCell(o, func(q *api.QueuingConfiguration) int32 { return q.HandSize })
					}},
				{Name: "QueueLengthLimit", Type: "string", Description: "`queueLengthLimit` is the maximum number of requests allowed to be waiting in a given queue of this priority level at a time; excess requests are rejected.  This value must be positive.  If not specified, it will be defaulted to 50.",
					Cell: func(o api.Object) any {
						return queuingCell(o, func(q *api.QueuingConfiguration) int32 { return q.QueueLengthLimit })
					}},
				ageColumn},
		}, defaultPriorityLevelConfiguration, validatePriorityLevelConfiguration, validatePriorityLevelConfigurationUpdate),
	}
}

// queuingCell is a level's queuing figure for its table, "<none>" when it
// does not queue.
func queuingCell(o api.Object, figure func(*api.QueuingConfiguration) int32) any {
	if l := o.(*api.PriorityLevelConfiguration).Spec.Limited; l != nil && l.LimitResponse.Queuing != nil {
		return int64(figure(l.LimitResponse.Queuing))
	}
	return "<none>"
}
