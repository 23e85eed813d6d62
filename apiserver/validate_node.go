package apiserver

// Nodes: defaulting and validation, and the taint rules that pod
// tolerations share. Kubernetes: SetDefaults_NodeStatus in pkg/apis/core/v1
// and ValidateNode{,Update} in pkg/apis/core/validation.

import (
	"maps"
	"slices"
	"strings"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/api/apierrors"
)

// nodeMeta is how nodes' metadata is checked: nodes are cluster-scoped.
var nodeMeta = metaRules{namespaced: false, name: nameIsDNSSubdomain, kubeFinalizers: true}

// msgPodCIDRChange is Kubernetes' message for changing a node's pod CIDR.
const msgPodCIDRChange = "node updates may not change podCIDR except from \"\" to valid"

// defaultNode keeps podCIDR and podCIDRs in step (podCIDR is podCIDRs[0], as
// in Kubernetes, which stores only the list), and lets allocatable default
// to capacity.
func defaultNode(n *api.Node) {
	spec := &n.Spec
	switch {
	case len(spec.PodCIDRs) > 0:
		spec.PodCIDR = spec.PodCIDRs[0]
	case spec.PodCIDR != "":
		spec.PodCIDRs = []string{spec.PodCIDR}
	}
	if n.Status.Allocatable == nil && n.Status.Capacity != nil {
		n.Status.Allocatable = maps.Clone(n.Status.Capacity)
	}
}

// validateNode checks a node on create.
func validateNode(n *api.Node) apierrors.FieldErrors {
	errs := validateObjectMeta(nil, &n.Metadata, nodeMeta, metadataPath)
	spec := pathAt("spec")
	errs = validateTaints(errs, n.Spec.Taints, spec.child("taints"))
	status := pathAt("status")
	errs = validateResourceQuantities(errs, n.Status.Capacity, status.child("capacity"))
	errs = validateResourceQuantities(errs, n.Status.Allocatable, status.child("allocatable"))
	errs = validatePodCIDRs(errs, &n.Spec, spec)
	addrs := n.Status.Addresses
	for i := range addrs {
		if slices.Contains(addrs[:i], addrs[i]) {
			errs = append(errs, Duplicate(status.child("addresses").index(i).path(), jsonValue{addrs[i]}))
		}
	}
	return errs
}

// validatePodCIDRs: every pod CIDR valid, no duplicates, and at most one per
// IP family.
func validatePodCIDRs(errs apierrors.FieldErrors, spec *api.NodeSpec, p fieldPath) apierrors.FieldErrors {
	cidrs := spec.PodCIDRs
	if len(cidrs) == 0 {
		if spec.PodCIDR != "" {
			errs = validateCIDR(errs, spec.PodCIDR, p.child("podCIDR"))
		}
		return errs
	}
	at := p.child("podCIDRs")
	valid := true
	for i, c := range cidrs {
		if _, ok := parseCIDR(c); !ok {
			valid = false
			errs = validateCIDR(errs, c, at.index(i))
		}
	}
	if len(cidrs) > 1 {
		if len(cidrs) > 2 || valid && cidrIs4(cidrs[0]) == cidrIs4(cidrs[1]) {
			errs = append(errs, Invalid(at.path(), cidrs, "may specify no more than one CIDR for each IP family"))
		}
		for i := range cidrs {
			if slices.Contains(cidrs[:i], cidrs[i]) {
				errs = append(errs, Duplicate(at.index(i).path(), cidrs[i]))
			}
		}
	}
	return errs
}

func cidrIs4(s string) bool {
	prefix, _ := parseCIDR(s)
	return prefix.Addr().Unmap().Is4()
}

// validateTaints checks a node's taints: key a qualified name, value a label
// value, an effect, and no two taints with the same key and effect.
// Kubernetes: validateNodeTaints (which reports them as metadata.taints, a
// slip this keeps out).
func validateTaints(errs apierrors.FieldErrors, taints []api.Taint, p fieldPath) apierrors.FieldErrors {
	for i := range taints {
		t := &taints[i]
		at := p.index(i)
		errs = validateQualifiedNameField(errs, t.Key, at.child("key"))
		if msgs := labelValueMsgs(t.Value); msgs != nil {
			errs = append(errs, Invalid(at.child("value").path(), t.Value, strings.Join(msgs, ";")))
		}
		if t.Effect == "" {
			errs = append(errs, Required(at.child("effect").path(), ""))
		} else {
			errs = validateTaintEffect(errs, t.Effect, at.child("effect"))
		}
		for j := range i {
			if taints[j].Key == t.Key && taints[j].Effect == t.Effect {
				dup := Duplicate(at.path(), jsonValue{t})
				dup.Detail = "taints must be unique by key and effect pair"
				errs = append(errs, dup)
				break
			}
		}
	}
	return errs
}

// validateTaintEffect checks a non-empty taint (or toleration) effect.
func validateTaintEffect(errs apierrors.FieldErrors, effect api.TaintEffect, p fieldPath) apierrors.FieldErrors {
	switch effect {
	case api.TaintEffectNoSchedule, api.TaintEffectPreferNoSchedule, api.TaintEffectNoExecute:
		return errs
	}
	return append(errs, NotSupported(p.path(), effect,
		string(api.TaintEffectNoSchedule), string(api.TaintEffectPreferNoSchedule), string(api.TaintEffectNoExecute)))
}

// validateNodeUpdate checks an update: a node keeps its identity, and its
// pod CIDRs and provider ID once set (the node IPAM controller and the cloud
// provider may set them once).
func validateNodeUpdate(n, old *api.Node) apierrors.FieldErrors {
	errs := validateNode(n)
	errs = validateObjectMetaUpdate(errs, &n.Metadata, &old.Metadata, metadataPath)
	spec := pathAt("spec")
	oldCIDRs, newCIDRs := old.Spec.PodCIDRs, n.Spec.PodCIDRs
	if len(oldCIDRs) == 0 && old.Spec.PodCIDR != "" {
		oldCIDRs = []string{old.Spec.PodCIDR}
	}
	if len(newCIDRs) == 0 && n.Spec.PodCIDR != "" {
		newCIDRs = []string{n.Spec.PodCIDR}
	}
	if len(oldCIDRs) > 0 && !slices.Equal(oldCIDRs, newCIDRs) {
		errs = append(errs, Forbidden(spec.child("podCIDRs").path(), msgPodCIDRChange))
	}
	if old.Spec.ProviderID != "" && n.Spec.ProviderID != old.Spec.ProviderID {
		errs = append(errs, Forbidden(spec.child("providerID").path(), "node updates may not change providerID except from \"\" to valid"))
	}
	return errs
}
