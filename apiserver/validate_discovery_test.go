package apiserver

import (
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/miniplane/miniplane/api"
)

// Scenarios ported from Kubernetes' pkg/apis/discovery/validation tests.

func validEndpointSlice() *api.EndpointSlice {
	tcp := api.ProtocolTCP
	return &api.EndpointSlice{
		Metadata:    api.ObjectMeta{Name: "web-abc12", Namespace: "default", Labels: map[string]string{"kubernetes.io/service-name": "web"}},
		AddressType: api.AddressTypeIPv4,
		Endpoints: []api.Endpoint{{
			Addresses:  []string{"10.244.1.5"},
			Conditions: api.EndpointConditions{Ready: ptrTo(true), Serving: ptrTo(true), Terminating: ptrTo(false)},
			NodeName:   ptrTo("node-1"),
			Zone:       ptrTo("zone-a"),
			TargetRef:  &api.ObjectReference{Kind: "Pod", Namespace: "default", Name: "web-1"},
		}},
		Ports: []api.EndpointSlicePort{{Name: ptrTo("http"), Protocol: &tcp, Port: ptrTo(int32(8080))}},
	}
}

func TestDefaultEndpointSlice(t *testing.T) {
	s := &api.EndpointSlice{Ports: []api.EndpointSlicePort{{Port: ptrTo(int32(80))}}}
	defaultEndpointSlice(s)
	tcp := api.ProtocolTCP
	assert.Equal(t, []api.EndpointSlicePort{{Name: ptrTo(""), Protocol: &tcp, Port: ptrTo(int32(80))}}, s.Ports,
		"a port's name defaults to empty and its protocol to TCP")
}

func TestValidateEndpointSlice(t *testing.T) {
	udp, http := api.Protocol("UDP"), api.Protocol("HTTP")
	addresses := func(n int) []string {
		out := make([]string, n)
		for i := range out {
			out[i] = "10.0.0." + strconv.Itoa(i%250+1)
		}
		return out
	}
	for _, tc := range []struct {
		name   string
		change func(*api.EndpointSlice)
		want   string
		causes []cause
	}{
		{name: "valid", change: func(*api.EndpointSlice) {}},
		{name: "no endpoints or ports", change: func(s *api.EndpointSlice) { s.Endpoints, s.Ports = nil, nil }},
		{name: "ipv6", change: func(s *api.EndpointSlice) {
			s.AddressType = api.AddressTypeIPv6
			s.Endpoints[0].Addresses = []string{"2001:db8::5"}
		}},
		{name: "fqdn", change: func(s *api.EndpointSlice) {
			s.AddressType = api.AddressTypeFQDN
			s.Endpoints[0].Addresses = []string{"web.example.com."}
		}},
		{name: "port without number or name", change: func(s *api.EndpointSlice) { s.Ports = []api.EndpointSlicePort{{}} }},
		{name: "two unnamed ports", change: func(s *api.EndpointSlice) {
			s.Ports = []api.EndpointSlicePort{{Port: ptrTo(int32(80))}, {Protocol: &udp, Port: ptrTo(int32(53))}}
		}, want: `ports[1].name: Duplicate value: ""`, causes: []cause{{duplicate, "ports[1].name"}}},
		{name: "no address type", change: func(s *api.EndpointSlice) { s.AddressType = "" },
			want: "addressType: Required value", causes: []cause{{required, "addressType"}}},
		{name: "deprecated IP address type", change: func(s *api.EndpointSlice) { s.AddressType = "IP" },
			want:   `addressType: Unsupported value: "IP": supported values: "FQDN", "IPv4", "IPv6"`,
			causes: []cause{{notSupported, "addressType"}}},
		{name: "no addresses", change: func(s *api.EndpointSlice) { s.Endpoints[0].Addresses = nil },
			want:   "endpoints[0].addresses: Required value: must contain at least 1 address",
			causes: []cause{{required, "endpoints[0].addresses"}}},
		{name: "101 addresses", change: func(s *api.EndpointSlice) { s.Endpoints[0].Addresses = addresses(101) },
			want:   "endpoints[0].addresses: Too many: 101: must have at most 100 items",
			causes: []cause{{api.CauseTypeFieldValueTooMany, "endpoints[0].addresses"}}},
		{name: "1001 endpoints", change: func(s *api.EndpointSlice) {
			s.Endpoints = make([]api.Endpoint, 1001)
		}, want: "endpoints: Too many: 1001: must have at most 1000 items", causes: []cause{{api.CauseTypeFieldValueTooMany, "endpoints"}}},
		{name: "ipv6 address in an IPv4 slice", change: func(s *api.EndpointSlice) { s.Endpoints[0].Addresses = []string{"2001:db8::5"} },
			want: `endpoints[0].addresses[0]: Invalid value: "2001:db8::5": must be a valid IPv4 address`, causes: []cause{{invalid, "endpoints[0].addresses[0]"}}},
		{name: "ipv4 address in an IPv6 slice", change: func(s *api.EndpointSlice) { s.AddressType = api.AddressTypeIPv6 },
			want: `endpoints[0].addresses[0]: Invalid value: "10.244.1.5": must be a valid IPv6 address`, causes: []cause{{invalid, "endpoints[0].addresses[0]"}}},
		{name: "loopback", change: func(s *api.EndpointSlice) { s.Endpoints[0].Addresses = []string{"127.0.0.1"} },
			want:   `endpoints[0].addresses[0]: Invalid value: "127.0.0.1": may not be in the loopback range (127.0.0.0/8, ::1/128)`,
			causes: []cause{{invalid, "endpoints[0].addresses[0]"}}},
		{name: "not an address", change: func(s *api.EndpointSlice) { s.Endpoints[0].Addresses = []string{"web"} },
			want:   `[endpoints[0].addresses[0]: Invalid value: "web": must be a valid IPv4 address, endpoints[0].addresses[0]: Invalid value: "web": must be a valid IP address]`,
			causes: []cause{{invalid, "endpoints[0].addresses[0]"}, {invalid, "endpoints[0].addresses[0]"}}},
		{name: "one-label fqdn", change: func(s *api.EndpointSlice) {
			s.AddressType = api.AddressTypeFQDN
			s.Endpoints[0].Addresses = []string{"web"}
		}, want: `endpoints[0].addresses[0]: Invalid value: "web": should be a domain with at least two segments separated by dots`,
			causes: []cause{{invalid, "endpoints[0].addresses[0]"}}},
		{name: "bad fqdn", change: func(s *api.EndpointSlice) {
			s.AddressType = api.AddressTypeFQDN
			s.Endpoints[0].Addresses = []string{"Web.example.com"}
		}, want: `endpoints[0].addresses[0]: Invalid value: "Web.example.com": ` + msgDNS1123Subdomain,
			causes: []cause{{invalid, "endpoints[0].addresses[0]"}}},
		{name: "bad node name", change: func(s *api.EndpointSlice) { s.Endpoints[0].NodeName = ptrTo("Node_1") },
			want: `endpoints[0].nodeName: Invalid value: "Node_1": ` + msgDNS1123Subdomain, causes: []cause{{invalid, "endpoints[0].nodeName"}}},
		{name: "bad hostname", change: func(s *api.EndpointSlice) { s.Endpoints[0].Hostname = ptrTo("a.b") },
			want: `endpoints[0].hostname: Invalid value: "a.b": must not contain dots`, causes: []cause{{invalid, "endpoints[0].hostname"}}},
		{name: "duplicate zone hints", change: func(s *api.EndpointSlice) {
			s.Endpoints[0].Hints = &api.EndpointHints{ForZones: []api.ForZone{{Name: "zone-a"}, {Name: "zone-a"}}}
		}, want: `endpoints[0].hints.forZones[1].name: Duplicate value: "zone-a"`, causes: []cause{{duplicate, "endpoints[0].hints.forZones[1].name"}}},
		{name: "bad port name", change: func(s *api.EndpointSlice) { s.Ports[0].Name = ptrTo("HTTP") },
			want: `ports[0].name: Invalid value: "HTTP": ` + msgDNS1123Label, causes: []cause{{invalid, "ports[0].name"}}},
		{name: "unknown protocol", change: func(s *api.EndpointSlice) { s.Ports[0].Protocol = &http },
			want:   `ports[0].protocol: Unsupported value: "HTTP": supported values: "SCTP", "TCP", "UDP"`,
			causes: []cause{{notSupported, "ports[0].protocol"}}},
		{name: "bad app protocol", change: func(s *api.EndpointSlice) { s.Ports[0].AppProtocol = ptrTo("-h2") },
			want: `ports[0].appProtocol: Invalid value: "-h2": name part ` + msgQualifiedNamePart, causes: []cause{{invalid, "ports[0].appProtocol"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := validEndpointSlice()
			tc.change(s)
			defaultEndpointSlice(s)
			assertErrors(t, validateEndpointSlice(s), tc.want, tc.causes)
		})
	}
}

func TestValidateEndpointSliceUpdate(t *testing.T) {
	old := validEndpointSlice()
	s := old.DeepCopy()
	s.Endpoints[0].Addresses = []string{"10.244.2.7"}
	assert.Nil(t, validateEndpointSliceUpdate(s, old), "endpoints and ports may change")

	s.AddressType = api.AddressTypeFQDN
	s.Endpoints[0].Addresses = []string{"web.example.com"}
	assertErrors(t, validateEndpointSliceUpdate(s, old), `addressType: Invalid value: "FQDN": field is immutable`,
		[]cause{{invalid, "addressType"}})
}

func TestSliceCells(t *testing.T) {
	for _, tc := range []struct {
		name string
		s    *api.EndpointSlice
		want []string // ports, endpoints
	}{
		{name: "empty", s: &api.EndpointSlice{}, want: []string{"<unset>", "<unset>"}},
		{name: "one", s: validEndpointSlice(), want: []string{"8080", "10.244.1.5"}},
		{name: "more than three", s: &api.EndpointSlice{
			Ports:     []api.EndpointSlicePort{{Port: ptrTo(int32(1))}, {Name: ptrTo("dns")}, {}, {Port: ptrTo(int32(4))}},
			Endpoints: []api.Endpoint{{Addresses: []string{"10.0.0.1", "10.0.0.2"}}, {Addresses: []string{"10.0.0.3", "10.0.0.4", "10.0.0.5"}}},
		}, want: []string{"1,dns,* + 1 more...", "10.0.0.1,10.0.0.2,10.0.0.3 + 2 more..."}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, []string{slicePortsString(tc.s.Ports), sliceEndpointsString(tc.s.Endpoints)})
		})
	}
}
