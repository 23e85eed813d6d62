package apiserver

import (
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/miniplane/miniplane/api"
)

func TestDefaultNetworkPolicy(t *testing.T) {
	for _, tc := range []struct {
		name      string
		spec      api.NetworkPolicySpec
		wantTypes []api.PolicyType
	}{
		{name: "no rules governs ingress", wantTypes: []api.PolicyType{api.PolicyTypeIngress}},
		{name: "ingress rules govern ingress", spec: api.NetworkPolicySpec{Ingress: []api.NetworkPolicyIngressRule{{}}},
			wantTypes: []api.PolicyType{api.PolicyTypeIngress}},
		{name: "egress rules govern both", spec: api.NetworkPolicySpec{Egress: []api.NetworkPolicyEgressRule{{}}},
			wantTypes: []api.PolicyType{api.PolicyTypeIngress, api.PolicyTypeEgress}},
		{name: "set types are kept", spec: api.NetworkPolicySpec{Egress: []api.NetworkPolicyEgressRule{{}}, PolicyTypes: []api.PolicyType{api.PolicyTypeEgress}},
			wantTypes: []api.PolicyType{api.PolicyTypeEgress}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			np := &api.NetworkPolicy{Spec: tc.spec}
			defaultNetworkPolicy(np)
			assert.Equal(t, tc.wantTypes, np.Spec.PolicyTypes)
		})
	}
	np := &api.NetworkPolicy{Spec: api.NetworkPolicySpec{
		Ingress: []api.NetworkPolicyIngressRule{{Ports: []api.NetworkPolicyPort{{}, {Protocol: ptrTo(api.ProtocolUDP)}}}},
		Egress:  []api.NetworkPolicyEgressRule{{Ports: []api.NetworkPolicyPort{{}}}}}}
	defaultNetworkPolicy(np)
	assert.Equal(t, ptrTo(api.ProtocolTCP), np.Spec.Ingress[0].Ports[0].Protocol, "a port's protocol defaults to TCP")
	assert.Equal(t, ptrTo(api.ProtocolUDP), np.Spec.Ingress[0].Ports[1].Protocol, "a set protocol is kept")
	assert.Equal(t, ptrTo(api.ProtocolTCP), np.Spec.Egress[0].Ports[0].Protocol)
}

func TestDefaultIngressClass(t *testing.T) {
	ic := &api.IngressClass{Spec: api.IngressClassSpec{Parameters: &api.IngressClassParametersReference{Kind: "k", Name: "n"}}}
	defaultIngressClass(ic)
	assert.Equal(t, ptrTo(api.IngressClassParametersScopeCluster), ic.Spec.Parameters.Scope)
}

// The cases of Kubernetes' TestValidateNetworkPolicy and
// TestValidateNetworkPolicyUpdate (pkg/apis/networking/validation).
func TestValidateNetworkPolicy(t *testing.T) {
	meta := api.ObjectMeta{Name: "bar", Namespace: "foo"}
	withSpec := func(spec api.NetworkPolicySpec) api.NetworkPolicy {
		return api.NetworkPolicy{Metadata: meta, Spec: spec}
	}
	from := func(peers ...api.NetworkPolicyPeer) api.NetworkPolicy {
		return withSpec(api.NetworkPolicySpec{Ingress: []api.NetworkPolicyIngressRule{{From: peers}}})
	}
	ports := func(ports ...api.NetworkPolicyPort) api.NetworkPolicy {
		return withSpec(api.NetworkPolicySpec{Egress: []api.NetworkPolicyEgressRule{{Ports: ports}}})
	}
	block := func(cidr string, except ...string) api.NetworkPolicyPeer {
		return api.NetworkPolicyPeer{IPBlock: &api.IPBlock{CIDR: cidr, Except: except}}
	}
	sel := &api.LabelSelector{MatchLabels: map[string]string{"c": "d"}}
	num, name := ptrTo(api.FromInt(80)), ptrTo(api.FromString("http"))
	for _, tc := range []struct {
		name   string
		np     api.NetworkPolicy
		want   string
		causes []cause
	}{
		{name: "empty spec", np: withSpec(api.NetworkPolicySpec{})},
		{name: "pod and namespace selectors", np: from(api.NetworkPolicyPeer{PodSelector: sel, NamespaceSelector: sel})},
		{name: "an ip block", np: from(block("192.168.0.0/16", "192.168.3.0/24", "192.168.4.0/24"))},
		{name: "an IPv6 block", np: from(block("fd00:192:168::/48", "fd00:192:168:3::/64"))},
		{name: "ports by number, name and range", np: ports(api.NetworkPolicyPort{Protocol: ptrTo(api.ProtocolTCP), Port: num},
			api.NetworkPolicyPort{Protocol: ptrTo(api.ProtocolSCTP), Port: name},
			api.NetworkPolicyPort{Port: num, EndPort: ptrTo(int32(32000))})},
		{name: "both policy types", np: withSpec(api.NetworkPolicySpec{PolicyTypes: []api.PolicyType{api.PolicyTypeEgress, api.PolicyTypeIngress}})},
		{name: "invalid name", np: api.NetworkPolicy{Metadata: api.ObjectMeta{Name: "~", Namespace: "foo"}},
			want: `metadata.name: Invalid value: "~": ` + msgDNS1123Subdomain, causes: []cause{{invalid, "metadata.name"}}},
		{name: "invalid pod selector", np: withSpec(api.NetworkPolicySpec{PodSelector: api.LabelSelector{MatchLabels: map[string]string{"c": "~"}}}),
			want: `spec.podSelector.matchLabels: Invalid value: "~": ` + msgLabelValue, causes: []cause{{invalid, "spec.podSelector.matchLabels"}}},
		{name: "unknown protocol", np: ports(api.NetworkPolicyPort{Protocol: ptrTo(api.Protocol("HTTP")), Port: num}),
			want:   `spec.egress[0].ports[0].protocol: Unsupported value: "HTTP": supported values: "TCP", "UDP", "SCTP"`,
			causes: []cause{{notSupported, "spec.egress[0].ports[0].protocol"}}},
		{name: "port out of range", np: ports(api.NetworkPolicyPort{Port: ptrTo(api.FromInt(65536))}),
			want: "spec.egress[0].ports[0].port: Invalid value: 65536: " + msgPortRange, causes: []cause{{invalid, "spec.egress[0].ports[0].port"}}},
		{name: "bad port name", np: ports(api.NetworkPolicyPort{Port: ptrTo(api.FromString("http_port"))}),
			want:   `spec.egress[0].ports[0].port: Invalid value: "http_port": must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)`,
			causes: []cause{{invalid, "spec.egress[0].ports[0].port"}}},
		{name: "end port below port", np: ports(api.NetworkPolicyPort{Port: ptrTo(api.FromInt(30000)), EndPort: ptrTo(int32(29999))}),
			want: "spec.egress[0].ports[0].endPort: Invalid value: 29999: must be greater than or equal to `port`", causes: []cause{{invalid, "spec.egress[0].ports[0].endPort"}}},
		{name: "end port out of range", np: ports(api.NetworkPolicyPort{Port: num, EndPort: ptrTo(int32(65536))}),
			want: "spec.egress[0].ports[0].endPort: Invalid value: 65536: " + msgPortRange, causes: []cause{{invalid, "spec.egress[0].ports[0].endPort"}}},
		{name: "end port with a named port", np: ports(api.NetworkPolicyPort{Port: name, EndPort: ptrTo(int32(32000))}),
			want: "spec.egress[0].ports[0].endPort: Invalid value: 32000: may not be specified when `port` is non-numeric", causes: []cause{{invalid, "spec.egress[0].ports[0].endPort"}}},
		{name: "end port without a port", np: ports(api.NetworkPolicyPort{EndPort: ptrTo(int32(32000))}),
			want: "spec.egress[0].ports[0].endPort: Invalid value: 32000: may not be specified when `port` is not specified", causes: []cause{{invalid, "spec.egress[0].ports[0].endPort"}}},
		{name: "an empty peer", np: from(api.NetworkPolicyPeer{}),
			want: "spec.ingress[0].from[0]: Required value: must specify a peer", causes: []cause{{required, "spec.ingress[0].from[0]"}}},
		{name: "an ip block with a selector", np: from(api.NetworkPolicyPeer{PodSelector: sel, IPBlock: &api.IPBlock{CIDR: "192.168.0.0/16"}}),
			want: "spec.ingress[0].from[0]: Forbidden: may not specify both ipBlock and another peer", causes: []cause{{forbidden, "spec.ingress[0].from[0]"}}},
		{name: "no cidr", np: from(block("")),
			want: "spec.ingress[0].from[0].ipBlock.cidr: Required value", causes: []cause{{required, "spec.ingress[0].from[0].ipBlock.cidr"}}},
		{name: "bad cidr", np: from(block("192.168.0.0/36")),
			want: `spec.ingress[0].from[0].ipBlock.cidr: Invalid value: "192.168.0.0/36": ` + msgInvalidCIDR, causes: []cause{{invalid, "spec.ingress[0].from[0].ipBlock.cidr"}}},
		{name: "bad except", np: from(block("192.168.0.0/16", "192.168.3.0")),
			want: `spec.ingress[0].from[0].ipBlock.except[0]: Invalid value: "192.168.3.0": ` + msgInvalidCIDR, causes: []cause{{invalid, "spec.ingress[0].from[0].ipBlock.except[0]"}}},
		{name: "except outside the block", np: from(block("192.168.8.0/24", "192.168.9.1/24")),
			want:   `spec.ingress[0].from[0].ipBlock.except[0]: Invalid value: "192.168.9.1/24": must be a strict subset of ` + "`cidr`",
			causes: []cause{{invalid, "spec.ingress[0].from[0].ipBlock.except[0]"}}},
		{name: "except the block itself", np: from(block("192.168.0.0/24", "192.168.0.0/24")),
			want:   `spec.ingress[0].from[0].ipBlock.except[0]: Invalid value: "192.168.0.0/24": must be a strict subset of ` + "`cidr`",
			causes: []cause{{invalid, "spec.ingress[0].from[0].ipBlock.except[0]"}}},
		{name: "unknown policy type", np: withSpec(api.NetworkPolicySpec{PolicyTypes: []api.PolicyType{"foo", "bar"}}),
			want:   `[spec.policyTypes[0]: Unsupported value: "foo": supported values: "Ingress", "Egress", spec.policyTypes[1]: Unsupported value: "bar": supported values: "Ingress", "Egress"]`,
			causes: []cause{{notSupported, "spec.policyTypes[0]"}, {notSupported, "spec.policyTypes[1]"}}},
		{name: "three policy types", np: withSpec(api.NetworkPolicySpec{PolicyTypes: []api.PolicyType{"Ingress", "Egress", "Ingress"}}),
			want:   `spec.policyTypes: Invalid value: []networking.PolicyType{"Ingress", "Egress", "Ingress"}: may not specify more than two policyTypes`,
			causes: []cause{{invalid, "spec.policyTypes"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assertErrors(t, validateNetworkPolicy(&tc.np), tc.want, tc.causes)
		})
	}
	t.Run("update keeps the name and checks the spec", func(t *testing.T) {
		old := withSpec(api.NetworkPolicySpec{})
		old.Metadata.ResourceVersion = "1"
		np := from(api.NetworkPolicyPeer{})
		np.Metadata.ResourceVersion = "1"
		assertErrors(t, validateNetworkPolicyUpdate(&np, &old), "spec.ingress[0].from[0]: Required value: must specify a peer",
			[]cause{{required, "spec.ingress[0].from[0]"}})
		renamed := old
		renamed.Metadata.Name = "baz"
		assertErrors(t, validateNetworkPolicyUpdate(&renamed, &old), `metadata.name: Invalid value: "baz": field is immutable`,
			[]cause{{invalid, "metadata.name"}})
	})
}

// The cases of Kubernetes' TestValidateIngress, TestValidateIngressRuleValue,
// TestValidateIngressCreate and TestValidateIngressTLS.
func TestValidateIngress(t *testing.T) {
	svc := func(name string, port api.ServiceBackendPort) api.IngressBackend {
		return api.IngressBackend{Service: &api.IngressServiceBackend{Name: name, Port: port}}
	}
	backend := svc("default-backend", api.ServiceBackendPort{Number: 80})
	resource := api.IngressBackend{Resource: &api.TypedLocalObjectReference{APIGroup: ptrTo("example.com"), Kind: "foo", Name: "bar"}}
	rule := func(host string, paths ...api.HTTPIngressPath) api.IngressRule {
		return api.IngressRule{Host: host, IngressRuleValue: api.IngressRuleValue{HTTP: &api.HTTPIngressRuleValue{Paths: paths}}}
	}
	path := func(p string, pt api.PathType) api.HTTPIngressPath {
		return api.HTTPIngressPath{Path: p, PathType: ptrTo(pt), Backend: backend}
	}
	ingress := func(change func(*api.IngressSpec)) api.Ingress {
		in := api.Ingress{Metadata: api.ObjectMeta{Name: "foo", Namespace: "default"}, Spec: api.IngressSpec{
			DefaultBackend: &backend, Rules: []api.IngressRule{rule("foo.bar.com", path("/foo", api.PathTypeImplementationSpecific))}}}
		if change != nil {
			change(&in.Spec)
		}
		return in
	}
	const rule0 = "spec.rules[0].http.paths[0]"
	for _, tc := range []struct {
		name   string
		in     api.Ingress
		want   string
		causes []cause
	}{
		{name: "valid", in: ingress(nil)},
		{name: "a resource backend", in: ingress(func(s *api.IngressSpec) { s.DefaultBackend = &resource })},
		{name: "a named port", in: ingress(func(s *api.IngressSpec) { s.DefaultBackend = ptrTo(svc("web", api.ServiceBackendPort{Name: "http"})) })},
		{name: "a wildcard host", in: ingress(func(s *api.IngressSpec) { s.Rules[0].Host = "*.bar.com" })},
		{name: "exact and prefix paths", in: ingress(func(s *api.IngressSpec) {
			s.Rules = []api.IngressRule{rule("", path("/", api.PathTypeExact), path("/foo/bar", api.PathTypePrefix))}
		})},
		{name: "an empty implementation-specific path", in: ingress(func(s *api.IngressSpec) {
			s.Rules = []api.IngressRule{rule("", path("", api.PathTypeImplementationSpecific))}
		})},
		{name: "a rule without http", in: ingress(func(s *api.IngressSpec) { s.Rules = []api.IngressRule{{Host: "foo.com"}} })},
		{name: "neither backend nor rules", in: ingress(func(s *api.IngressSpec) { s.DefaultBackend, s.Rules = nil, nil }),
			want: "spec: Invalid value: []networking.IngressRule(nil): either `defaultBackend` or `rules` must be specified", causes: []cause{{invalid, "spec"}}},
		{name: "empty rules", in: ingress(func(s *api.IngressSpec) { s.DefaultBackend, s.Rules = nil, []api.IngressRule{} }),
			want: "spec: Invalid value: []networking.IngressRule{}: either `defaultBackend` or `rules` must be specified", causes: []cause{{invalid, "spec"}}},
		{name: "both backends", in: ingress(func(s *api.IngressSpec) {
			s.DefaultBackend = &api.IngressBackend{Service: backend.Service, Resource: resource.Resource}
		}),
			want: `spec.defaultBackend: Invalid value: "": cannot set both resource and service backends`, causes: []cause{{invalid, "spec.defaultBackend"}}},
		{name: "no backend", in: ingress(func(s *api.IngressSpec) { s.DefaultBackend = &api.IngressBackend{} }),
			want: `spec.defaultBackend: Invalid value: "": resource or service backend is required`, causes: []cause{{invalid, "spec.defaultBackend"}}},
		{name: "service without a name", in: ingress(func(s *api.IngressSpec) { s.DefaultBackend = ptrTo(svc("", api.ServiceBackendPort{Number: 80})) }),
			want: "spec.defaultBackend.service.name: Required value", causes: []cause{{required, "spec.defaultBackend.service.name"}}},
		{name: "service name not a DNS-1035 label", in: ingress(func(s *api.IngressSpec) { s.DefaultBackend = ptrTo(svc("1-web", api.ServiceBackendPort{Number: 80})) }),
			want: `spec.defaultBackend.service.name: Invalid value: "1-web": ` + msgDNS1035Label, causes: []cause{{invalid, "spec.defaultBackend.service.name"}}},
		{name: "port by name and number", in: ingress(func(s *api.IngressSpec) {
			s.DefaultBackend = ptrTo(svc("web", api.ServiceBackendPort{Name: "http", Number: 80}))
		}),
			want: `spec.defaultBackend: Invalid value: "": cannot set both port name & port number`, causes: []cause{{invalid, "spec.defaultBackend"}}},
		{name: "no port", in: ingress(func(s *api.IngressSpec) { s.DefaultBackend = ptrTo(svc("web", api.ServiceBackendPort{})) }),
			want: "spec.defaultBackend: Required value: port name or number is required", causes: []cause{{required, "spec.defaultBackend"}}},
		{name: "port out of range", in: ingress(func(s *api.IngressSpec) { s.DefaultBackend = ptrTo(svc("web", api.ServiceBackendPort{Number: 65536})) }),
			want: "spec.defaultBackend.service.port.number: Invalid value: 65536: " + msgPortRange, causes: []cause{{invalid, "spec.defaultBackend.service.port.number"}}},
		{name: "resource without kind or name", in: ingress(func(s *api.IngressSpec) {
			s.DefaultBackend = &api.IngressBackend{Resource: &api.TypedLocalObjectReference{}}
		}),
			want:   "[spec.defaultBackend.resource.kind: Required value, spec.defaultBackend.resource.name: Required value]",
			causes: []cause{{required, "spec.defaultBackend.resource.kind"}, {required, "spec.defaultBackend.resource.name"}}},
		{name: "resource kind with a slash", in: ingress(func(s *api.IngressSpec) {
			s.DefaultBackend = &api.IngressBackend{Resource: &api.TypedLocalObjectReference{Kind: "foo/", Name: "bar"}}
		}),
			want: `spec.defaultBackend.resource.kind: Invalid value: "foo/": may not contain '/'`, causes: []cause{{invalid, "spec.defaultBackend.resource.kind"}}},
		{name: "host is an IP", in: ingress(func(s *api.IngressSpec) { s.Rules[0].Host = "127.0.0.1" }),
			want: `spec.rules[0].host: Invalid value: "127.0.0.1": must be a DNS name, not an IP address`, causes: []cause{{invalid, "spec.rules[0].host"}}},
		{name: "bad wildcard host", in: ingress(func(s *api.IngressSpec) { s.Rules[0].Host = "foo.*.bar.com" }),
			want:   `spec.rules[0].host: Invalid value: "foo.*.bar.com": a wildcard DNS-1123 subdomain must start with '*.', followed by a valid DNS subdomain, which must consist of lower case alphanumeric characters, '-' or '.' and end with an alphanumeric character (e.g. '*.example.com', regex used for validation is '\*\.[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`,
			causes: []cause{{invalid, "spec.rules[0].host"}}},
		{name: "bad host", in: ingress(func(s *api.IngressSpec) { s.Rules[0].Host = "Foo.com" }),
			want: `spec.rules[0].host: Invalid value: "Foo.com": ` + msgDNS1123Subdomain, causes: []cause{{invalid, "spec.rules[0].host"}}},
		{name: "http without paths", in: ingress(func(s *api.IngressSpec) { s.Rules = []api.IngressRule{rule("foo.com")} }),
			want: "spec.rules[0].http.paths: Required value", causes: []cause{{required, "spec.rules[0].http.paths"}}},
		{name: "no path type", in: ingress(func(s *api.IngressSpec) { s.Rules[0].HTTP.Paths[0].PathType = nil }),
			want: rule0 + ".pathType: Required value: pathType must be specified", causes: []cause{{required, rule0 + ".pathType"}}},
		{name: "unknown path type", in: ingress(func(s *api.IngressSpec) { s.Rules[0].HTTP.Paths[0].PathType = ptrTo(api.PathType("Regex")) }),
			want:   rule0 + `.pathType: Unsupported value: "Regex": supported values: "Exact", "ImplementationSpecific", "Prefix"`,
			causes: []cause{{notSupported, rule0 + ".pathType"}}},
		{name: "relative exact path", in: ingress(func(s *api.IngressSpec) { s.Rules = []api.IngressRule{rule("", path("foo", api.PathTypeExact))} }),
			want: rule0 + `.path: Invalid value: "foo": must be an absolute path`, causes: []cause{{invalid, rule0 + ".path"}}},
		{name: "empty prefix path", in: ingress(func(s *api.IngressSpec) { s.Rules = []api.IngressRule{rule("", path("", api.PathTypePrefix))} }),
			want: rule0 + `.path: Invalid value: "": must be an absolute path`, causes: []cause{{invalid, rule0 + ".path"}}},
		{name: "path with a double slash", in: ingress(func(s *api.IngressSpec) { s.Rules = []api.IngressRule{rule("", path("/foo//bar", api.PathTypeExact))} }),
			want: rule0 + `.path: Invalid value: "/foo//bar": must not contain '//'`, causes: []cause{{invalid, rule0 + ".path"}}},
		{name: "path ending in dot-dot", in: ingress(func(s *api.IngressSpec) { s.Rules = []api.IngressRule{rule("", path("/foo/..", api.PathTypePrefix))} }),
			want: rule0 + `.path: Invalid value: "/foo/..": cannot end with '/..'`, causes: []cause{{invalid, rule0 + ".path"}}},
		{name: "path with an encoded slash", in: ingress(func(s *api.IngressSpec) {
			s.Rules = []api.IngressRule{rule("", path("/foo%2fbar", api.PathTypePrefix))}
		}),
			want: rule0 + `.path: Invalid value: "/foo%2fbar": must not contain '%2f'`, causes: []cause{{invalid, rule0 + ".path"}}},
		{name: "relative implementation-specific path", in: ingress(func(s *api.IngressSpec) {
			s.Rules = []api.IngressRule{rule("", path("foo", api.PathTypeImplementationSpecific))}
		}),
			want: rule0 + `.path: Invalid value: "foo": must be an absolute path`, causes: []cause{{invalid, rule0 + ".path"}}},
		{name: "bad class name", in: ingress(func(s *api.IngressSpec) { s.IngressClassName = ptrTo("Test") }),
			want: `spec.ingressClassName: Invalid value: "Test": ` + msgDNS1123Subdomain, causes: []cause{{invalid, "spec.ingressClassName"}}},
		{name: "tls with a wildcard host", in: ingress(func(s *api.IngressSpec) { s.TLS = []api.IngressTLS{{Hosts: []string{"*.bar.com"}}} })},
		{name: "tls with a bad wildcard host", in: ingress(func(s *api.IngressSpec) { s.TLS = []api.IngressTLS{{Hosts: []string{"foo*.bar.com"}}} }),
			want:   `spec.tls[0].hosts[0]: Invalid value: "foo*.bar.com": a wildcard DNS-1123 subdomain must start with '*.', followed by a valid DNS subdomain, which must consist of lower case alphanumeric characters, '-' or '.' and end with an alphanumeric character (e.g. '*.example.com', regex used for validation is '\*\.[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`,
			causes: []cause{{invalid, "spec.tls[0].hosts[0]"}}},
		{name: "tls with a bad secret name", in: ingress(func(s *api.IngressSpec) { s.TLS = []api.IngressTLS{{SecretName: "Test"}} }),
			want: `spec.tls[0].secretName: Invalid value: "Test": ` + msgDNS1123Subdomain, causes: []cause{{invalid, "spec.tls[0].secretName"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assertErrors(t, validateIngress(&tc.in), tc.want, tc.causes)
		})
	}
}

// The class annotation and ingressClassName must agree on create, and an
// update lets stay what the old ingress already had: Kubernetes'
// TestValidateIngressCreate and TestValidateIngressUpdate.
func TestValidateIngressCreateAndUpdate(t *testing.T) {
	backend := api.IngressBackend{Service: &api.IngressServiceBackend{Name: "web", Port: api.ServiceBackendPort{Number: 80}}}
	base := func(annotations map[string]string, class *string) api.Ingress {
		return api.Ingress{Metadata: api.ObjectMeta{Name: "foo", Namespace: "default", ResourceVersion: "1", Annotations: annotations},
			Spec: api.IngressSpec{DefaultBackend: &backend, IngressClassName: class}}
	}
	assertErrors(t, validateIngress(ptrTo(base(map[string]string{api.AnnotationIngressClass: "foo"}, ptrTo("foo")))), "", nil)
	mismatch := base(map[string]string{api.AnnotationIngressClass: "foo"}, ptrTo("bar"))
	assertErrors(t, validateIngress(&mismatch), "annotations.kubernetes.io/ingress.class: Invalid value: \"foo\": must match `ingressClassName` when both are specified",
		[]cause{{invalid, "annotations.kubernetes.io/ingress.class"}})
	assertErrors(t, validateIngressUpdate(&mismatch, &mismatch), "", nil)

	badSecret := base(nil, nil)
	badSecret.Spec.TLS = []api.IngressTLS{{SecretName: "Bad_Name"}}
	assert.NotNil(t, validateIngress(&badSecret), "a bad secret name is refused on create")
	assertErrors(t, validateIngressUpdate(&badSecret, &badSecret), "", nil)
	fresh := base(nil, nil)
	assert.NotNil(t, validateIngressUpdate(&badSecret, &fresh), "an update may not introduce a bad secret name")

	wild := base(nil, nil)
	wild.Spec.Rules = []api.IngressRule{{Host: "*.example.com", IngressRuleValue: api.IngressRuleValue{HTTP: &api.HTTPIngressRuleValue{}}}}
	assert.NotNil(t, validateIngressUpdate(&wild, &fresh))
	assertErrors(t, validateIngressUpdate(&wild, &wild), "", nil)
}

// The cases of Kubernetes' TestValidateIngressStatusUpdate.
func TestValidateIngressStatusUpdate(t *testing.T) {
	old := api.Ingress{Metadata: api.ObjectMeta{Name: "foo", Namespace: "default", ResourceVersion: "9"}}
	for _, tc := range []struct {
		name   string
		lb     api.IngressLoadBalancerIngress
		want   string
		causes []cause
	}{
		{name: "an IP and a hostname", lb: api.IngressLoadBalancerIngress{IP: "127.0.0.1", Hostname: "foo.com"}},
		{name: "bad IP", lb: api.IngressLoadBalancerIngress{IP: "abcd"},
			want: `status.loadBalancer.ingress[0].ip: Invalid value: "abcd": ` + msgInvalidIP, causes: []cause{{invalid, "status.loadBalancer.ingress[0].ip"}}},
		{name: "IP as hostname", lb: api.IngressLoadBalancerIngress{Hostname: "127.0.0.1"},
			want:   `status.loadBalancer.ingress[0].hostname: Invalid value: "127.0.0.1": must be a DNS name, not an IP address`,
			causes: []cause{{invalid, "status.loadBalancer.ingress[0].hostname"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := old
			in.Status.LoadBalancer.Ingress = []api.IngressLoadBalancerIngress{tc.lb}
			assertErrors(t, validateIngressStatusUpdate(&in, &old), tc.want, tc.causes)
		})
	}
}

// The cases of Kubernetes' TestValidateIngressClass and
// TestValidateIngressClassUpdate.
func TestValidateIngressClass(t *testing.T) {
	class := func(name, controller string, params *api.IngressClassParametersReference) api.IngressClass {
		return api.IngressClass{Metadata: api.ObjectMeta{Name: name, ResourceVersion: "2"}, Spec: api.IngressClassSpec{Controller: controller, Parameters: params}}
	}
	params := func(group *string, kind, name string, scope, ns *string) *api.IngressClassParametersReference {
		return &api.IngressClassParametersReference{APIGroup: group, Kind: kind, Name: name, Scope: scope, Namespace: ns}
	}
	cluster, namespace := ptrTo("Cluster"), ptrTo("Namespace")
	for _, tc := range []struct {
		name   string
		ic     api.IngressClass
		want   string
		causes []cause
	}{
		{name: "valid", ic: class("test123", "foo.co/bar", nil)},
		{name: "controller of the longest length", ic: class("test123", "foo.co/"+strings.Repeat("a", 243), nil)},
		{name: "valid cluster parameters", ic: class("test123", "foo.co/bar", params(ptrTo("example.com"), "foo", "bar", cluster, nil))},
		{name: "valid namespaced parameters", ic: class("test123", "foo.co/bar", params(nil, "foo", "bar", namespace, ptrTo("foo-ns")))},
		{name: "invalid name", ic: class("test*123", "foo.co/bar", nil),
			want: `metadata.name: Invalid value: "test*123": ` + msgDNS1123Subdomain, causes: []cause{{invalid, "metadata.name"}}},
		{name: "no controller", ic: class("test123", "", nil),
			want: "spec.controller: Required value", causes: []cause{{required, "spec.controller"}}},
		{name: "controller too long", ic: class("test123", "foo.co/"+strings.Repeat("a", 244), nil),
			want: "spec.controller: Too long: may not be more than 250 bytes", causes: []cause{{tooLong, "spec.controller"}}},
		{name: "controller without a domain", ic: class("test123", "foo", nil),
			want: `spec.controller: Invalid value: "foo": must be a domain-prefixed path (such as "acme.io/foo")`, causes: []cause{{invalid, "spec.controller"}}},
		{name: "controller with a bad domain", ic: class("test123", "Foo.co/bar", nil),
			want: `spec.controller: Invalid value: "Foo.co": ` + msgDNS1123Subdomain, causes: []cause{{invalid, "spec.controller"}}},
		{name: "controller with a bad path", ic: class("test123", "foo.co/b ar", nil),
			want:   `spec.controller: Invalid value: "b ar": Invalid path (regex used for validation is '[A-Za-z0-9/\-._~%!$&'()*+,;=:]+')`,
			causes: []cause{{invalid, "spec.controller"}}},
		{name: "parameters without kind", ic: class("test123", "foo.co/bar", params(ptrTo("example.com"), "", "bar", cluster, nil)),
			want: "spec.parameters.kind: Required value", causes: []cause{{required, "spec.parameters.kind"}}},
		{name: "parameters without name", ic: class("test123", "foo.co/bar", params(ptrTo("example.com"), "foo", "", cluster, nil)),
			want: "spec.parameters.name: Required value", causes: []cause{{required, "spec.parameters.name"}}},
		{name: "parameters kind with a slash", ic: class("test123", "foo.co/bar", params(nil, "foo/", "bar", cluster, nil)),
			want: `spec.parameters.kind: Invalid value: "foo/": may not contain '/'`, causes: []cause{{invalid, "spec.parameters.kind"}}},
		{name: "unknown scope", ic: class("test123", "foo.co/bar", params(nil, "foo", "bar", ptrTo("bad-scope"), nil)),
			want: `spec.parameters.scope: Unsupported value: "bad-scope": supported values: "Cluster", "Namespace"`, causes: []cause{{notSupported, "spec.parameters.scope"}}},
		{name: "bad namespace", ic: class("test123", "foo.co/bar", params(nil, "foo", "bar", namespace, ptrTo("foo_ns"))),
			want: `spec.parameters.namespace: Invalid value: "foo_ns": ` + msgDNS1123Label, causes: []cause{{invalid, "spec.parameters.namespace"}}},
		{name: "no scope", ic: class("test123", "foo.co/bar", params(nil, "foo", "bar", nil, ptrTo("foo_ns"))),
			want: "spec.parameters.scope: Required value", causes: []cause{{required, "spec.parameters.scope"}}},
		{name: "namespace scope without namespace", ic: class("test123", "foo.co/bar", params(nil, "foo", "bar", namespace, nil)),
			want: "spec.parameters.namespace: Required value: `parameters.scope` is set to 'Namespace'", causes: []cause{{required, "spec.parameters.namespace"}}},
		{name: "cluster scope with namespace", ic: class("test123", "foo.co/bar", params(nil, "foo", "bar", cluster, ptrTo("foo-ns"))),
			want: "spec.parameters.namespace: Forbidden: `parameters.scope` is set to 'Cluster'", causes: []cause{{forbidden, "spec.parameters.namespace"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assertErrors(t, validateIngressClass(&tc.ic), tc.want, tc.causes)
		})
	}
	t.Run("the controller cannot change", func(t *testing.T) {
		old, ic := class("test123", "foo.co/bar", nil), class("test123", "foo.co/bar2", nil)
		assertErrors(t, validateIngressClassUpdate(&ic, &old), `spec.controller: Invalid value: "foo.co/bar2": field is immutable`,
			[]cause{{invalid, "spec.controller"}})
		withParams := class("test123", "foo.co/bar", params(nil, "foo", "bar", cluster, nil))
		assertErrors(t, validateIngressClassUpdate(&withParams, &old), "", nil)
	})
}

// TestDefaultIngressClassOf ports the choices of Kubernetes'
// defaultingressclass TestAdmission: no default, one, and the newest of two.
func TestDefaultIngressClassOf(t *testing.T) {
	at := func(s int) api.Time { return api.Time{Time: time.Unix(1000+int64(s), 0)} }
	class := func(name string, def string, created int) *api.IngressClass {
		c := &api.IngressClass{Metadata: api.ObjectMeta{Name: name, CreationTimestamp: at(created)}}
		if def != "" {
			c.Metadata.Annotations = map[string]string{api.AnnotationIsDefaultIngressClass: def}
		}
		return c
	}
	for _, tc := range []struct {
		name    string
		classes []*api.IngressClass
		want    string
	}{
		{name: "none", classes: nil},
		{name: "none marked default", classes: []*api.IngressClass{class("a", "", 0), class("b", "false", 0)}},
		{name: "one default", classes: []*api.IngressClass{class("a", "", 0), class("b", "true", 0)}, want: "b"},
		{name: "the newest of two", classes: []*api.IngressClass{class("new", "true", 5), class("old", "true", 1)}, want: "new"},
		{name: "the newest, in either order", classes: []*api.IngressClass{class("old", "true", 1), class("new", "true", 5)}, want: "new"},
		{name: "a tie goes to the first by name", classes: []*api.IngressClass{class("b", "true", 3), class("a", "true", 3)}, want: "a"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := defaultIngressClassOf(tc.classes)
			if tc.want == "" {
				assert.Nil(t, got)
				return
			}
			if assert.NotNil(t, got) {
				assert.Equal(t, tc.want, got.Metadata.Name)
			}
		})
	}
}

// FuzzIngressHostAndController checks the two format parsers these kinds
// add against the regular expressions Kubernetes defines them with: a
// wildcard host and a domain-prefixed controller name.
func FuzzIngressHostAndController(f *testing.F) {
	for _, s := range []string{"*.example.com", "*.*.bar.com", "*", "foo.*.bar", "example.com/ingress", "Foo.co/bar", "a/b c", "/x", "a/", "k8s.io/ingress-nginx"} {
		f.Add(s)
	}
	wildcard := regexp.MustCompile(`^\*\.` + dns1123SubdomainFmt + `$`)
	httpPath := regexp.MustCompile("^" + httpPathFmt + "$")
	f.Fuzz(func(t *testing.T, s string) {
		msgs := wildcardDNS1123SubdomainMsgs(s)
		if ok := wildcard.MatchString(s) && len(s) <= dns1123SubdomainMaxLength; ok != (len(msgs) == 0) {
			t.Fatalf("wildcard host %q: regexp says %v, parser says %v", s, ok, msgs)
		}
		errs := validateDomainPrefixedPath(nil, s, pathAt("spec").child("controller"))
		host, path, cut := strings.Cut(s, "/")
		want := s != "" && cut && host != "" && path != "" && len(dns1123SubdomainMsgs(host)) == 0 && httpPath.MatchString(path)
		if want != (len(errs) == 0) {
			t.Fatalf("controller %q: want valid %v, got %v", s, want, errs)
		}
	})
}
