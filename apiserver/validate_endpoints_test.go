package apiserver

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/miniplane/miniplane/api"
)

func validEndpoints() *api.Endpoints {
	return &api.Endpoints{
		Metadata: api.ObjectMeta{Name: "web", Namespace: "default"},
		Subsets: []api.EndpointSubset{{
			Addresses: []api.EndpointAddress{
				{IP: "10.244.1.5", Hostname: "web-0", NodeName: ptrTo("node-1"), TargetRef: &api.ObjectReference{Kind: "Pod", Name: "web-0"}},
				{IP: "fd00::5"},
			},
			NotReadyAddresses: []api.EndpointAddress{{IP: "10.244.2.7"}},
			Ports:             []api.EndpointPort{{Name: "http", Port: 8080, Protocol: api.ProtocolTCP}, {Name: "dns", Port: 53, Protocol: api.ProtocolUDP}},
		}},
	}
}

func TestDefaultEndpoints(t *testing.T) {
	e := &api.Endpoints{Subsets: []api.EndpointSubset{{Ports: []api.EndpointPort{{Port: 80}, {Port: 53, Protocol: api.ProtocolUDP}}}}}
	defaultEndpoints(e)
	assert.Equal(t, []api.EndpointPort{{Port: 80, Protocol: api.ProtocolTCP}, {Port: 53, Protocol: api.ProtocolUDP}}, e.Subsets[0].Ports)
}

func TestValidateEndpoints(t *testing.T) {
	for _, tc := range []struct {
		name   string
		change func(*api.Endpoints)
		want   string
		causes []cause
	}{
		{name: "valid", change: func(*api.Endpoints) {}},
		{name: "no subsets", change: func(e *api.Endpoints) { e.Subsets = nil }},
		{name: "headless subset without ports", change: func(e *api.Endpoints) { e.Subsets[0].Ports = nil }},
		{name: "subset without addresses", change: func(e *api.Endpoints) {
			e.Subsets[0].Addresses, e.Subsets[0].NotReadyAddresses = nil, nil
		},
			want:   "subsets[0]: Required value: must specify `addresses` or `notReadyAddresses`",
			causes: []cause{{required, "subsets[0]"}}},
		{name: "not an IP", change: func(e *api.Endpoints) { e.Subsets[0].Addresses[1].IP = "web-0" },
			want: `[subsets[0].addresses[1].ip: Invalid value: "web-0": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff), ` +
				`subsets[0].addresses[1].ip: Invalid value: "web-0": must be a valid IP address]`,
			causes: []cause{{invalid, "subsets[0].addresses[1].ip"}, {invalid, "subsets[0].addresses[1].ip"}}},
		{name: "unspecified", change: func(e *api.Endpoints) { e.Subsets[0].Addresses[0].IP = "0.0.0.0" },
			want:   `subsets[0].addresses[0].ip: Invalid value: "0.0.0.0": may not be unspecified (0.0.0.0)`,
			causes: []cause{{invalid, "subsets[0].addresses[0].ip"}}},
		{name: "loopback", change: func(e *api.Endpoints) { e.Subsets[0].NotReadyAddresses[0].IP = "::1" },
			want:   `subsets[0].notReadyAddresses[0].ip: Invalid value: "::1": may not be in the loopback range (127.0.0.0/8, ::1/128)`,
			causes: []cause{{invalid, "subsets[0].notReadyAddresses[0].ip"}}},
		{name: "link-local", change: func(e *api.Endpoints) { e.Subsets[0].Addresses[0].IP = "169.254.169.254" },
			want:   `subsets[0].addresses[0].ip: Invalid value: "169.254.169.254": may not be in the link-local range (169.254.0.0/16, fe80::/10)`,
			causes: []cause{{invalid, "subsets[0].addresses[0].ip"}}},
		{name: "link-local multicast", change: func(e *api.Endpoints) { e.Subsets[0].Addresses[0].IP = "224.0.0.1" },
			want:   `subsets[0].addresses[0].ip: Invalid value: "224.0.0.1": may not be in the link-local multicast range (224.0.0.0/24, ff02::/10)`,
			causes: []cause{{invalid, "subsets[0].addresses[0].ip"}}},
		{name: "bad hostname", change: func(e *api.Endpoints) { e.Subsets[0].Addresses[0].Hostname = "web.0" },
			want: `subsets[0].addresses[0].hostname: Invalid value: "web.0": must not contain dots`, causes: []cause{{invalid, "subsets[0].addresses[0].hostname"}}},
		{name: "bad node name", change: func(e *api.Endpoints) { e.Subsets[0].Addresses[0].NodeName = ptrTo("Node 1") },
			want: `subsets[0].addresses[0].nodeName: Invalid value: "Node 1": ` + msgDNS1123Subdomain, causes: []cause{{invalid, "subsets[0].addresses[0].nodeName"}}},
		{name: "port out of range", change: func(e *api.Endpoints) { e.Subsets[0].Ports[0].Port = 65536 },
			want: "subsets[0].ports[0].port: Invalid value: 65536: must be between 1 and 65535, inclusive", causes: []cause{{invalid, "subsets[0].ports[0].port"}}},
		{name: "port names required with two ports", change: func(e *api.Endpoints) { e.Subsets[0].Ports[1].Name = "" },
			want: "subsets[0].ports[1].name: Required value", causes: []cause{{required, "subsets[0].ports[1].name"}}},
		{name: "one port needs no name", change: func(e *api.Endpoints) { e.Subsets[0].Ports = []api.EndpointPort{{Port: 80}} }},
		{name: "bad protocol", change: func(e *api.Endpoints) { e.Subsets[0].Ports[1].Protocol = "QUIC" },
			want:   `subsets[0].ports[1].protocol: Unsupported value: "QUIC": supported values: "SCTP", "TCP", "UDP"`,
			causes: []cause{{notSupported, "subsets[0].ports[1].protocol"}}},
		{name: "bad port name", change: func(e *api.Endpoints) { e.Subsets[0].Ports[1].Name = "DNS" },
			want: `subsets[0].ports[1].name: Invalid value: "DNS": ` + msgDNS1123Label, causes: []cause{{invalid, "subsets[0].ports[1].name"}}},
		{name: "bad name", change: func(e *api.Endpoints) { e.Metadata.Name = "Web" },
			want: `metadata.name: Invalid value: "Web": ` + msgDNS1123Subdomain, causes: []cause{{invalid, "metadata.name"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := validEndpoints()
			tc.change(e)
			defaultEndpoints(e)
			assertErrors(t, validateEndpoints(e), tc.want, tc.causes)
		})
	}
}

func TestValidateEndpointsUpdate(t *testing.T) {
	old := validEndpoints()
	old.Metadata.UID = "u1"
	e := old.DeepCopy()
	e.Subsets[0].Addresses = e.Subsets[0].Addresses[:1]
	assert.Nil(t, validateEndpointsUpdate(e, old))

	e.Metadata.Name = "db"
	assertErrors(t, validateEndpointsUpdate(e, old), `metadata.name: Invalid value: "db": field is immutable`, []cause{{invalid, "metadata.name"}})
}
