package endpointslicemirroring

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/controllers/endpointslice"
)

// The scenarios of Kubernetes' endpointslicemirroring reconciler_test.go
// (TestReconcile), ported: the slices (address type, endpoint count,
// ports) an Endpoints object mirrors to, and the writes from existing
// slices. Not ported: its metrics expectations (none kept here).

func ep(subsets ...api.EndpointSubset) *api.Endpoints {
	return &api.Endpoints{
		Metadata: api.ObjectMeta{Namespace: "test", Name: "svc", UID: "ep-uid",
			Labels: map[string]string{"foo": "bar"}, Annotations: map[string]string{"a": "b", "endpoints.kubernetes.io/last-change-trigger-time": "x"}},
		Subsets: subsets,
	}
}

func addrs(ips ...string) []api.EndpointAddress {
	var out []api.EndpointAddress
	for _, ip := range ips {
		out = append(out, api.EndpointAddress{IP: ip})
	}
	return out
}

func port(name string, n int32) api.EndpointPort {
	return api.EndpointPort{Name: name, Port: n, Protocol: api.ProtocolTCP}
}

// shape summarises a slice: address type, endpoints, ports.
type shape struct {
	Type      api.AddressType
	Endpoints int
	Ports     []int32
}

func shapes(ss []*api.EndpointSlice) []shape {
	var out []shape
	for _, s := range ss {
		sh := shape{Type: s.AddressType, Endpoints: len(s.Endpoints)}
		for _, p := range s.Ports {
			sh.Ports = append(sh.Ports, *p.Port)
		}
		out = append(out, sh)
	}
	return out
}

func TestReconcile(t *testing.T) {
	many := func(n int) []api.EndpointAddress {
		var out []api.EndpointAddress
		for i := range n {
			out = append(out, api.EndpointAddress{IP: "10.0." + itoa(i/250) + "." + itoa(i%250+1)})
		}
		return out
	}
	tests := []struct {
		name    string
		subsets []api.EndpointSubset
		max     int
		want    []shape
		invalid int
		skipped int
	}{
		{name: "no subsets"},
		{name: "1 subset, 1 address, 1 port", subsets: []api.EndpointSubset{{Addresses: addrs("10.0.0.1"), Ports: []api.EndpointPort{port("http", 80)}}},
			want: []shape{{api.AddressTypeIPv4, 1, []int32{80}}}},
		{name: "1 subset, no ports", subsets: []api.EndpointSubset{{Addresses: addrs("10.0.0.1")}},
			want: []shape{{api.AddressTypeIPv4, 1, nil}}},
		{name: "ready and not ready addresses", subsets: []api.EndpointSubset{{Addresses: addrs("10.0.0.1"), NotReadyAddresses: addrs("10.0.0.2"), Ports: []api.EndpointPort{port("http", 80)}}},
			want: []shape{{api.AddressTypeIPv4, 2, []int32{80}}}},
		{name: "IPv4 and IPv6 addresses", subsets: []api.EndpointSubset{{Addresses: addrs("10.0.0.1", "2001:db8::1"), Ports: []api.EndpointPort{port("http", 80)}}},
			want: []shape{{api.AddressTypeIPv4, 1, []int32{80}}, {api.AddressTypeIPv6, 1, []int32{80}}}},
		{name: "2 subsets, different ports", subsets: []api.EndpointSubset{
			{Addresses: addrs("10.0.0.1"), Ports: []api.EndpointPort{port("http", 80)}},
			{Addresses: addrs("10.0.0.2"), Ports: []api.EndpointPort{port("https", 443)}}},
			want: []shape{{api.AddressTypeIPv4, 1, []int32{80}}, {api.AddressTypeIPv4, 1, []int32{443}}}},
		{name: "2 subsets, same ports, merged", subsets: []api.EndpointSubset{
			{Addresses: addrs("10.0.0.1"), Ports: []api.EndpointPort{port("http", 80)}},
			{Addresses: addrs("10.0.0.2"), Ports: []api.EndpointPort{port("http", 80)}}},
			want: []shape{{api.AddressTypeIPv4, 2, []int32{80}}}},
		{name: "invalid IPs skipped", subsets: []api.EndpointSubset{{Addresses: addrs("10.0.0.1", "foo", "bar"), Ports: []api.EndpointPort{port("http", 80)}}},
			want: []shape{{api.AddressTypeIPv4, 1, []int32{80}}}, invalid: 2, skipped: 2},
		{name: "over the per-subset bound", subsets: []api.EndpointSubset{{Addresses: many(1002), Ports: []api.EndpointPort{port("http", 80)}}},
			want: []shape{{api.AddressTypeIPv4, 1000, []int32{80}}}, skipped: 2},
		{name: "bound of 100", max: 100, subsets: []api.EndpointSubset{{Addresses: many(150), Ports: []api.EndpointPort{port("http", 80)}}},
			want: []shape{{api.AddressTypeIPv4, 100, []int32{80}}}, skipped: 50},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			max := tt.max
			if max == 0 {
				max = DefaultMaxEndpointsPerSubset
			}
			ch := Reconcile(ep(tt.subsets...), nil, max)
			assert.Equal(t, tt.want, shapes(ch.Create))
			assert.Empty(t, ch.Update)
			assert.Empty(t, ch.Delete)
			assert.Equal(t, tt.invalid, ch.Invalid, "invalid")
			assert.Equal(t, tt.skipped, ch.Skipped, "skipped")
			for _, s := range ch.Create {
				assert.Equal(t, map[string]string{"foo": "bar", endpointslice.LabelServiceName: "svc", endpointslice.LabelManagedBy: ControllerName}, s.Metadata.Labels)
				assert.Equal(t, map[string]string{"a": "b"}, s.Metadata.Annotations, "the trigger time is not mirrored")
				assert.Equal(t, "svc-", s.Metadata.GenerateName)
				assert.Equal(t, "Endpoints", s.Metadata.OwnerReferences[0].Kind)
			}
		})
	}
}

// itoa avoids strconv in a table.
func itoa(i int) string {
	if i < 10 {
		return string(rune('0' + i))
	}
	return itoa(i/10) + string(rune('0'+i%10))
}

// The writes from existing slices: none when they are right; an update of
// the first when something differs; extra slices deleted; a slice of
// other ports reused.
func TestReconcileExisting(t *testing.T) {
	subsets := []api.EndpointSubset{{Addresses: addrs("10.0.0.1", "10.0.0.2"), Ports: []api.EndpointPort{port("http", 80)}}}
	right := func() *api.EndpointSlice {
		s := Reconcile(ep(subsets...), nil, DefaultMaxEndpointsPerSubset).Create[0]
		s.Metadata.Name, s.Metadata.GenerateName = "svc-abc", ""
		return s
	}
	named := func(name string, f func(*api.EndpointSlice)) *api.EndpointSlice {
		s := right()
		s.Metadata.Name = name
		f(s)
		return s
	}
	tests := []struct {
		name                     string
		endpoints                *api.Endpoints
		existing                 []*api.EndpointSlice
		creates, updates, delete []string
	}{
		{"right: nothing", ep(subsets...), []*api.EndpointSlice{right()}, nil, nil, nil},
		{"an address gone: update", ep(api.EndpointSubset{Addresses: addrs("10.0.0.1"), Ports: subsets[0].Ports}),
			[]*api.EndpointSlice{right()}, nil, []string{"svc-abc"}, nil},
		{"labels changed: update", func() *api.Endpoints {
			e := ep(subsets...)
			e.Metadata.Labels = map[string]string{"foo": "baz"}
			return e
		}(),
			[]*api.EndpointSlice{right()}, nil, []string{"svc-abc"}, nil},
		{"annotations changed: update", func() *api.Endpoints { e := ep(subsets...); e.Metadata.Annotations = nil; return e }(),
			[]*api.EndpointSlice{right()}, nil, []string{"svc-abc"}, nil},
		{"a second slice of the same ports: deleted", ep(subsets...),
			[]*api.EndpointSlice{right(), named("svc-xyz", func(*api.EndpointSlice) {})}, nil, nil, []string{"svc-xyz"}},
		{"other ports: the slice is reused", ep(api.EndpointSubset{Addresses: subsets[0].Addresses, Ports: []api.EndpointPort{port("https", 443)}}),
			[]*api.EndpointSlice{right()}, nil, []string{"svc-abc"}, nil},
		{"no subsets: deleted", ep(), []*api.EndpointSlice{right()}, nil, nil, []string{"svc-abc"}},
	}
	names := func(ss []*api.EndpointSlice) []string {
		var out []string
		for _, s := range ss {
			out = append(out, cmpOr(s.Metadata.Name, s.Metadata.GenerateName))
		}
		return out
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ch := Reconcile(tt.endpoints, tt.existing, DefaultMaxEndpointsPerSubset)
			assert.Equal(t, tt.creates, names(ch.Create), "creates")
			assert.Equal(t, tt.updates, names(ch.Update), "updates")
			assert.Equal(t, tt.delete, names(ch.Delete), "deletes")
		})
	}
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

func TestShouldMirror(t *testing.T) {
	tests := []struct {
		name   string
		ep     *api.Endpoints
		mirror bool
	}{
		{"nil", nil, false},
		{"plain", &api.Endpoints{}, true},
		{"skip-mirror true", &api.Endpoints{Metadata: api.ObjectMeta{Labels: map[string]string{LabelSkipMirror: "true"}}}, false},
		{"skip-mirror false", &api.Endpoints{Metadata: api.ObjectMeta{Labels: map[string]string{LabelSkipMirror: "false"}}}, true},
		{"leader lock", &api.Endpoints{Metadata: api.ObjectMeta{Annotations: map[string]string{"control-plane.alpha.kubernetes.io/leader": "{}"}}}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { assert.Equal(t, tt.mirror, ShouldMirror(tt.ep)) })
	}
}
