package apiserver

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/api/apierrors"
)

// endpointSliceKind is discovery.k8s.io/v1 EndpointSlices, which the
// endpointslice and endpointslice-mirroring controllers write and the
// API server keeps for the kubernetes Service.
func endpointSliceKind() *kind {
	k := typed(&kind{
		gr: apierrors.GroupResource{Group: "discovery.k8s.io", Resource: "endpointslices"}, kind: "EndpointSlice", apiVersion: "discovery.k8s.io/v1", namespaced: true,
		newObj:  func() api.Object { return &api.EndpointSlice{} },
		columns: endpointSliceColumns,
	}, defaultEndpointSlice, validateEndpointSlice, validateEndpointSliceUpdate)
	// A slice's generation moves when anything but its metadata does, or
	// its labels do: the endpointslice controller tells its own writes
	// from older ones by it. Kubernetes: endpointSliceStrategy's
	// PrepareForUpdate.
	k.generationFields = func(o api.Object) any {
		s := o.(*api.EndpointSlice)
		return sliceGenerationFields{s.AddressType, s.Endpoints, s.Ports, s.Metadata.Labels}
	}
	return k
}

// sliceGenerationFields are what a slice's generation follows.
type sliceGenerationFields struct {
	addressType api.AddressType
	endpoints   []api.Endpoint
	ports       []api.EndpointSlicePort
	labels      map[string]string
}

// endpointSliceColumns are kubectl's columns for a slice, as Kubernetes'
// printEndpointSlice prints them.
var endpointSliceColumns = []Column{nameColumn,
	{Name: "AddressType", Type: "string", Description: "addressType specifies the type of address carried by this EndpointSlice. All addresses in this slice must be the same type. This field is immutable after creation. The following address types are currently supported:\n* IPv4: Represents an IPv4 Address.\n* IPv6: Represents an IPv6 Address.\n* FQDN: Represents a Fully Qualified Domain Name.",
		Cell: func(o api.Object) any { return string(o.(*api.EndpointSlice).AddressType) }},
	{Name: "Ports", Type: "string", Description: "ports specifies the list of network ports exposed by each endpoint in this slice. Each port must have a unique name. When ports is empty, it indicates that there are no defined ports. When a port is defined with a nil port value, it indicates \"all ports\". Each slice may include a maximum of 100 ports.",
		Cell: func(o api.Object) any { return slicePortsString(o.(*api.EndpointSlice).Ports) }},
	{Name: "Endpoints", Type: "string", Description: "endpoints is a list of unique endpoints in this slice. Each slice may include a maximum of 1000 endpoints.",
		Cell: func(o api.Object) any { return sliceEndpointsString(o.(*api.EndpointSlice).Endpoints) }},
	ageColumn,
}

// slicePortsString is kubectl's PORTS cell: the first three port numbers
// ("*" for all ports, the name when there is no number) and how many more.
func slicePortsString(ports []api.EndpointSlicePort) string {
	var list []string
	for _, p := range ports {
		switch {
		case p.Port != nil:
			list = append(list, strconv.Itoa(int(*p.Port)))
		case p.Name != nil:
			list = append(list, *p.Name)
		default:
			list = append(list, "*")
		}
	}
	return firstThree(list)
}

// sliceEndpointsString is kubectl's ENDPOINTS cell: the first three
// addresses and how many more.
func sliceEndpointsString(endpoints []api.Endpoint) string {
	var list []string
	for _, e := range endpoints {
		list = append(list, e.Addresses...)
	}
	return firstThree(list)
}

// firstThree is Kubernetes' listWithMoreString with a maximum of three:
// "a,b,c + 2 more...", or "<unset>" for none.
func firstThree(list []string) string {
	const most = 3
	if len(list) > most {
		return fmt.Sprintf("%s + %d more...", strings.Join(list[:most], ","), len(list)-most)
	}
	if len(list) == 0 {
		return "<unset>"
	}
	return strings.Join(list, ",")
}
