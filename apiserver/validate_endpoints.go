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
// Every address is checked, as Kubernetes does, but one equal to an address
// of old gives no error without being looked at again: old is stored, so it
// passed this validation, and what an address's check reports depends on its
// IP, hostname and node name alone (the path names where, not whether). An
// endpoints controller rewrites every address of a service on each change
// of one (100 addresses per update in the scale benchmark), so this skips
// nearly all of the IP parsing and name checks. TestValidateEndpointsUpdateIsFull
// compares it with the full check.
func validateEndpointsUpdate(e, old *api.Endpoints) apierrors.FieldErrors {
	errs := validateObjectMeta(nil, &e.Metadata, endpointsMeta, metadataPath)
	p := pathAt("subsets")
	for i := range e.Subsets {
		var was *api.EndpointSubset
		if i < len(old.Subsets) {
			was = &old.Subsets[i]
		}
		errs = validateEndpointSubsetOver(errs, &e.Subsets[i], was, p.index(i))
	}
	return validateObjectMetaUpdate(errs, &e.Metadata, &old.Metadata, metadataPath)
}

// validateEndpointSubset: a subset has addresses (ready or not); a headless
// service's may have no ports. Kubernetes: validateEndpointSubsets.
func validateEndpointSubset(errs apierrors.FieldErrors, s *api.EndpointSubset, p fieldPath) apierrors.FieldErrors {
	return validateEndpointSubsetOver(errs, s, nil, p)
}

// validateEndpointSubsetOver is validateEndpointSubset for s replacing was,
// a valid subset (nil on create): an address equal to one of was's at about
// the same place (see validAddresses) is known to be valid.
func validateEndpointSubsetOver(errs apierrors.FieldErrors, s, was *api.EndpointSubset, p fieldPath) apierrors.FieldErrors {
	if len(s.Addresses) == 0 && len(s.NotReadyAddresses) == 0 {
		errs = append(errs, Required(p.path(), "must specify `addresses` or `notReadyAddresses`"))
	}
	var wasReady, wasNotReady []api.EndpointAddress
	if was != nil {
		wasReady, wasNotReady = was.Addresses, was.NotReadyAddresses
	}
	errs = validateEndpointAddresses(errs, s.Addresses, wasReady, p.child("addresses"))
	errs = validateEndpointAddresses(errs, s.NotReadyAddresses, wasNotReady, p.child("notReadyAddresses"))
	for i := range s.Ports {
		errs = validateEndpointPort(errs, &s.Ports[i], len(s.Ports) > 1, p.child("ports").index(i))
	}
	return errs
}

// validateEndpointAddresses checks addrs, a list that replaces valid, a list
// of valid addresses. It walks both in step, as an endpoints controller
// keeps them in order: an address equal to valid's next one, or to the one
// after it (the next one was removed), is skipped and moves the walk past
// it; any other is checked in full (it is new, or out of step). So the walk
// costs a comparison per address, and only equality ever skips a check.
func validateEndpointAddresses(errs apierrors.FieldErrors, addrs, valid []api.EndpointAddress, p fieldPath) apierrors.FieldErrors {
	next := 0 // valid[:next] are behind the walk
	for i := range addrs {
		a := &addrs[i]
		switch {
		case next < len(valid) && sameAddressCheck(a, &valid[next]):
			next++
		case next+1 < len(valid) && sameAddressCheck(a, &valid[next+1]):
			next += 2
		default:
			errs = validateEndpointAddress(errs, a, p.index(i))
		}
	}
	return errs
}

// sameAddressCheck reports whether validateEndpointAddress finds the same
// errors in a and b (at the same path): it reads their IP, hostname and
// node name, nothing else.
func sameAddressCheck(a, b *api.EndpointAddress) bool {
	return a.IP == b.IP && a.Hostname == b.Hostname &&
		(a.NodeName == b.NodeName || a.NodeName != nil && b.NodeName != nil && *a.NodeName == *b.NodeName)
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
