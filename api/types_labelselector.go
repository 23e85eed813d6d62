package api

import (
	"fmt"
)

// LabelSelector is the structured label query of the newer kinds (ReplicaSet, StatefulSet,
// PodDisruptionBudget, ...): every MatchLabels pair and every MatchExpressions requirement
// must hold. An empty selector matches everything, a nil one nothing. Use
// [LabelSelectorAsSelector] to match with it. Kubernetes: metav1.LabelSelector.
type LabelSelector struct {
	// MatchLabels are key=value pairs, each an In requirement with one value.
	MatchLabels map[string]string `json:"matchLabels,omitempty" protobuf:"bytes,1,rep,name=matchLabels" protobuf_key:"bytes,1,opt,name=key" protobuf_val:"bytes,2,opt,name=value"`
	// MatchExpressions are requirements, ANDed.
	MatchExpressions []LabelSelectorRequirement `json:"matchExpressions,omitempty" protobuf:"bytes,2,rep,name=matchExpressions"`
}

// LabelSelectorRequirement relates a label key to values with an operator: In, NotIn,
// Exists or DoesNotExist. Kubernetes: metav1.LabelSelectorRequirement.
type LabelSelectorRequirement struct {
	// Key is the label key.
	Key string `json:"key" protobuf:"bytes,1,opt,name=key"`
	// Operator is In, NotIn, Exists or DoesNotExist.
	Operator string `json:"operator" protobuf:"bytes,2,opt,name=operator"`
	// Values must be non-empty for In and NotIn and empty for Exists and DoesNotExist.
	Values []string `json:"values,omitempty" protobuf:"bytes,3,rep,name=values"`
}

// Condition is one fact about an object in the shape shared by the newer kinds (a
// PodDisruptionBudget's status). Kubernetes: metav1.Condition.
type Condition struct {
	// Type names the fact, in CamelCase.
	Type string `json:"type" protobuf:"bytes,1,opt,name=type"`
	// Status is True, False or Unknown.
	Status ConditionStatus `json:"status" protobuf:"bytes,2,opt,name=status"`
	// ObservedGeneration is the metadata.generation the condition was set from.
	ObservedGeneration int64 `json:"observedGeneration,omitempty" protobuf:"varint,3,opt,name=observedGeneration"`
	// LastTransitionTime is when Status last changed.
	LastTransitionTime Time `json:"lastTransitionTime" protobuf:"bytes,4,opt,name=lastTransitionTime"`
	// Reason is a CamelCase reason for the last transition.
	Reason string `json:"reason" protobuf:"bytes,5,opt,name=reason"`
	// Message is a human-readable account of the last transition.
	Message string `json:"message" protobuf:"bytes,6,opt,name=message"`
}

// LabelSelectorAsSelector converts ls to a [Selector]: each MatchLabels pair becomes an
// equality requirement and each MatchExpressions entry the requirement of its operator.
// It fails on an invalid key, value or operator. An empty or nil ls gives the empty
// selector, which matches everything: a caller for whom nil means "nothing" (as
// metav1.LabelSelectorAsSelector returns labels.Nothing) checks for nil first.
// Kubernetes: metav1.LabelSelectorAsSelector.
func LabelSelectorAsSelector(ls *LabelSelector) (Selector, error) {
	if ls == nil {
		return Selector{}, nil
	}
	reqs := make([]Requirement, 0, len(ls.MatchLabels)+len(ls.MatchExpressions))
	for key, value := range ls.MatchLabels {
		r, err := NewRequirement(key, OpEquals, []string{value})
		if err != nil {
			return Selector{}, err
		}
		reqs = append(reqs, r)
	}
	for _, e := range ls.MatchExpressions {
		var op Operator
		switch e.Operator {
		case LabelSelectorOpIn:
			op = OpIn
		case LabelSelectorOpNotIn:
			op = OpNotIn
		case LabelSelectorOpExists:
			op = OpExists
		case LabelSelectorOpDoesNotExist:
			op = OpDoesNotExist
		default:
			return Selector{}, fmt.Errorf("%q is not a valid label selector operator", e.Operator)
		}
		r, err := NewRequirement(e.Key, op, e.Values)
		if err != nil {
			return Selector{}, err
		}
		reqs = append(reqs, r)
	}
	return Selector{}.Add(reqs...), nil
}

// The operators of a [LabelSelectorRequirement]. Kubernetes: metav1.LabelSelectorOperator.
const (
	// LabelSelectorOpIn: the label has one of the values.
	LabelSelectorOpIn = "In"
	// LabelSelectorOpNotIn: the label is absent or has none of the values.
	LabelSelectorOpNotIn = "NotIn"
	// LabelSelectorOpExists: the label is present.
	LabelSelectorOpExists = "Exists"
	// LabelSelectorOpDoesNotExist: the label is absent.
	LabelSelectorOpDoesNotExist = "DoesNotExist"
)

// FormatLabelSelector returns ls as kubectl prints it: "<none>" for nil or empty, else
// the selector string ("app=web,tier in (a,b)"), or "<error>" when ls is not valid.
// Kubernetes: metav1.FormatLabelSelector.
func FormatLabelSelector(ls *LabelSelector) string {
	sel, err := LabelSelectorAsSelector(ls)
	if err != nil {
		return "<error>"
	}
	if sel.Empty() {
		return "<none>"
	}
	return sel.String()
}
