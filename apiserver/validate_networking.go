package apiserver

// The networking.k8s.io/v1 kinds: defaulting and validation. Kubernetes:
// pkg/apis/networking/v1/defaults.go and pkg/apis/networking/validation
// (v1.32). Choosing the default IngressClass is an admission step
// (admission_ingressclass.go).

import (
	"strconv"
	"strings"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/api/apierrors"
)

// networkingMeta is how the networking kinds' metadata is checked: core's
// ValidateObjectMeta, DNS subdomain names. IngressClasses are cluster-scoped.
var (
	networkingMeta   = metaRules{namespaced: true, name: nameIsDNSSubdomain, kubeFinalizers: true}
	ingressClassMeta = metaRules{name: nameIsDNSSubdomain, kubeFinalizers: true}
)

// maxIngressClassControllerLen bounds spec.controller. Kubernetes:
// maxLenIngressClassController.
const maxIngressClassControllerLen = 250

// goSyntax is a bad value Kubernetes prints in Go syntax (%#v) naming its
// internal package: "[]networking.IngressRule(nil)".
type goSyntax string

func (g goSyntax) String() string { return string(g) }

// ---- Ingress ----

// defaultIngress: an Ingress has no defaults in networking/v1.
func defaultIngress(*api.Ingress) {}

// ingressOptions relax the rules for what an update's old object already
// holds. Kubernetes: IngressValidationOptions.
type ingressOptions struct {
	allowInvalidSecretName, allowInvalidWildcardHostRule bool
}

// validateIngress checks an ingress on create: its spec, and that the old
// class annotation and ingressClassName agree. Kubernetes: ValidateIngressCreate.
func validateIngress(in *api.Ingress) apierrors.FieldErrors {
	errs := validateIngressObject(in, ingressOptions{})
	if v, ok := in.Metadata.Annotations[api.AnnotationIngressClass]; ok && in.Spec.IngressClassName != nil && v != *in.Spec.IngressClassName {
		errs = append(errs, Invalid(NewPath("annotations").Child(api.AnnotationIngressClass), v, "must match `ingressClassName` when both are specified"))
	}
	return errs
}

// validateIngressUpdate checks an update, letting an invalid secret name or
// wildcard rule stay that the old ingress already had. Kubernetes:
// ValidateIngressUpdate.
func validateIngressUpdate(in, old *api.Ingress) apierrors.FieldErrors {
	errs := validateObjectMetaUpdate(nil, &in.Metadata, &old.Metadata, metadataPath)
	opts := ingressOptions{}
	for _, tls := range old.Spec.TLS {
		if tls.SecretName != "" && len(nameIsDNSSubdomain(tls.SecretName, false)) > 0 {
			opts.allowInvalidSecretName = true
		}
	}
	for i := range old.Spec.Rules {
		r := &old.Spec.Rules[i]
		if strings.Contains(r.Host, "*") && len(validateIngressRuleValue(nil, &r.IngressRuleValue, pathAt(""), ingressOptions{})) > 0 {
			opts.allowInvalidWildcardHostRule = true
		}
	}
	return append(errs, validateIngressObject(in, opts)...)
}

// validateIngressStatusUpdate checks a status write: the load balancer's
// addresses. Kubernetes: ValidateIngressStatusUpdate.
func validateIngressStatusUpdate(in, old *api.Ingress) apierrors.FieldErrors {
	errs := validateObjectMetaUpdate(nil, &in.Metadata, &old.Metadata, metadataPath)
	p := pathAt("status").child("loadBalancer")
	for i, lb := range in.Status.LoadBalancer.Ingress {
		ip := p.child("ingress").index(i)
		if lb.IP != "" {
			errs = validateIP(errs, lb.IP, ip.child("ip"))
		}
		if lb.Hostname != "" {
			errs = validateDNS1123SubdomainField(errs, lb.Hostname, ip.child("hostname"))
			if _, isIP := parseIP(lb.Hostname); isIP {
				errs = append(errs, Invalid(ip.child("hostname").path(), lb.Hostname, "must be a DNS name, not an IP address"))
			}
		}
	}
	return errs
}

func validateIngressObject(in *api.Ingress, opts ingressOptions) apierrors.FieldErrors {
	errs := validateObjectMeta(nil, &in.Metadata, networkingMeta, metadataPath)
	spec := &in.Spec
	p := pathAt("spec")
	if len(spec.Rules) == 0 && spec.DefaultBackend == nil {
		bad := goSyntax("[]networking.IngressRule(nil)")
		if spec.Rules != nil {
			bad = "[]networking.IngressRule{}"
		}
		errs = append(errs, Invalid(p.path(), bad, "either `defaultBackend` or `rules` must be specified"))
	}
	if spec.DefaultBackend != nil {
		errs = validateIngressBackend(errs, spec.DefaultBackend, p.child("defaultBackend"))
	}
	for i := range spec.Rules {
		errs = validateIngressRule(errs, &spec.Rules[i], p.child("rules").index(i), opts)
	}
	for i, tls := range spec.TLS {
		tp := p.child("tls").index(i)
		for j, host := range tls.Hosts {
			errs = validateIngressHost(errs, host, tp.child("hosts").index(j))
		}
		if !opts.allowInvalidSecretName && tls.SecretName != "" {
			errs = invalidEach(errs, tp.child("secretName"), tls.SecretName, nameIsDNSSubdomain(tls.SecretName, false))
		}
	}
	if spec.IngressClassName != nil {
		errs = invalidEach(errs, p.child("ingressClassName"), *spec.IngressClassName, nameIsDNSSubdomain(*spec.IngressClassName, false))
	}
	return errs
}

// validateIngressHost checks a TLS host: a DNS subdomain, or a wildcard one
// when it has a '*'.
func validateIngressHost(errs apierrors.FieldErrors, host string, p fieldPath) apierrors.FieldErrors {
	if strings.Contains(host, "*") {
		return invalidEach(errs, p, host, wildcardDNS1123SubdomainMsgs(host))
	}
	return validateDNS1123SubdomainField(errs, host, p)
}

// validateIngressRule checks a rule's host (a DNS name, never an IP) and its
// paths. Kubernetes: validateIngressRules.
func validateIngressRule(errs apierrors.FieldErrors, r *api.IngressRule, p fieldPath, opts ingressOptions) apierrors.FieldErrors {
	wildcard := false
	if r.Host != "" {
		hp := p.child("host")
		if _, isIP := parseIP(r.Host); isIP {
			errs = append(errs, Invalid(hp.path(), r.Host, "must be a DNS name, not an IP address"))
		}
		wildcard = strings.Contains(r.Host, "*")
		errs = validateIngressHost(errs, r.Host, hp)
	}
	if !wildcard || !opts.allowInvalidWildcardHostRule {
		errs = validateIngressRuleValue(errs, &r.IngressRuleValue, p, opts)
	}
	return errs
}

func validateIngressRuleValue(errs apierrors.FieldErrors, v *api.IngressRuleValue, p fieldPath, _ ingressOptions) apierrors.FieldErrors {
	if v.HTTP == nil {
		return errs
	}
	hp := p.child("http")
	if len(v.HTTP.Paths) == 0 {
		errs = append(errs, Required(hp.child("paths").path(), ""))
	}
	for i := range v.HTTP.Paths {
		errs = validateHTTPIngressPath(errs, &v.HTTP.Paths[i], hp.child("paths").index(i))
	}
	return errs
}

// supportedPathTypes, sorted as Kubernetes lists them.
var supportedPathTypes = [...]string{string(api.PathTypeExact), string(api.PathTypeImplementationSpecific), string(api.PathTypePrefix)}

// validateHTTPIngressPath: a path type is required; Exact and Prefix paths
// are absolute and clean, an ImplementationSpecific one absolute if set.
// Kubernetes: validateHTTPIngressPath.
func validateHTTPIngressPath(errs apierrors.FieldErrors, hp *api.HTTPIngressPath, p fieldPath) apierrors.FieldErrors {
	if hp.PathType == nil {
		return append(errs, Required(p.child("pathType").path(), "pathType must be specified"))
	}
	pp := p.child("path")
	switch *hp.PathType {
	case api.PathTypeExact, api.PathTypePrefix:
		if !strings.HasPrefix(hp.Path, "/") {
			errs = append(errs, Invalid(pp.path(), hp.Path, "must be an absolute path"))
		}
		for _, seq := range [...]string{"//", "/./", "/../", "%2f", "%2F"} {
			if strings.Contains(hp.Path, seq) {
				errs = append(errs, Invalid(pp.path(), hp.Path, "must not contain '"+seq+"'"))
			}
		}
		for _, suffix := range [...]string{"/..", "/."} {
			if strings.HasSuffix(hp.Path, suffix) {
				errs = append(errs, Invalid(pp.path(), hp.Path, "cannot end with '"+suffix+"'"))
			}
		}
	case api.PathTypeImplementationSpecific:
		if hp.Path != "" && !strings.HasPrefix(hp.Path, "/") {
			errs = append(errs, Invalid(pp.path(), hp.Path, "must be an absolute path"))
		}
	default:
		errs = append(errs, NotSupported(p.child("pathType").path(), *hp.PathType, supportedPathTypes[:]...))
	}
	return validateIngressBackend(errs, &hp.Backend, p.child("backend"))
}

// validateIngressBackend: exactly one of a service and a resource; a service
// backend names the Service and one port, by name or by number. Kubernetes:
// validateIngressBackend.
func validateIngressBackend(errs apierrors.FieldErrors, b *api.IngressBackend, p fieldPath) apierrors.FieldErrors {
	switch {
	case b.Resource != nil && b.Service != nil:
		return append(errs, Invalid(p.path(), "", "cannot set both resource and service backends"))
	case b.Resource != nil:
		r := b.Resource
		return validateTypedLocalObjectReference(errs, r.APIGroup, r.Kind, r.Name, p.child("resource"))
	case b.Service == nil:
		return append(errs, Invalid(p.path(), "", "resource or service backend is required"))
	}
	svc := p.child("service")
	if b.Service.Name == "" {
		errs = append(errs, Required(svc.child("name").path(), ""))
	} else {
		errs = invalidEach(errs, svc.child("name"), b.Service.Name, nameIsDNS1035Label(b.Service.Name, false))
	}
	port := b.Service.Port
	switch {
	case port.Name != "" && port.Number != 0:
		errs = append(errs, Invalid(p.path(), "", "cannot set both port name & port number"))
	case port.Name != "":
		errs = invalidEach(errs, svc.child("port").child("name"), port.Name, portNameMsgs(port.Name))
	case port.Number != 0:
		errs = validatePortNumber(errs, port.Number, svc.child("port").child("number"))
	default:
		errs = append(errs, Required(p.path(), "port name or number is required"))
	}
	return errs
}

// validateTypedLocalObjectReference checks a resource backend or an
// IngressClass's parameters: a DNS subdomain group, and a kind and name
// that are path segments. Kubernetes: validateIngressTypedLocalObjectReference.
func validateTypedLocalObjectReference(errs apierrors.FieldErrors, apiGroup *string, kind, name string, p fieldPath) apierrors.FieldErrors {
	if apiGroup != nil {
		errs = validateDNS1123SubdomainField(errs, *apiGroup, p.child("apiGroup"))
	}
	if kind == "" {
		errs = append(errs, Required(p.child("kind").path(), ""))
	} else {
		errs = invalidEach(errs, p.child("kind"), kind, nameIsPathSegment(kind, false))
	}
	if name == "" {
		errs = append(errs, Required(p.child("name").path(), ""))
	} else {
		errs = invalidEach(errs, p.child("name"), name, nameIsPathSegment(name, false))
	}
	return errs
}

// wildcardDNS1123SubdomainMsgs: "*." and a DNS subdomain, as Kubernetes'
// IsWildcardDNS1123Subdomain.
func wildcardDNS1123SubdomainMsgs(value string) []string {
	var msgs []string
	if len(value) > dns1123SubdomainMaxLength {
		msgs = append(msgs, maxLenMsg(dns1123SubdomainMaxLength))
	}
	if rest, ok := strings.CutPrefix(value, "*."); !ok || !isDNS1123Subdomain(rest) {
		msgs = append(msgs, "a wildcard DNS-1123 subdomain must start with '*.', followed by a valid DNS subdomain, "+
			"which must consist of lower case alphanumeric characters, '-' or '.' and end with an alphanumeric character "+
			"(e.g. '*.example.com', regex used for validation is '\\*\\."+dns1123SubdomainFmt+"')")
	}
	return msgs
}

// ---- IngressClass ----

// defaultIngressClass: parameters without a scope are cluster-scoped.
func defaultIngressClass(ic *api.IngressClass) {
	if p := ic.Spec.Parameters; p != nil && p.Scope == nil {
		p.Scope = ptr(api.IngressClassParametersScopeCluster)
	}
}

// validateIngressClass checks a class: a domain-prefixed controller name,
// valid parameters. Kubernetes: ValidateIngressClass.
func validateIngressClass(ic *api.IngressClass) apierrors.FieldErrors {
	errs := validateObjectMeta(nil, &ic.Metadata, ingressClassMeta, metadataPath)
	p := pathAt("spec")
	if len(ic.Spec.Controller) > maxIngressClassControllerLen {
		errs = append(errs, TooLong(p.child("controller").path(), maxIngressClassControllerLen))
	}
	errs = validateDomainPrefixedPath(errs, ic.Spec.Controller, p.child("controller"))
	if params := ic.Spec.Parameters; params != nil {
		errs = validateIngressClassParameters(errs, params, p.child("parameters"))
	}
	return errs
}

// validateIngressClassUpdate: the controller cannot change. Kubernetes:
// ValidateIngressClassUpdate.
func validateIngressClassUpdate(ic, old *api.IngressClass) apierrors.FieldErrors {
	errs := validateObjectMetaUpdate(nil, &ic.Metadata, &old.Metadata, metadataPath)
	if ic.Spec.Controller != old.Spec.Controller {
		errs = append(errs, Invalid(NewPath("spec", "controller"), ic.Spec.Controller, msgImmutable))
	}
	return append(errs, validateIngressClass(ic)...)
}

// supportedParameterScopes, sorted.
var supportedParameterScopes = [...]string{api.IngressClassParametersScopeCluster, api.IngressClassParametersScopeNamespace}

// validateIngressClassParameters: a reference as a resource backend's, and
// a scope, with a namespace exactly when it is Namespace. Kubernetes:
// validateIngressClassParametersReference.
func validateIngressClassParameters(errs apierrors.FieldErrors, r *api.IngressClassParametersReference, p fieldPath) apierrors.FieldErrors {
	errs = validateTypedLocalObjectReference(errs, r.APIGroup, r.Kind, r.Name, p)
	if r.Scope == nil {
		return append(errs, Required(p.child("scope").path(), ""))
	}
	switch *r.Scope {
	case api.IngressClassParametersScopeNamespace:
		if r.Namespace == nil {
			errs = append(errs, Required(p.child("namespace").path(), "`parameters.scope` is set to 'Namespace'"))
		} else {
			errs = invalidEach(errs, p.child("namespace"), *r.Namespace, nameIsDNSLabel(*r.Namespace, false))
		}
	case api.IngressClassParametersScopeCluster:
		if r.Namespace != nil {
			errs = append(errs, Forbidden(p.child("namespace").path(), "`parameters.scope` is set to 'Cluster'"))
		}
	default:
		errs = append(errs, NotSupported(p.child("scope").path(), *r.Scope, supportedParameterScopes[:]...))
	}
	return errs
}

// httpPathChars are the characters of a domain-prefixed path's path, as
// Kubernetes' httpPathFmt allows them.
const (
	httpPathFmt   = `[A-Za-z0-9/\-._~%!$&'()*+,;=:]+`
	httpPathChars = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789/-._~%!$&'()*+,;=:"
)

// validateDomainPrefixedPath: "example.com/path", a DNS subdomain, a '/'
// and a path. Kubernetes: validation.IsDomainPrefixedPath.
func validateDomainPrefixedPath(errs apierrors.FieldErrors, value string, p fieldPath) apierrors.FieldErrors {
	if value == "" {
		return append(errs, Required(p.path(), ""))
	}
	host, path, ok := strings.Cut(value, "/")
	if !ok || host == "" || path == "" {
		return append(errs, Invalid(p.path(), value, `must be a domain-prefixed path (such as "acme.io/foo")`))
	}
	errs = validateDNS1123SubdomainField(errs, host, p)
	if strings.Trim(path, httpPathChars) != "" {
		errs = append(errs, Invalid(p.path(), path, "Invalid path (regex used for validation is '"+httpPathFmt+"')"))
	}
	return errs
}

// ---- NetworkPolicy ----

// defaultNetworkPolicy: ports are TCP unless they say otherwise, and a
// policy naming no policyTypes governs ingress, and egress too when it has
// egress rules. Kubernetes: SetDefaults_NetworkPolicy{,Port}.
func defaultNetworkPolicy(np *api.NetworkPolicy) {
	spec := &np.Spec
	defaultPorts := func(ports []api.NetworkPolicyPort) {
		for i := range ports {
			if ports[i].Protocol == nil {
				ports[i].Protocol = ptr(api.ProtocolTCP)
			}
		}
	}
	for i := range spec.Ingress {
		defaultPorts(spec.Ingress[i].Ports)
	}
	for i := range spec.Egress {
		defaultPorts(spec.Egress[i].Ports)
	}
	if len(spec.PolicyTypes) == 0 {
		spec.PolicyTypes = []api.PolicyType{api.PolicyTypeIngress}
		if len(spec.Egress) != 0 {
			spec.PolicyTypes = append(spec.PolicyTypes, api.PolicyTypeEgress)
		}
	}
}

// validateNetworkPolicy checks a policy. Kubernetes: ValidateNetworkPolicy.
func validateNetworkPolicy(np *api.NetworkPolicy) apierrors.FieldErrors {
	errs := validateObjectMeta(nil, &np.Metadata, networkingMeta, metadataPath)
	return validateNetworkPolicySpec(errs, &np.Spec, pathAt("spec"))
}

// validateNetworkPolicyUpdate checks an update as a create, less the name.
// Kubernetes: ValidateNetworkPolicyUpdate.
func validateNetworkPolicyUpdate(np, old *api.NetworkPolicy) apierrors.FieldErrors {
	errs := validateObjectMetaUpdate(nil, &np.Metadata, &old.Metadata, metadataPath)
	return validateNetworkPolicySpec(errs, &np.Spec, pathAt("spec"))
}

func validateNetworkPolicySpec(errs apierrors.FieldErrors, spec *api.NetworkPolicySpec, p fieldPath) apierrors.FieldErrors {
	errs = validateLabelSelector(errs, &spec.PodSelector, p.child("podSelector"))
	for i, rule := range spec.Ingress {
		errs = validateNetworkPolicyRule(errs, rule.Ports, rule.From, p.child("ingress").index(i), "from")
	}
	for i, rule := range spec.Egress {
		errs = validateNetworkPolicyRule(errs, rule.Ports, rule.To, p.child("egress").index(i), "to")
	}
	if len(spec.PolicyTypes) > 2 {
		quoted := make([]string, len(spec.PolicyTypes))
		for i, t := range spec.PolicyTypes {
			quoted[i] = strconv.Quote(string(t))
		}
		bad := goSyntax("[]networking.PolicyType{" + strings.Join(quoted, ", ") + "}")
		return append(errs, Invalid(p.child("policyTypes").path(), bad, "may not specify more than two policyTypes"))
	}
	for i, t := range spec.PolicyTypes {
		if t != api.PolicyTypeIngress && t != api.PolicyTypeEgress {
			errs = append(errs, NotSupported(p.child("policyTypes").index(i).path(), t, string(api.PolicyTypeIngress), string(api.PolicyTypeEgress)))
		}
	}
	return errs
}

// validateNetworkPolicyRule checks an ingress or egress rule at p: its
// ports, and its peers, under "from" or "to".
func validateNetworkPolicyRule(errs apierrors.FieldErrors, ports []api.NetworkPolicyPort, peers []api.NetworkPolicyPeer, p fieldPath, peersField string) apierrors.FieldErrors {
	for j := range ports {
		errs = validateNetworkPolicyPort(errs, &ports[j], p.child("ports").index(j))
	}
	for j := range peers {
		errs = validateNetworkPolicyPeer(errs, &peers[j], p.child(peersField).index(j))
	}
	return errs
}

// validateNetworkPolicyPort: a known protocol; a port number or name; an
// end port only after a numeric port, and not below it. Kubernetes:
// ValidateNetworkPolicyPort.
func validateNetworkPolicyPort(errs apierrors.FieldErrors, port *api.NetworkPolicyPort, p fieldPath) apierrors.FieldErrors {
	if pr := port.Protocol; pr != nil && *pr != api.ProtocolTCP && *pr != api.ProtocolUDP && *pr != api.ProtocolSCTP {
		errs = append(errs, NotSupported(p.child("protocol").path(), *pr, string(api.ProtocolTCP), string(api.ProtocolUDP), string(api.ProtocolSCTP)))
	}
	ep := p.child("endPort")
	switch {
	case port.Port == nil:
		if port.EndPort != nil {
			errs = append(errs, Invalid(ep.path(), *port.EndPort, "may not be specified when `port` is not specified"))
		}
	case port.Port.Type == api.Int:
		errs = validatePortNumber(errs, port.Port.IntVal, p.child("port"))
		if port.EndPort != nil {
			if *port.EndPort < port.Port.IntVal {
				errs = append(errs, Invalid(ep.path(), *port.EndPort, "must be greater than or equal to `port`"))
			}
			errs = validatePortNumber(errs, *port.EndPort, ep)
		}
	default:
		if port.EndPort != nil {
			errs = append(errs, Invalid(ep.path(), *port.EndPort, "may not be specified when `port` is non-numeric"))
		}
		errs = invalidEach(errs, p.child("port"), port.Port.StrVal, portNameMsgs(port.Port.StrVal))
	}
	return errs
}

// validateNetworkPolicyPeer: at least one selector or an IP block, and an
// IP block alone. Kubernetes: ValidateNetworkPolicyPeer.
func validateNetworkPolicyPeer(errs apierrors.FieldErrors, peer *api.NetworkPolicyPeer, p fieldPath) apierrors.FieldErrors {
	n := 0
	if peer.PodSelector != nil {
		n++
		errs = validateLabelSelector(errs, peer.PodSelector, p.child("podSelector"))
	}
	if peer.NamespaceSelector != nil {
		n++
		errs = validateLabelSelector(errs, peer.NamespaceSelector, p.child("namespaceSelector"))
	}
	if peer.IPBlock != nil {
		n++
		errs = validateIPBlock(errs, peer.IPBlock, p.child("ipBlock"))
	}
	switch {
	case n == 0:
		errs = append(errs, Required(p.path(), "must specify a peer"))
	case n > 1 && peer.IPBlock != nil:
		errs = append(errs, Forbidden(p.path(), "may not specify both ipBlock and another peer"))
	}
	return errs
}

// validateIPBlock: a CIDR, and excepted CIDRs strictly inside it.
// Kubernetes: ValidateIPBlock.
func validateIPBlock(errs apierrors.FieldErrors, b *api.IPBlock, p fieldPath) apierrors.FieldErrors {
	if b.CIDR == "" {
		return append(errs, Required(p.child("cidr").path(), ""))
	}
	block, ok := parseCIDR(b.CIDR)
	if !ok {
		return validateCIDR(errs, b.CIDR, p.child("cidr"))
	}
	block = block.Masked()
	for i, except := range b.Except {
		xp := p.child("except").index(i)
		inner, ok := parseCIDR(except)
		if !ok {
			errs = validateCIDR(errs, except, xp)
			continue
		}
		if !block.Contains(inner.Masked().Addr()) || block.Bits() >= inner.Bits() {
			errs = append(errs, Invalid(xp.path(), except, "must be a strict subset of `cidr`"))
		}
	}
	return errs
}
