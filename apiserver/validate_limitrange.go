package apiserver

// LimitRanges: defaulting and validation. Kubernetes:
// pkg/apis/core/v1/defaults.go (SetDefaults_LimitRangeItem) and
// pkg/apis/core/validation (ValidateLimitRange). The LimitRanger admission
// step that applies them is admission_limitrange.go.

import (
	"fmt"
	"math/big"
	"strings"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/api/apierrors"
	"github.com/miniplane/miniplane/api/quota"
)

// limitRangeMeta is how a range's metadata is checked: namespaced, a name
// that is a DNS subdomain, the core group's finalizer rule.
var limitRangeMeta = metaRules{namespaced: true, name: nameIsDNSSubdomain, kubeFinalizers: true}

// defaultLimitRange fills a Container limit's default from its max and its
// default request from its default, else its min, as Kubernetes'
// SetDefaults_LimitRangeItem does.
func defaultLimitRange(lr *api.LimitRange) {
	for i := range lr.Spec.Limits {
		l := &lr.Spec.Limits[i]
		if l.Type != api.LimitTypeContainer {
			continue
		}
		if l.Default == nil {
			l.Default = api.ResourceList{}
		}
		if l.DefaultRequest == nil {
			l.DefaultRequest = api.ResourceList{}
		}
		fill := func(into, from api.ResourceList) {
			for k, v := range from {
				if _, ok := into[k]; !ok {
					into[k] = v
				}
			}
		}
		fill(l.Default, l.Max)
		fill(l.DefaultRequest, l.Default)
		fill(l.DefaultRequest, l.Min)
	}
}

// validateLimitRange checks a range on create and update: one limit per
// known type, resource names its type may bound, Pod limits without
// defaults, PersistentVolumeClaim limits with a storage bound, and for
// each resource min <= default request <= default <= max and a ratio of
// at least 1 that max/min allows.
func validateLimitRange(lr *api.LimitRange) apierrors.FieldErrors {
	errs := validateObjectMeta(nil, &lr.Metadata, limitRangeMeta, metadataPath)
	seen := map[api.LimitType]bool{}
	for i := range lr.Spec.Limits {
		l := &lr.Spec.Limits[i]
		p := pathAt("spec").child("limits").index(i)
		errs = validateLimitType(errs, l.Type, p.child("type"))
		if seen[l.Type] {
			errs = append(errs, Duplicate(p.child("type").path(), l.Type))
		}
		seen[l.Type] = true
		lists := []struct {
			name string
			list api.ResourceList
		}{{"max", l.Max}, {"min", l.Min}, {"default", l.Default}, {"defaultRequest", l.DefaultRequest}, {"maxLimitRequestRatio", l.MaxLimitRequestRatio}}
		for _, f := range lists {
			if l.Type == api.LimitTypePod && (f.name == "default" || f.name == "defaultRequest") {
				if len(f.list) > 0 {
					errs = append(errs, Forbidden(p.child(f.name).path(), "may not be specified when `type` is 'Pod'"))
				}
				continue
			}
			for _, k := range sortedKeys(f.list) {
				errs = validateLimitRangeResourceName(errs, l.Type, k, p.child(f.name).key(k))
			}
			errs = validateResourceQuantities(errs, f.list, p.child(f.name))
		}
		if l.Type == api.LimitTypePersistentVolumeClaim {
			_, hasMin := l.Min[api.ResourceStorage]
			_, hasMax := l.Max[api.ResourceStorage]
			if !hasMin && !hasMax {
				errs = append(errs, Required(p.child("limits").path(), "either minimum or maximum storage value is required, but neither was provided"))
			}
		}
		errs = validateLimitBounds(errs, l, p)
	}
	return errs
}

// validateLimitBounds checks the order of one limit's quantities, resource
// by resource, in name order.
func validateLimitBounds(errs apierrors.FieldErrors, l *api.LimitRangeItem, p fieldPath) apierrors.FieldErrors {
	// A Pod limit's defaults were refused; they bound nothing.
	def, defReq := l.Default, l.DefaultRequest
	if l.Type == api.LimitTypePod {
		def, defReq = nil, nil
	}
	keys := map[string]bool{}
	for _, list := range []api.ResourceList{l.Max, l.Min, def, defReq, l.MaxLimitRequestRatio} {
		for k := range list {
			keys[k] = true
		}
	}
	get := func(list api.ResourceList, k string) (string, *big.Rat, bool) {
		s, ok := list[k]
		if !ok {
			return "", nil, false
		}
		r, ok := quota.Parse(s)
		return s, r, ok
	}
	for _, k := range sortedKeys(keys) {
		minS, minV, hasMin := get(l.Min, k)
		maxS, maxV, hasMax := get(l.Max, k)
		defS, defV, hasDef := get(def, k)
		reqS, reqV, hasReq := get(defReq, k)
		ratioS, ratioV, hasRatio := get(l.MaxLimitRequestRatio, k)
		if hasMin && hasMax && minV.Cmp(maxV) > 0 {
			errs = append(errs, Invalid(p.child("min").key(k).path(), minS, fmt.Sprintf("min value %s is greater than max value %s", minS, maxS)))
		}
		if hasReq && hasMin && minV.Cmp(reqV) > 0 {
			errs = append(errs, Invalid(p.child("defaultRequest").key(k).path(), reqS, fmt.Sprintf("min value %s is greater than default request value %s", minS, reqS)))
		}
		if hasReq && hasMax && reqV.Cmp(maxV) > 0 {
			errs = append(errs, Invalid(p.child("defaultRequest").key(k).path(), reqS, fmt.Sprintf("default request value %s is greater than max value %s", reqS, maxS)))
		}
		if hasReq && hasDef && reqV.Cmp(defV) > 0 {
			errs = append(errs, Invalid(p.child("defaultRequest").key(k).path(), reqS, fmt.Sprintf("default request value %s is greater than default limit value %s", reqS, defS)))
		}
		if hasDef && hasMin && minV.Cmp(defV) > 0 {
			errs = append(errs, Invalid(p.child("default").key(k).path(), minS, fmt.Sprintf("min value %s is greater than default value %s", minS, defS)))
		}
		if hasDef && hasMax && defV.Cmp(maxV) > 0 {
			errs = append(errs, Invalid(p.child("default").key(k).path(), maxS, fmt.Sprintf("default value %s is greater than max value %s", defS, maxS)))
		}
		if hasRatio && ratioV.Cmp(big.NewRat(1, 1)) < 0 {
			errs = append(errs, Invalid(p.child("maxLimitRequestRatio").key(k).path(), ratioS, fmt.Sprintf("ratio %s is less than 1", ratioS)))
		}
		if hasRatio && hasMin && hasMax && minV.Sign() > 0 {
			bound, _ := new(big.Rat).Quo(maxV, minV).Float64()
			if r, _ := ratioV.Float64(); r > bound {
				errs = append(errs, Invalid(p.child("maxLimitRequestRatio").key(k).path(), ratioS, fmt.Sprintf("ratio %s is greater than max/min = %f", ratioS, bound)))
			}
		}
		if !overcommitAllowed(k) && hasDef && hasReq && defV.Cmp(reqV) != 0 {
			errs = append(errs, Invalid(p.child("defaultRequest").key(k).path(), reqS, fmt.Sprintf("default value %s must equal to defaultRequest value %s in %s", defS, reqS, k)))
		}
	}
	return errs
}

// validateLimitType: Kubernetes' validateLimitRangeTypeName.
func validateLimitType(errs apierrors.FieldErrors, t api.LimitType, p fieldPath) apierrors.FieldErrors {
	if msgs := qualifiedNameMsgs(string(t)); msgs != nil {
		return invalidEach(errs, p, t, msgs)
	}
	switch t {
	case api.LimitTypePod, api.LimitTypeContainer, api.LimitTypePersistentVolumeClaim:
		return errs
	}
	if !strings.Contains(string(t), "/") {
		errs = append(errs, Invalid(p.path(), t, "must be a standard limit type or fully qualified"))
	}
	return errs
}

// validateLimitRangeResourceName: a container's resource names for Pod and
// Container limits, any standard or qualified name for others. Kubernetes:
// validateLimitRangeResourceName.
func validateLimitRangeResourceName(errs apierrors.FieldErrors, t api.LimitType, name string, p fieldPath) apierrors.FieldErrors {
	if t == api.LimitTypePod || t == api.LimitTypeContainer {
		return validateContainerResourceName(errs, name, p)
	}
	if msgs := qualifiedNameMsgs(name); msgs != nil {
		return invalidEach(errs, p, name, msgs)
	}
	if !strings.Contains(name, "/") && !standardResourceNames[name] && !isHugePages(name) {
		errs = append(errs, Invalid(p.path(), name, "must be a standard resource type or fully qualified"))
	}
	return errs
}

// validateLimitRangeUpdate checks an update as a create: a range's limits
// may change whole.
func validateLimitRangeUpdate(lr, old *api.LimitRange) apierrors.FieldErrors {
	errs := validateLimitRange(lr)
	return validateObjectMetaUpdate(errs, &lr.Metadata, &old.Metadata, metadataPath)
}
