package apiserver

// Services: defaulting and validation. Kubernetes: SetDefaults_Service in
// pkg/apis/core/v1, the ClusterIP/ClusterIPs normalization of the service
// strategy, and ValidateService{,Update} in pkg/apis/core/validation.
// Allocating cluster IPs and node ports is the server's job, not this file's.

import (
	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/api/apierrors"
)

// serviceMeta is how services' metadata is checked: a service's name becomes
// a DNS label, so it must start with a letter.
var serviceMeta = metaRules{namespaced: true, name: nameIsDNS1035Label, kubeFinalizers: true}

// defaultService fills in what a service's creator may leave out.
func defaultService(s *api.Service) {
	spec := &s.Spec
	if spec.SessionAffinity == "" {
		spec.SessionAffinity = api.ServiceAffinityNone
	}
	if spec.Type == "" {
		spec.Type = api.ServiceTypeClusterIP
	}
	for i := range spec.Ports {
		port := &spec.Ports[i]
		if port.Protocol == "" {
			port.Protocol = api.ProtocolTCP
		}
		// No target port means the pods listen on the service's port.
		if tp := port.TargetPort; tp.Type == api.Int && tp.IntVal == 0 || tp.Type == api.String && tp.StrVal == "" {
			port.TargetPort = api.FromInt(int(port.Port))
		}
	}
	if externallyAccessible(s) && spec.ExternalTrafficPolicy == "" {
		spec.ExternalTrafficPolicy = api.ExternalTrafficPolicyCluster
	}
	if spec.InternalTrafficPolicy == nil && spec.Type != api.ServiceTypeExternalName {
		policy := api.InternalTrafficPolicyCluster
		spec.InternalTrafficPolicy = &policy
	}
	// clusterIP is clusterIPs[0]: a client may set either, as in Kubernetes.
	switch {
	case spec.Type == api.ServiceTypeExternalName:
	case spec.ClusterIP != "" && len(spec.ClusterIPs) == 0:
		spec.ClusterIPs = []string{spec.ClusterIP}
	case spec.ClusterIP == "" && len(spec.ClusterIPs) > 0:
		spec.ClusterIP = spec.ClusterIPs[0]
	}
}

// supportedServiceTypes, in Kubernetes' (sorted) order.
var supportedServiceTypes = [...]string{
	string(api.ServiceTypeClusterIP), string(api.ServiceTypeExternalName),
	string(api.ServiceTypeLoadBalancer), string(api.ServiceTypeNodePort),
}

// validateService checks a service on create.
func validateService(s *api.Service) apierrors.FieldErrors {
	errs := validateObjectMeta(nil, &s.Metadata, serviceMeta, metadataPath)
	spec := &s.Spec
	p := pathAt("spec")
	headless := spec.ClusterIP == api.ClusterIPNone
	if len(spec.Ports) == 0 && !headless && spec.Type != api.ServiceTypeExternalName {
		errs = append(errs, Required(p.child("ports").path(), ""))
	}
	switch spec.Type {
	case api.ServiceTypeLoadBalancer, api.ServiceTypeNodePort:
		if headless {
			errs = append(errs, Invalid(p.child("clusterIPs").index(0).path(), spec.ClusterIP,
				"may not be set to 'None' for "+string(spec.Type)+" services"))
		}
	case api.ServiceTypeExternalName:
		errs = validateExternalName(errs, spec, p)
	}
	for i := range spec.Ports {
		errs = validateServicePort(errs, spec.Ports, i, p.child("ports").index(i))
	}
	if spec.Selector != nil {
		errs = validateLabels(errs, spec.Selector, p.child("selector"))
	}
	switch spec.SessionAffinity {
	case api.ServiceAffinityNone, api.ServiceAffinityClientIP:
	case "":
		errs = append(errs, Required(p.child("sessionAffinity").path(), ""))
	default:
		errs = append(errs, NotSupported(p.child("sessionAffinity").path(), spec.SessionAffinity,
			string(api.ServiceAffinityClientIP), string(api.ServiceAffinityNone)))
	}
	if spec.Type != api.ServiceTypeExternalName {
		errs = validateClusterIPs(errs, spec, p)
	}
	switch spec.Type {
	case api.ServiceTypeClusterIP, api.ServiceTypeNodePort, api.ServiceTypeLoadBalancer, api.ServiceTypeExternalName:
	case "":
		errs = append(errs, Required(p.child("type").path(), ""))
	default:
		errs = append(errs, NotSupported(p.child("type").path(), spec.Type, supportedServiceTypes[:]...))
	}
	errs = validateServicePortUniqueness(errs, spec, p)
	errs = validateExternalTrafficPolicy(errs, s, p)
	return validateInternalTrafficPolicy(errs, spec, p)
}

// validateExternalTrafficPolicy: a policy only for services reached from
// outside, and a health check node port only for a Local LoadBalancer.
// Kubernetes: validateServiceExternalTrafficPolicy. Its "healthCheckNodePort:
// Required value" cannot happen here or there: the port is allocated
// before kube-apiserver validates, and only after miniplane does.
func validateExternalTrafficPolicy(errs apierrors.FieldErrors, s *api.Service, p fieldPath) apierrors.FieldErrors {
	spec := &s.Spec
	switch {
	case !externallyAccessible(s):
		if spec.ExternalTrafficPolicy != "" {
			errs = append(errs, Invalid(p.child("externalTrafficPolicy").path(), spec.ExternalTrafficPolicy, "may only be set for externally-accessible services"))
		}
	case spec.ExternalTrafficPolicy == "":
		errs = append(errs, Required(p.child("externalTrafficPolicy").path(), ""))
	case spec.ExternalTrafficPolicy != api.ExternalTrafficPolicyCluster && spec.ExternalTrafficPolicy != api.ExternalTrafficPolicyLocal:
		errs = append(errs, NotSupported(p.child("externalTrafficPolicy").path(), spec.ExternalTrafficPolicy,
			api.ExternalTrafficPolicyCluster, api.ExternalTrafficPolicyLocal))
	}
	hp := p.child("healthCheckNodePort")
	switch {
	case !needsHealthCheck(s):
		if spec.HealthCheckNodePort != 0 {
			errs = append(errs, Invalid(hp.path(), spec.HealthCheckNodePort, "may only be set when `type` is 'LoadBalancer' and `externalTrafficPolicy` is 'Local'"))
		}
	case spec.HealthCheckNodePort != 0:
		errs = validatePortNumber(errs, spec.HealthCheckNodePort, hp)
	}
	return errs
}

// validateExternalName: an ExternalName service is a DNS alias, with no
// cluster IP of its own.
func validateExternalName(errs apierrors.FieldErrors, spec *api.ServiceSpec, p fieldPath) apierrors.FieldErrors {
	switch {
	case len(spec.ClusterIPs) > 0:
		errs = append(errs, Forbidden(p.child("clusterIPs").path(), "may not be set for ExternalName services"))
	case spec.ClusterIP != "":
		errs = append(errs, Forbidden(p.child("clusterIP").path(), "may not be set for ExternalName services"))
	}
	if len(spec.IPFamilies) > 0 {
		errs = append(errs, Forbidden(p.child("ipFamilies").path(), "may not be set for ExternalName services"))
	}
	if spec.IPFamilyPolicy != nil {
		errs = append(errs, Forbidden(p.child("ipFamilyPolicy").path(), "may not be set for ExternalName services"))
	}
	// A trailing dot marks the name fully qualified.
	name := spec.ExternalName
	if len(name) > 0 && name[len(name)-1] == '.' {
		name = name[:len(name)-1]
	}
	if name == "" {
		return append(errs, Required(p.child("externalName").path(), ""))
	}
	return validateDNS1123SubdomainField(errs, name, p.child("externalName"))
}

// validateServicePort checks ports[i]. Names are DNS labels, required when
// the service has more than one port, and unique. Kubernetes:
// validateServicePort.
func validateServicePort(errs apierrors.FieldErrors, ports []api.ServicePort, i int, p fieldPath) apierrors.FieldErrors {
	sp := &ports[i]
	if sp.Name == "" {
		if len(ports) > 1 {
			errs = append(errs, Required(p.child("name").path(), ""))
		}
	} else {
		errs = validateDNS1123LabelField(errs, sp.Name, p.child("name"))
		for j := range i {
			if ports[j].Name == sp.Name {
				errs = append(errs, Duplicate(p.child("name").path(), sp.Name))
				break
			}
		}
	}
	errs = validatePortNumber(errs, sp.Port, p.child("port"))
	errs = validateProtocol(errs, sp.Protocol, p.child("protocol"))
	errs = validatePortNumOrName(errs, sp.TargetPort, p.child("targetPort"))
	if sp.AppProtocol != nil {
		errs = validateQualifiedNameField(errs, *sp.AppProtocol, p.child("appProtocol"))
	}
	return errs
}

// validateServicePortUniqueness: node ports only on services that expose
// them, and no two ports (or node ports) with the same number and protocol.
func validateServicePortUniqueness(errs apierrors.FieldErrors, spec *api.ServiceSpec, p fieldPath) apierrors.FieldErrors {
	ports := spec.Ports
	if spec.Type == api.ServiceTypeClusterIP {
		for i := range ports {
			if ports[i].NodePort != 0 {
				errs = append(errs, Forbidden(p.child("ports").index(i).child("nodePort").path(), "may not be used when `type` is 'ClusterIP'"))
			}
		}
	}
	for i := range ports {
		if ports[i].NodePort == 0 {
			continue
		}
		for j := range i {
			if ports[j].NodePort == ports[i].NodePort && ports[j].Protocol == ports[i].Protocol {
				errs = append(errs, Duplicate(p.child("ports").index(i).child("nodePort").path(), ports[i].NodePort))
				break
			}
		}
	}
	for i := range ports {
		for j := range i {
			if ports[j].Port == ports[i].Port && ports[j].Protocol == ports[i].Protocol {
				key := api.ServicePort{Protocol: ports[i].Protocol, Port: ports[i].Port}
				errs = append(errs, Duplicate(p.child("ports").index(i).path(), jsonValue{key}))
				break
			}
		}
	}
	return errs
}

// validateClusterIPs checks clusterIP and clusterIPs (not of ExternalName
// services): "None" or IP addresses, at most one of each IP family, with
// clusterIP first. Kubernetes: ValidateServiceClusterIPsRelatedFields.
func validateClusterIPs(errs apierrors.FieldErrors, spec *api.ServiceSpec, p fieldPath) apierrors.FieldErrors {
	ipsPath := p.child("clusterIPs")
	if spec.ClusterIP != "" && spec.ClusterIP != api.ClusterIPNone {
		errs = validateIP(errs, spec.ClusterIP, p.child("clusterIP"))
	}
	ips := spec.ClusterIPs
	switch {
	case len(ips) == 0:
	case spec.ClusterIP == "":
		errs = append(errs, Invalid(ipsPath.path(), ips, "must be empty when `clusterIP` is not specified"))
	case ips[0] != spec.ClusterIP:
		errs = append(errs, Invalid(ipsPath.path(), ips, "first value must match `clusterIP`"))
	}
	for i, family := range spec.IPFamilies {
		if family != api.IPv4Protocol && family != api.IPv6Protocol {
			errs = append(errs, NotSupported(p.child("ipFamilies").index(i).path(), family, string(api.IPv4Protocol), string(api.IPv6Protocol)))
		}
		for j := range i {
			if spec.IPFamilies[j] == family {
				errs = append(errs, Duplicate(p.child("ipFamilies").index(i).path(), family))
				break
			}
		}
	}
	if pol := spec.IPFamilyPolicy; pol != nil {
		switch *pol {
		case api.IPFamilyPolicySingleStack, api.IPFamilyPolicyPreferDualStack, api.IPFamilyPolicyRequireDualStack:
		default:
			errs = append(errs, NotSupported(p.child("ipFamilyPolicy").path(), *pol,
				api.IPFamilyPolicyPreferDualStack, api.IPFamilyPolicyRequireDualStack, api.IPFamilyPolicySingleStack))
		}
	}
	if len(ips) > 0 && ips[0] == api.ClusterIPNone {
		if len(ips) > 1 {
			errs = append(errs, Invalid(ipsPath.path(), ips, "'None' must be the first and only value"))
		}
		return errs
	}
	valid := true
	for i, ip := range ips {
		if i == 0 && ip == spec.ClusterIP {
			valid = valid && spec.ClusterIP != api.ClusterIPNone && ipValid(ip)
			continue // reported as clusterIP
		}
		if !ipValid(ip) {
			valid = false
			errs = validateIP(errs, ip, ipsPath.index(i))
		}
	}
	if len(ips) > 2 {
		errs = append(errs, Invalid(ipsPath.path(), ips, "may only hold up to 2 values"))
	} else if len(ips) == 2 && valid && isIPv4(ips[0]) == isIPv4(ips[1]) {
		errs = append(errs, Invalid(ipsPath.path(), ips, "may specify no more than one IP for each IP family"))
	}
	return errs
}

func ipValid(s string) bool {
	_, ok := parseIP(s)
	return ok
}

func isIPv4(s string) bool {
	addr, _ := parseIP(s)
	return addr.Unmap().Is4()
}

// validateInternalTrafficPolicy: Kubernetes'
// validateServiceInternalTrafficFieldsValue.
func validateInternalTrafficPolicy(errs apierrors.FieldErrors, spec *api.ServiceSpec, p fieldPath) apierrors.FieldErrors {
	pol := spec.InternalTrafficPolicy
	if pol == nil {
		switch spec.Type {
		case api.ServiceTypeClusterIP, api.ServiceTypeNodePort, api.ServiceTypeLoadBalancer:
			errs = append(errs, Required(p.child("internalTrafficPolicy").path(), "must be specified when `type` is '"+string(spec.Type)+"'"))
		}
		return errs
	}
	if *pol != api.InternalTrafficPolicyCluster && *pol != api.InternalTrafficPolicyLocal {
		errs = append(errs, NotSupported(p.child("internalTrafficPolicy").path(), *pol,
			api.InternalTrafficPolicyCluster, api.InternalTrafficPolicyLocal))
	}
	return errs
}

// validateServiceUpdate checks an update: a service keeps its identity and
// its cluster IP once it has one (the server carries the old clusterIP into
// an update that leaves it empty before this runs). Its type may change;
// to or from ExternalName the cluster IP goes or comes with it.
func validateServiceUpdate(s, old *api.Service) apierrors.FieldErrors {
	errs := validateService(s)
	errs = validateObjectMetaUpdate(errs, &s.Metadata, &old.Metadata, metadataPath)
	if old.Spec.ClusterIP != "" && s.Spec.ClusterIP != old.Spec.ClusterIP &&
		s.Spec.Type != api.ServiceTypeExternalName && old.Spec.Type != api.ServiceTypeExternalName {
		errs = append(errs, Invalid(pathAt("spec").child("clusterIP").path(), s.Spec.ClusterIP, msgImmutable))
	}
	if needsHealthCheck(old) && needsHealthCheck(s) && s.Spec.HealthCheckNodePort != old.Spec.HealthCheckNodePort {
		errs = append(errs, Forbidden(NewPath("spec", "healthCheckNodePort"), msgImmutable))
	}
	return errs
}
