package apiserver

// Endpoints: defaulting and validation. Kubernetes: SetDefaults_Endpoints in
// pkg/apis/core/v1 and ValidateEndpoints{Create,Update} in
// pkg/apis/core/validation.

import (
	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/api/apierrors"
)

// endpointsMeta is how endpoints' metadata is checked.
var endpointsMeta = metaRules{namespaced: true, name: nameIsDNSSubdomain, kubeFinalizers: true}

// defaultEndpoints: a port's protocol defaults to TCP.
func defaultEndpoints(e *api.Endpoints) {
	for i := range e.Subsets {
		ports := e.Subsets[i].Ports
		for j := range ports {
			if ports[j].Protocol == "" {
				ports[j].Protocol = api.ProtocolTCP
			}
		}
	}
}

// validateEndpoints checks endpoints on create.
func validateEndpoints(e *api.Endpoints) apierrors.FieldErrors {
	errs := validateObjectMeta(nil, &e.Metadata, endpointsMeta, metadataPath)
	p := pathAt("subsets")
	for i := range e.Subsets {
		errs = validateEndpointSubset(errs, &e.Subsets[i], p.index(i))
	}
	return errs
}

// validateEndpointsUpdate checks an update: endpoints keep their identity.
func validateEndpointsUpdate(e, old *api.Endpoints) apierrors.FieldErrors {
	errs := validateEndpoints(e)
	return validateObjectMetaUpdate(errs, &e.Metadata, &old.Metadata, metadataPath)
}

// validateEndpointSubset: a subset has addresses (ready or not); a headless
// service's may have no ports. Kubernetes: validateEndpointSubsets.
func validateEndpointSubset(errs apierrors.FieldErrors, s *api.EndpointSubset, p fieldPath) apierrors.FieldErrors {
	if len(s.Addresses) == 0 && len(s.NotReadyAddresses) == 0 {
		errs = append(errs, Required(p.path(), "must specify `addresses` or `notReadyAddresses`"))
	}
	for i := range s.Addresses {
		errs = validateEndpointAddress(errs, &s.Addresses[i], p.child("addresses").index(i))
	}
	for i := range s.NotReadyAddresses {
		errs = validateEndpointAddress(errs, &s.NotReadyAddresses[i], p.child("notReadyAddresses").index(i))
	}
	for i := range s.Ports {
		errs = validateEndpointPort(errs, &s.Ports[i], len(s.Ports) > 1, p.child("ports").index(i))
	}
	return errs
}

// validateEndpointAddress: an address must be a routable IP: not
// unspecified, loopback or link-local (a service must not send traffic to
// the node itself or its metadata service). As in Kubernetes, an address
// that is no IP at all is reported by both checks.
func validateEndpointAddress(errs apierrors.FieldErrors, a *api.EndpointAddress, p fieldPath) apierrors.FieldErrors {
	errs = validateIP(errs, a.IP, p.child("ip"))
	if a.Hostname != "" {
		errs = validateDNS1123LabelField(errs, a.Hostname, p.child("hostname"))
	}
	if a.NodeName != nil {
		errs = validateNameField(errs, *a.NodeName, nameIsDNSSubdomain, p.child("nodeName"))
	}
	return validateNonSpecialIP(errs, a.IP, p.child("ip"))
}

// validateEndpointPort: Kubernetes' validateEndpointPort.
func validateEndpointPort(errs apierrors.FieldErrors, port *api.EndpointPort, requireName bool, p fieldPath) apierrors.FieldErrors {
	if port.Name == "" {
		if requireName {
			errs = append(errs, Required(p.child("name").path(), ""))
		}
	} else {
		errs = validateDNS1123LabelField(errs, port.Name, p.child("name"))
	}
	errs = validatePortNumber(errs, port.Port, p.child("port"))
	errs = validateProtocol(errs, port.Protocol, p.child("protocol"))
	if port.AppProtocol != nil {
		errs = validateQualifiedNameField(errs, *port.AppProtocol, p.child("appProtocol"))
	}
	return errs
}
