package apiserver

// EndpointSlices: defaulting and validation. Kubernetes: SetDefaults_EndpointPort
// in pkg/apis/discovery/v1 and ValidateEndpointSlice{Create,Update} in
// pkg/apis/discovery/validation.

import (
	"strconv"
	"strings"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/api/apierrors"
)

// Kubernetes' bounds on a slice.
const (
	maxSliceEndpoints      = 1000
	maxSliceAddresses      = 100
	maxSlicePorts          = 20000
	maxSliceTopologyLabels = 16
	maxSliceZoneHints      = 8
)

// supportedAddressTypes are the address types, in Kubernetes' (sorted) order.
var supportedAddressTypes = []string{string(api.AddressTypeFQDN), string(api.AddressTypeIPv4), string(api.AddressTypeIPv6)}

// endpointSliceMeta is how a slice's metadata is checked: the core group's
// rules (ValidateEndpointSlice calls core's ValidateObjectMeta).
var endpointSliceMeta = metaRules{namespaced: true, name: nameIsDNSSubdomain, kubeFinalizers: true}

// defaultEndpointSlice: a port's name defaults to "" and its protocol to TCP.
func defaultEndpointSlice(s *api.EndpointSlice) {
	for i := range s.Ports {
		p := &s.Ports[i]
		if p.Name == nil {
			p.Name = new(string)
		}
		if p.Protocol == nil {
			tcp := api.ProtocolTCP
			p.Protocol = &tcp
		}
	}
}

// validateEndpointSlice checks a slice on create.
func validateEndpointSlice(s *api.EndpointSlice) apierrors.FieldErrors {
	errs := validateObjectMeta(nil, &s.Metadata, endpointSliceMeta, metadataPath)
	switch {
	case s.AddressType == "":
		errs = append(errs, Required("addressType", ""))
	case !isSupportedAddressType(s.AddressType):
		errs = append(errs, NotSupported("addressType", s.AddressType, supportedAddressTypes...))
	}
	errs = validateSliceEndpoints(errs, s.Endpoints, s.AddressType, pathAt("endpoints"))
	return validateSlicePorts(errs, s.Ports, pathAt("ports"))
}

// validateEndpointSliceUpdate checks an update: the address type is
// immutable.
func validateEndpointSliceUpdate(s, old *api.EndpointSlice) apierrors.FieldErrors {
	errs := validateEndpointSlice(s)
	errs = validateObjectMetaUpdate(errs, &s.Metadata, &old.Metadata, metadataPath)
	if s.AddressType != old.AddressType {
		errs = append(errs, Invalid("addressType", s.AddressType, msgImmutable))
	}
	return errs
}

func isSupportedAddressType(t api.AddressType) bool {
	return t == api.AddressTypeIPv4 || t == api.AddressTypeIPv6 || t == api.AddressTypeFQDN
}

// tooMany is Kubernetes' field.TooMany: a list longer than its bound.
func tooMany(p fieldPath, actual, most int) apierrors.FieldError {
	return apierrors.FieldError{Type: api.CauseTypeFieldValueTooMany, Field: string(p.path()), BadValue: actual,
		Detail: "must have at most " + strconv.Itoa(most) + " items"}
}

// validateSliceEndpoints: Kubernetes' validateEndpoints. Addresses are
// checked by the slice's address type; an unknown type (already reported)
// leaves them unchecked.
func validateSliceEndpoints(errs apierrors.FieldErrors, endpoints []api.Endpoint, addrType api.AddressType, p fieldPath) apierrors.FieldErrors {
	if len(endpoints) > maxSliceEndpoints {
		return append(errs, tooMany(p, len(endpoints), maxSliceEndpoints))
	}
	for i := range endpoints {
		e, ip := &endpoints[i], p.index(i)
		ap := ip.child("addresses")
		if len(e.Addresses) == 0 {
			errs = append(errs, Required(ap.path(), "must contain at least 1 address"))
		} else if len(e.Addresses) > maxSliceAddresses {
			errs = append(errs, tooMany(ap, len(e.Addresses), maxSliceAddresses))
		}
		for j, a := range e.Addresses {
			errs = validateSliceAddress(errs, a, addrType, ap.index(j))
		}
		if e.NodeName != nil {
			errs = validateNameField(errs, *e.NodeName, nameIsDNSSubdomain, ip.child("nodeName"))
		}
		tp := ip.child("deprecatedTopology")
		if len(e.DeprecatedTopology) > maxSliceTopologyLabels {
			errs = append(errs, tooMany(tp, len(e.DeprecatedTopology), maxSliceTopologyLabels))
		}
		errs = validateLabels(errs, e.DeprecatedTopology, tp)
		if e.Hostname != nil {
			errs = validateDNS1123LabelField(errs, *e.Hostname, ip.child("hostname"))
		}
		if e.Hints != nil {
			errs = validateSliceHints(errs, e.Hints, ip.child("hints").child("forZones"))
		}
	}
	return errs
}

// validateSliceAddress checks one address against the slice's type.
// Kubernetes: IsValidIPv4Address/IsValidIPv6Address then ValidateEndpointIP,
// or IsFullyQualifiedDomainName.
func validateSliceAddress(errs apierrors.FieldErrors, a string, t api.AddressType, p fieldPath) apierrors.FieldErrors {
	switch t {
	case api.AddressTypeIPv4, api.AddressTypeIPv6:
		addr, ok := parseIP(a)
		if t == api.AddressTypeIPv4 && (!ok || !addr.Unmap().Is4()) {
			errs = append(errs, Invalid(p.path(), a, "must be a valid IPv4 address"))
		}
		if t == api.AddressTypeIPv6 && (!ok || !addr.Is6() || addr.Is4In6()) {
			errs = append(errs, Invalid(p.path(), a, "must be a valid IPv6 address"))
		}
		return validateNonSpecialIP(errs, a, p)
	case api.AddressTypeFQDN:
		return validateFQDN(errs, a, p)
	}
	return errs
}

// validateFQDN: Kubernetes' IsFullyQualifiedDomainName. A trailing dot is
// allowed; the name must be a subdomain of at least two labels.
func validateFQDN(errs apierrors.FieldErrors, name string, p fieldPath) apierrors.FieldErrors {
	if name == "" {
		return append(errs, Required(p.path(), ""))
	}
	name = strings.TrimSuffix(name, ".")
	if msgs := dns1123SubdomainMsgs(name); len(msgs) > 0 {
		return invalidEach(errs, p, name, msgs)
	}
	labels := strings.Split(name, ".")
	if len(labels) < 2 {
		return append(errs, Invalid(p.path(), name, "should be a domain with at least two segments separated by dots"))
	}
	for _, l := range labels {
		errs = invalidEach(errs, p, l, dns1123LabelMsgs(l))
	}
	return errs
}

// validateSliceHints: Kubernetes' validateHints. p is hints.forZones.
func validateSliceHints(errs apierrors.FieldErrors, h *api.EndpointHints, p fieldPath) apierrors.FieldErrors {
	if len(h.ForZones) > maxSliceZoneHints {
		return append(errs, tooMany(p, len(h.ForZones), maxSliceZoneHints))
	}
	seen := make(map[string]bool, len(h.ForZones))
	for i, z := range h.ForZones {
		zp := p.index(i).child("name")
		if seen[z.Name] {
			errs = append(errs, Duplicate(zp.path(), z.Name))
		}
		seen[z.Name] = true
		errs = invalidEach(errs, zp, z.Name, labelValueMsgs(z.Name))
	}
	return errs
}

// validateSlicePorts: Kubernetes' validatePorts. Names (defaulted to "")
// are DNS labels when set and unique; the protocol is required.
func validateSlicePorts(errs apierrors.FieldErrors, ports []api.EndpointSlicePort, p fieldPath) apierrors.FieldErrors {
	if len(ports) > maxSlicePorts {
		return append(errs, tooMany(p, len(ports), maxSlicePorts))
	}
	seen := make(map[string]bool, len(ports))
	for i := range ports {
		port, pp := &ports[i], p.index(i)
		var name string
		if port.Name != nil {
			name = *port.Name
		}
		if name != "" {
			errs = validateDNS1123LabelField(errs, name, pp.child("name"))
		}
		if seen[name] {
			errs = append(errs, Duplicate(pp.child("name").path(), port.Name))
		}
		seen[name] = true
		if port.Protocol == nil {
			errs = append(errs, Required(pp.child("protocol").path(), ""))
		} else {
			errs = validateProtocol(errs, *port.Protocol, pp.child("protocol"))
		}
		if port.AppProtocol != nil {
			errs = validateQualifiedNameField(errs, *port.AppProtocol, pp.child("appProtocol"))
		}
	}
	return errs
}
