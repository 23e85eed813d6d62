package apiserver

import (
	"net/netip"
	"sync"

	"go.uber.org/zap"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/client"
)

// The kubernetes Service: how pods find the API server. kube-apiserver
// keeps it (pkg/controlplane/controller/kubernetesservice, and the
// endpoint reconciler of pkg/controlplane/reconcilers); so does Server
// once PublishKubernetesService is called.
const (
	// KubernetesServiceName is the Service's, its Endpoints' and its
	// EndpointSlice's name, in namespace "default".
	KubernetesServiceName = "kubernetes"
	// KubernetesServicePort is its port, named "https".
	KubernetesServicePort = 443
)

// PlaceholderAPIServerAddress is what the kubernetes Endpoints name when
// the API server has no address (a plane reached in process only):
// 192.0.2.1, from TEST-NET-1, which RFC 5737 reserves for documentation,
// and kube-apiserver's secure port. Nothing listens there.
var PlaceholderAPIServerAddress = netip.MustParseAddrPort("192.0.2.1:6443")

// kubernetesService is what PublishKubernetesService keeps.
type kubernetesService struct {
	// mu guards addr; addr is valid once published.
	mu   sync.Mutex
	addr netip.AddrPort
}

// PublishKubernetesService creates the Service default/kubernetes — the
// first IP of the service range, port 443 named https, targeting addr's
// port, labelled component=apiserver, provider=kubernetes — and its
// Endpoints and EndpointSlice naming addr, and keeps them: deleted, Sweep creates them
// again. kube-apiserver runs this as a post-start hook on its advertised
// address; `miniplane serve` passes the loopback address it listens on,
// which kube-apiserver's Endpoints validation would refuse (it never
// advertises loopback): the server writes its own Endpoints and slice past that one
// check. Call it once, before serving; the IP is held back from other
// services from then on.
func (s *Server) PublishKubernetesService(addr netip.AddrPort) {
	s.kubeSvc.mu.Lock()
	s.kubeSvc.addr = addr
	s.kubeSvc.mu.Unlock()
	s.ips.keep(serviceCIDR.Addr().Next())
	s.ensureKubernetesService()
}

// kubernetesServiceKey reports whether key is the kubernetes Service's or
// its Endpoints' and the server keeps them.
func (s *Server) kubernetesServiceKey(key string) bool {
	s.kubeSvc.mu.Lock()
	kept := s.kubeSvc.addr.IsValid()
	s.kubeSvc.mu.Unlock()
	return kept && (key == s.kinds[client.Services].key("default", KubernetesServiceName) ||
		key == s.kinds[client.Endpoints].key("default", KubernetesServiceName) ||
		key == s.kinds["endpointslices.discovery.k8s.io"].key("default", KubernetesServiceName))
}

// noteKubernetesServiceGone has Sweep put back the kubernetes Service or
// Endpoints just deleted, at once.
func (s *Server) noteKubernetesServiceGone(key string) {
	at := s.clock.Now()
	s.graceMu.Lock()
	defer s.graceMu.Unlock()
	s.setGraceLocked(key, at)
	if s.armed.IsZero() || at.Before(s.armed) {
		close(s.sweepWake)
		s.sweepWake = make(chan struct{})
	}
}

// ensureKubernetesService creates whichever of the Service, Endpoints and
// EndpointSlice is missing; it returns how many it created. Kubernetes:
// CreateOrUpdateMasterServiceIfNeeded and the endpoint reconciler, whose
// EndpointsAdapter writes the slice beside the Endpoints, named as the
// service and labelled kubernetes.io/service-name, with no managed-by label
// (so no endpointslice controller claims it). They also rewrite a changed
// Service, Endpoints or slice: not done here.
func (s *Server) ensureKubernetesService() int {
	s.kubeSvc.mu.Lock()
	addr := s.kubeSvc.addr
	s.kubeSvc.mu.Unlock()
	labels := map[string]string{"component": "apiserver", "provider": "kubernetes"}
	svc := &api.Service{
		Metadata: api.ObjectMeta{Namespace: "default", Name: KubernetesServiceName, Labels: labels},
		Spec: api.ServiceSpec{
			Type:      api.ServiceTypeClusterIP,
			ClusterIP: serviceCIDR.Addr().Next().String(),
			Ports: []api.ServicePort{{
				Name: "https", Protocol: api.ProtocolTCP, Port: KubernetesServicePort,
				TargetPort: api.FromInt(int(addr.Port())),
			}},
			SessionAffinity: api.ServiceAffinityNone,
		},
	}
	ep := &api.Endpoints{
		Metadata: api.ObjectMeta{Namespace: "default", Name: KubernetesServiceName,
			Labels: map[string]string{"endpointslice.kubernetes.io/skip-mirror": "true"}},
		Subsets: []api.EndpointSubset{{
			Addresses: []api.EndpointAddress{{IP: addr.Addr().String()}},
			Ports:     []api.EndpointPort{{Name: "https", Port: int32(addr.Port()), Protocol: api.ProtocolTCP}},
		}},
	}
	slice := kubernetesEndpointSlice(addr)
	made := 0
	for _, obj := range []api.Object{svc, ep, slice} {
		m := obj.GetObjectMeta()
		k, _ := s.kindOf(obj)
		if _, err := s.store.Get(k.key(m.Namespace, m.Name), 0); err == nil {
			continue
		}
		if _, err := s.create(obj, writeOptions{ownWrite: true, fieldManager: "kube-apiserver"}); err != nil {
			s.log.Warn("creating the kubernetes service", zap.String("kind", k.kind), zap.Error(err))
			continue
		}
		made++
	}
	return made
}

// kubernetesEndpointSlice is the slice kube-apiserver's EndpointsAdapter
// derives from the kubernetes Endpoints: one ready endpoint at addr, the
// https port. Kubernetes: endpointSliceFromEndpoints in
// pkg/controlplane/reconcilers.
func kubernetesEndpointSlice(addr netip.AddrPort) *api.EndpointSlice {
	addrType := api.AddressTypeIPv4
	if addr.Addr().Is6() && !addr.Addr().Is4In6() {
		addrType = api.AddressTypeIPv6
	}
	ready, name, tcp, port := true, "https", api.ProtocolTCP, int32(addr.Port())
	return &api.EndpointSlice{
		Metadata: api.ObjectMeta{Namespace: "default", Name: KubernetesServiceName,
			Labels: map[string]string{"kubernetes.io/service-name": KubernetesServiceName}},
		AddressType: addrType,
		Endpoints:   []api.Endpoint{{Addresses: []string{addr.Addr().String()}, Conditions: api.EndpointConditions{Ready: &ready}}},
		Ports:       []api.EndpointSlicePort{{Name: &name, Protocol: &tcp, Port: &port}},
	}
}
