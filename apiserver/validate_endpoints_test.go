package apiserver

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/api/apierrors"
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

// TestValidateEndpointsUpdateIsFull checks that the update check, which
// skips the addresses it finds unchanged in the stored endpoints, reports
// exactly what checking every address reports (the errors, their paths and
// their order), for a valid stored object and updates made from it by
// random insertions, removals, moves, swaps and changes of addresses, many
// of them to invalid values.
func TestValidateEndpointsUpdateIsFull(t *testing.T) {
	rng := rand.New(rand.NewPCG(18, 4))
	full := func(e, old *api.Endpoints) apierrors.FieldErrors {
		return validateObjectMetaUpdate(validateEndpoints(e), &e.Metadata, &old.Metadata, metadataPath)
	}
	validAddr := func() api.EndpointAddress {
		a := api.EndpointAddress{IP: fmt.Sprintf("10.244.%d.%d", rng.IntN(3), 1+rng.IntN(20))}
		if rng.IntN(2) == 0 {
			a.NodeName = ptrTo(fmt.Sprintf("node-%d", rng.IntN(4)))
		}
		if rng.IntN(4) == 0 {
			a.Hostname = fmt.Sprintf("web-%d", rng.IntN(4))
		}
		return a
	}
	badIPs := []string{"0.0.0.0", "127.0.0.1", "169.254.169.254", "224.0.0.1", "web-0", "", "::1", "fd00::5"}
	anyAddr := func() api.EndpointAddress {
		a := validAddr()
		switch rng.IntN(4) {
		case 0:
			a.IP = badIPs[rng.IntN(len(badIPs))]
		case 1:
			a.Hostname = []string{"web.0", "Web", "ok"}[rng.IntN(3)]
		case 2:
			a.NodeName = ptrTo([]string{"Node 1", "", "node-0"}[rng.IntN(3)])
		}
		return a
	}
	var withErrors, without int
	for i := range 3000 {
		old := &api.Endpoints{Metadata: api.ObjectMeta{Name: "web", Namespace: "default", UID: "u1"}}
		for range 1 + rng.IntN(2) {
			var s api.EndpointSubset
			for range rng.IntN(30) {
				s.Addresses = append(s.Addresses, validAddr())
			}
			for range rng.IntN(5) {
				s.NotReadyAddresses = append(s.NotReadyAddresses, validAddr())
			}
			if len(s.Addresses)+len(s.NotReadyAddresses) == 0 {
				s.Addresses = append(s.Addresses, validAddr())
			}
			s.Ports = []api.EndpointPort{{Port: 80, Protocol: api.ProtocolTCP}}
			old.Subsets = append(old.Subsets, s)
		}
		require.Empty(t, validateEndpoints(old), "the stored endpoints are valid")

		e := old.DeepCopy()
		for range rng.IntN(6) {
			s := &e.Subsets[rng.IntN(len(e.Subsets))]
			list := &s.Addresses
			if rng.IntN(3) == 0 {
				list = &s.NotReadyAddresses
			}
			n := len(*list)
			switch op := rng.IntN(6); {
			case op == 0 || n == 0: // insert
				*list = slices.Insert(*list, rng.IntN(n+1), anyAddr())
			case op == 1: // remove
				j := rng.IntN(n)
				*list = slices.Delete(*list, j, j+1)
			case op == 2: // change in place
				(*list)[rng.IntN(n)] = anyAddr()
			case op == 3: // swap
				j, k := rng.IntN(n), rng.IntN(n)
				(*list)[j], (*list)[k] = (*list)[k], (*list)[j]
			case op == 4: // move to the other list
				j := rng.IntN(n)
				a := (*list)[j]
				*list = slices.Delete(*list, j, j+1)
				s.NotReadyAddresses = append(s.NotReadyAddresses, a)
			default: // a new subset first: every old one is out of place
				e.Subsets = slices.Insert(e.Subsets, 0, api.EndpointSubset{Addresses: []api.EndpointAddress{anyAddr()}})
			}
		}
		want := full(e, old)
		if len(want) > 0 {
			withErrors++
		} else {
			without++
		}
		require.Equal(t, want, validateEndpointsUpdate(e, old), "case %d", i)
	}
	assert.Greater(t, withErrors, 500)
	assert.Greater(t, without, 500)
}

// BenchmarkValidateEndpointsUpdate is an endpoints controller's update of a
// service of 100 ready pods on which one more became ready: the update
// check, and the full check it stands for.
func BenchmarkValidateEndpointsUpdate(b *testing.B) {
	old := &api.Endpoints{Metadata: api.ObjectMeta{Name: "web", Namespace: "default", UID: "u1"}}
	s := api.EndpointSubset{Ports: []api.EndpointPort{{Port: 80, Protocol: api.ProtocolTCP}}}
	for i := range 100 {
		s.Addresses = append(s.Addresses, api.EndpointAddress{
			IP: fmt.Sprintf("10.244.%d.%d", i/50, 2*(i%50)+2), NodeName: ptrTo(fmt.Sprintf("node-%d", i)),
			TargetRef: &api.ObjectReference{Kind: "Pod", Namespace: "default", Name: fmt.Sprintf("web-%d", i)},
		})
	}
	old.Subsets = []api.EndpointSubset{s}
	e := old.DeepCopy()
	e.Subsets[0].Addresses = slices.Insert(e.Subsets[0].Addresses, 50, api.EndpointAddress{IP: "10.244.1.3", NodeName: ptrTo("node-100")})
	for _, bc := range []struct {
		name     string
		validate func(e, old *api.Endpoints) apierrors.FieldErrors
	}{
		{name: "update", validate: validateEndpointsUpdate},
		{name: "full", validate: func(e, _ *api.Endpoints) apierrors.FieldErrors { return validateEndpoints(e) }},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if errs := bc.validate(e, old); errs != nil {
					b.Fatal(errs)
				}
			}
		})
	}
}
