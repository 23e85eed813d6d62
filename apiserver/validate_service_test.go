package apiserver

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/miniplane/miniplane/api"
)

func validService() *api.Service {
	return &api.Service{
		Metadata: api.ObjectMeta{Name: "web", Namespace: "default"},
		Spec: api.ServiceSpec{
			Selector: map[string]string{"app": "web"},
			Ports: []api.ServicePort{
				{Name: "http", Port: 80, TargetPort: api.FromString("http")},
				{Name: "https", Port: 443, AppProtocol: ptrTo("https")},
			},
		},
	}
}

func TestDefaultService(t *testing.T) {
	s := validService()
	s.Spec.ClusterIP = "10.96.0.10"
	defaultService(s)
	assert.Equal(t, api.ServiceTypeClusterIP, s.Spec.Type)
	assert.Equal(t, api.ServiceAffinityNone, s.Spec.SessionAffinity)
	assert.Equal(t, api.ProtocolTCP, s.Spec.Ports[0].Protocol)
	assert.Equal(t, api.FromString("http"), s.Spec.Ports[0].TargetPort, "a set target port is kept")
	assert.Equal(t, api.FromInt(443), s.Spec.Ports[1].TargetPort, "no target port means the service's port")
	assert.Equal(t, ptrTo(api.InternalTrafficPolicyCluster), s.Spec.InternalTrafficPolicy)
	assert.Equal(t, []string{"10.96.0.10"}, s.Spec.ClusterIPs)
	assert.Empty(t, s.Spec.ExternalTrafficPolicy, "a ClusterIP service has no external traffic policy")
	lb := validService()
	lb.Spec.Type = api.ServiceTypeLoadBalancer
	defaultService(lb)
	assert.Equal(t, api.ExternalTrafficPolicyCluster, lb.Spec.ExternalTrafficPolicy, "externally accessible: Cluster by default")

	fromList := &api.Service{Spec: api.ServiceSpec{ClusterIPs: []string{"10.96.0.11", "fd00::11"}, Ports: []api.ServicePort{{Port: 53, TargetPort: api.FromString("")}}}}
	defaultService(fromList)
	assert.Equal(t, "10.96.0.11", fromList.Spec.ClusterIP)
	assert.Equal(t, api.FromInt(53), fromList.Spec.Ports[0].TargetPort)

	external := &api.Service{Spec: api.ServiceSpec{Type: api.ServiceTypeExternalName, ExternalName: "example.com"}}
	defaultService(external)
	assert.Nil(t, external.Spec.InternalTrafficPolicy)
	assert.Equal(t, api.ServiceAffinityNone, external.Spec.SessionAffinity)
}

func TestValidateService(t *testing.T) {
	for _, tc := range []struct {
		name   string
		change func(*api.Service)
		want   string
		causes []cause
	}{
		{name: "valid", change: func(*api.Service) {}},
		{name: "headless without ports", change: func(s *api.Service) {
			s.Spec.ClusterIP = api.ClusterIPNone
			s.Spec.Ports = nil
		}},
		{name: "node port", change: func(s *api.Service) {
			s.Spec.Type = api.ServiceTypeNodePort
			s.Spec.Ports[0].NodePort = 30080
		}},
		{name: "dual stack", change: func(s *api.Service) { s.Spec.ClusterIPs = []string{"10.96.0.10", "fd00::10"} }},
		{name: "external name", change: func(s *api.Service) {
			s.Spec.Type = api.ServiceTypeExternalName
			s.Spec.ExternalName = "db.example.com."
			s.Spec.Ports = nil
		}},
		{name: "bad name", change: func(s *api.Service) { s.Metadata.Name = "1web" },
			want: `metadata.name: Invalid value: "1web": ` + msgDNS1035Label, causes: []cause{{invalid, "metadata.name"}}},
		{name: "no ports", change: func(s *api.Service) { s.Spec.Ports = nil },
			want: "spec.ports: Required value", causes: []cause{{required, "spec.ports"}}},
		{name: "port out of range", change: func(s *api.Service) { s.Spec.Ports[0].Port = 0 },
			want: "spec.ports[0].port: Invalid value: 0: must be between 1 and 65535, inclusive", causes: []cause{{invalid, "spec.ports[0].port"}}},
		{name: "target port out of range", change: func(s *api.Service) { s.Spec.Ports[1].TargetPort = api.FromInt(70000) },
			want: "spec.ports[1].targetPort: Invalid value: 70000: must be between 1 and 65535, inclusive", causes: []cause{{invalid, "spec.ports[1].targetPort"}}},
		{name: "target port name", change: func(s *api.Service) { s.Spec.Ports[0].TargetPort = api.FromString("web-http-endpoint") },
			want: `spec.ports[0].targetPort: Invalid value: "web-http-endpoint": must be no more than 15 characters`, causes: []cause{{invalid, "spec.ports[0].targetPort"}}},
		{name: "second port needs a name", change: func(s *api.Service) { s.Spec.Ports[1].Name = "" },
			want: "spec.ports[1].name: Required value", causes: []cause{{required, "spec.ports[1].name"}}},
		{name: "port name is a DNS label", change: func(s *api.Service) { s.Spec.Ports[1].Name = "HTTPS" },
			want: `spec.ports[1].name: Invalid value: "HTTPS": ` + msgDNS1123Label, causes: []cause{{invalid, "spec.ports[1].name"}}},
		{name: "port name twice", change: func(s *api.Service) { s.Spec.Ports[1].Name = "http" },
			want: `spec.ports[1].name: Duplicate value: "http"`, causes: []cause{{duplicate, "spec.ports[1].name"}}},
		{name: "same port and protocol twice", change: func(s *api.Service) { s.Spec.Ports[1].Port = 80 },
			want: `spec.ports[1]: Duplicate value: {"protocol":"TCP","port":80,"targetPort":0}`, causes: []cause{{duplicate, "spec.ports[1]"}}},
		{name: "same port, other protocol", change: func(s *api.Service) {
			s.Spec.Ports[1].Port = 80
			s.Spec.Ports[1].Protocol = api.ProtocolUDP
		}},
		{name: "bad protocol", change: func(s *api.Service) { s.Spec.Ports[0].Protocol = "HTTP" },
			want:   `spec.ports[0].protocol: Unsupported value: "HTTP": supported values: "SCTP", "TCP", "UDP"`,
			causes: []cause{{notSupported, "spec.ports[0].protocol"}}},
		{name: "bad appProtocol", change: func(s *api.Service) { s.Spec.Ports[1].AppProtocol = ptrTo("h t t p") },
			want:   `spec.ports[1].appProtocol: Invalid value: "h t t p": name part ` + msgQualifiedNamePart,
			causes: []cause{{invalid, "spec.ports[1].appProtocol"}}},
		{name: "bad type", change: func(s *api.Service) { s.Spec.Type = "Ingress" },
			want:   `spec.type: Unsupported value: "Ingress": supported values: "ClusterIP", "ExternalName", "LoadBalancer", "NodePort"`,
			causes: []cause{{notSupported, "spec.type"}}},
		{name: "node port on ClusterIP", change: func(s *api.Service) { s.Spec.Ports[0].NodePort = 30080 },
			want:   "spec.ports[0].nodePort: Forbidden: may not be used when `type` is 'ClusterIP'",
			causes: []cause{{forbidden, "spec.ports[0].nodePort"}}},
		{name: "node port twice", change: func(s *api.Service) {
			s.Spec.Type = api.ServiceTypeLoadBalancer
			s.Spec.Ports[0].NodePort = 30080
			s.Spec.Ports[1].NodePort = 30080
		},
			want: "spec.ports[1].nodePort: Duplicate value: 30080", causes: []cause{{duplicate, "spec.ports[1].nodePort"}}},
		{name: "headless NodePort", change: func(s *api.Service) {
			s.Spec.Type = api.ServiceTypeNodePort
			s.Spec.ClusterIP = api.ClusterIPNone
		},
			want:   `spec.clusterIPs[0]: Invalid value: "None": may not be set to 'None' for NodePort services`,
			causes: []cause{{invalid, "spec.clusterIPs[0]"}}},
		{name: "bad clusterIP", change: func(s *api.Service) { s.Spec.ClusterIP = "10.96.0" },
			want:   `spec.clusterIP: Invalid value: "10.96.0": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)`,
			causes: []cause{{invalid, "spec.clusterIP"}}},
		{name: "clusterIPs disagree", change: func(s *api.Service) {
			s.Spec.ClusterIP = "10.96.0.10"
			s.Spec.ClusterIPs = []string{"10.96.0.11"}
		},
			want:   "spec.clusterIPs: Invalid value: []string{\"10.96.0.11\"}: first value must match `clusterIP`",
			causes: []cause{{invalid, "spec.clusterIPs"}}},
		{name: "two IPv4 cluster IPs", change: func(s *api.Service) { s.Spec.ClusterIPs = []string{"10.96.0.10", "10.96.0.11"} },
			want:   `spec.clusterIPs: Invalid value: []string{"10.96.0.10", "10.96.0.11"}: may specify no more than one IP for each IP family`,
			causes: []cause{{invalid, "spec.clusterIPs"}}},
		{name: "bad ipFamily", change: func(s *api.Service) { s.Spec.IPFamilies = []api.IPFamily{"IPv5"} },
			want:   `spec.ipFamilies[0]: Unsupported value: "IPv5": supported values: "IPv4", "IPv6"`,
			causes: []cause{{notSupported, "spec.ipFamilies[0]"}}},
		{name: "bad selector", change: func(s *api.Service) { s.Spec.Selector = map[string]string{"app": "-web"} },
			want: `spec.selector: Invalid value: "-web": ` + msgLabelValue, causes: []cause{{invalid, "spec.selector"}}},
		{name: "bad session affinity", change: func(s *api.Service) { s.Spec.SessionAffinity = "Cookie" },
			want:   `spec.sessionAffinity: Unsupported value: "Cookie": supported values: "ClientIP", "None"`,
			causes: []cause{{notSupported, "spec.sessionAffinity"}}},
		{name: "bad internal traffic policy", change: func(s *api.Service) { s.Spec.InternalTrafficPolicy = ptrTo("Node") },
			want:   `spec.internalTrafficPolicy: Unsupported value: "Node": supported values: "Cluster", "Local"`,
			causes: []cause{{notSupported, "spec.internalTrafficPolicy"}}},
		{name: "external traffic policy on a ClusterIP service", change: func(s *api.Service) { s.Spec.ExternalTrafficPolicy = "Local" },
			want: `spec.externalTrafficPolicy: Invalid value: "Local": may only be set for externally-accessible services`, causes: []cause{{invalid, "spec.externalTrafficPolicy"}}},
		{name: "bad external traffic policy", change: func(s *api.Service) {
			s.Spec.Type, s.Spec.ExternalTrafficPolicy = api.ServiceTypeNodePort, "Node"
		},
			want: `spec.externalTrafficPolicy: Unsupported value: "Node": supported values: "Cluster", "Local"`, causes: []cause{{notSupported, "spec.externalTrafficPolicy"}}},
		{name: "health check port of a Local LoadBalancer", change: func(s *api.Service) {
			s.Spec.Type, s.Spec.ExternalTrafficPolicy, s.Spec.HealthCheckNodePort = api.ServiceTypeLoadBalancer, "Local", 31000
		}},
		{name: "health check port out of range", change: func(s *api.Service) {
			s.Spec.Type, s.Spec.ExternalTrafficPolicy, s.Spec.HealthCheckNodePort = api.ServiceTypeLoadBalancer, "Local", 65536
		},
			want: "spec.healthCheckNodePort: Invalid value: 65536: " + msgPortRange, causes: []cause{{invalid, "spec.healthCheckNodePort"}}},
		{name: "health check port with the Cluster policy", change: func(s *api.Service) {
			s.Spec.Type, s.Spec.HealthCheckNodePort = api.ServiceTypeLoadBalancer, 31000
		},
			want:   "spec.healthCheckNodePort: Invalid value: 31000: may only be set when `type` is 'LoadBalancer' and `externalTrafficPolicy` is 'Local'",
			causes: []cause{{invalid, "spec.healthCheckNodePort"}}},
		{name: "external name missing", change: func(s *api.Service) { s.Spec.Type = api.ServiceTypeExternalName },
			want: "spec.externalName: Required value", causes: []cause{{required, "spec.externalName"}}},
		{name: "external name invalid", change: func(s *api.Service) {
			s.Spec.Type = api.ServiceTypeExternalName
			s.Spec.ExternalName = "DB_HOST"
		},
			want: `spec.externalName: Invalid value: "DB_HOST": ` + msgDNS1123Subdomain, causes: []cause{{invalid, "spec.externalName"}}},
		{name: "external name with cluster IP", change: func(s *api.Service) {
			s.Spec.Type = api.ServiceTypeExternalName
			s.Spec.ExternalName = "db.example.com"
			s.Spec.ClusterIP = "10.96.0.10"
		},
			want: "spec.clusterIP: Forbidden: may not be set for ExternalName services", causes: []cause{{forbidden, "spec.clusterIP"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := validService()
			tc.change(s)
			defaultService(s)
			assertErrors(t, validateService(s), tc.want, tc.causes)
		})
	}
}

func TestValidateServiceUpdate(t *testing.T) {
	for _, tc := range []struct {
		name   string
		change func(*api.Service)
		want   string
		causes []cause
	}{
		{name: "same clusterIP", change: func(*api.Service) {}},
		{name: "type and ports change", change: func(s *api.Service) {
			s.Spec.Type = api.ServiceTypeNodePort
			s.Spec.Ports = s.Spec.Ports[:1]
		}},
		{name: "to ExternalName drops the cluster IP", change: func(s *api.Service) {
			s.Spec.Type = api.ServiceTypeExternalName
			s.Spec.ExternalName = "example.com"
			s.Spec.ClusterIP, s.Spec.ClusterIPs, s.Spec.InternalTrafficPolicy = "", nil, nil
		}},
		{name: "new clusterIP", change: func(s *api.Service) { s.Spec.ClusterIP, s.Spec.ClusterIPs = "10.96.0.99", nil },
			want: `spec.clusterIP: Invalid value: "10.96.0.99": field is immutable`, causes: []cause{{invalid, "spec.clusterIP"}}},
		{name: "cleared clusterIP", change: func(s *api.Service) { s.Spec.ClusterIP, s.Spec.ClusterIPs = "", nil },
			want: `spec.clusterIP: Invalid value: "": field is immutable`, causes: []cause{{invalid, "spec.clusterIP"}}},
		{name: "namespace", change: func(s *api.Service) { s.Metadata.Namespace = "kube-system" },
			want: `metadata.namespace: Invalid value: "kube-system": field is immutable`, causes: []cause{{invalid, "metadata.namespace"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			old := validService()
			old.Spec.ClusterIP = "10.96.0.10"
			defaultService(old)
			s := old.DeepCopy()
			tc.change(s)
			defaultService(s)
			assertErrors(t, validateServiceUpdate(s, old), tc.want, tc.causes)
		})
	}
}
