package apiserver

import (
	"errors"
	"fmt"
	"maps"
	"strconv"
	"strings"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/api/apierrors"
)

// serviceNodePortRange is where node ports come from unless
// Config.ServiceNodePortRange says otherwise: kube-apiserver's default
// --service-node-port-range, 30000-32767.
var serviceNodePortRange = portRange{base: 30000, size: 2768}

// PortRange is a range of ports, Base to Base+Size-1, as kube-apiserver's
// --service-node-port-range gives it. The zero value is no range.
// Kubernetes: apimachinery's net.PortRange.
type PortRange struct {
	Base, Size int
}

// String is the range as "30000-32767"; "" for no range.
func (r PortRange) String() string {
	if r.Size == 0 {
		return ""
	}
	return fmt.Sprintf("%d-%d", r.Base, r.Base+r.Size-1)
}

// ParsePortRange reads a port range as kube-apiserver's flag does: "A-B",
// "A+N" (A to A+N) or one port "A", no port above 65535 and the end not
// below the start, with apimachinery's messages. An empty value is no range.
// Kubernetes: net.PortRange.Set.
func ParsePortRange(value string) (PortRange, error) {
	value = strings.TrimSpace(value)
	if value == "" {
		return PortRange{}, nil
	}
	hyphen, plus := strings.Index(value, "-"), strings.Index(value, "+")
	var low, high int
	var err error
	atoi := func(s string, n *int) {
		if err == nil {
			*n, err = strconv.Atoi(s)
		}
	}
	switch {
	case hyphen == -1 && plus == -1:
		atoi(value, &low)
		high = low
	case plus == -1:
		atoi(value[:hyphen], &low)
		atoi(value[hyphen+1:], &high)
	case hyphen == -1:
		var offset int
		atoi(value[:plus], &low)
		atoi(value[plus+1:], &offset)
		high = low + offset
	default:
		return PortRange{}, fmt.Errorf("unable to parse port range: %s", value)
	}
	switch {
	case err != nil:
		return PortRange{}, err
	case low > 65535 || high > 65535:
		return PortRange{}, fmt.Errorf("the port range cannot be greater than 65535: %s", value)
	case high < low:
		return PortRange{}, fmt.Errorf("end port cannot be less than start port: %s", value)
	}
	return PortRange{Base: low, Size: 1 + high - low}, nil
}

// portRange is the ports base to base+size-1.
type portRange struct {
	base, size int32
}

func (r portRange) contains(p int32) bool { return p >= r.base && p < r.base+r.size }

func (r portRange) String() string { return fmt.Sprintf("%d-%d", r.base, r.base+r.size-1) }

// portAllocator hands out service node ports from its range: offset 0 is
// the range's first port. Kubernetes: portallocator.
type portAllocator struct {
	rangeAllocator
	r portRange
}

func newPortAllocator(r portRange) portAllocator {
	return portAllocator{rangeAllocator: newRangeAllocator(r.String(), int(r.size)), r: r}
}

// allocate returns a free port and marks it used (dry: not).
func (a *portAllocator) allocate(dry bool) (int32, error) {
	i, err := a.allocateNext(dry)
	if err != nil {
		return 0, err
	}
	return a.r.base + int32(i), nil
}

// reserve marks a client-chosen port used, or says why it cannot be, in
// kube-apiserver's words (dry: checks only).
func (a *portAllocator) reserve(p int32, dry bool) error {
	if !a.r.contains(p) {
		return refusal("provided port is not in the valid range. The range of valid ports is " + a.r.String())
	}
	switch err := a.rangeAllocator.allocate(int(p-a.r.base), dry); {
	case errors.Is(err, errAllocated):
		return refusal("provided port is already allocated")
	case err != nil:
		return err
	}
	return nil
}

// release returns a port to the pool; a port not held is ignored.
func (a *portAllocator) release(p int32) {
	if a.r.contains(p) {
		a.rangeAllocator.release(int(p - a.r.base))
	}
}

// needsNodePorts reports whether a service of this type exposes node
// ports. Kubernetes: needsNodePort (allocateLoadBalancerNodePorts, which
// miniplane does not serve, is taken as true).
func needsNodePorts(svc *api.Service) bool {
	return svc.Spec.Type == api.ServiceTypeNodePort || svc.Spec.Type == api.ServiceTypeLoadBalancer
}

// needsHealthCheck reports whether a service has a health check node
// port: a LoadBalancer whose external traffic stays on the node it enters.
// Kubernetes: apiservice.NeedsHealthCheck.
func needsHealthCheck(svc *api.Service) bool {
	return svc.Spec.Type == api.ServiceTypeLoadBalancer && svc.Spec.ExternalTrafficPolicy == api.ExternalTrafficPolicyLocal
}

// nodePortsOf returns the node ports a service holds, its health check
// node port included.
func nodePortsOf(svc *api.Service) map[int32]bool {
	held := map[int32]bool{}
	for _, p := range svc.Spec.Ports {
		if p.NodePort != 0 {
			held[p.NodePort] = true
		}
	}
	if needsHealthCheck(svc) && svc.Spec.HealthCheckNodePort != 0 {
		held[svc.Spec.HealthCheckNodePort] = true
	}
	return held
}

// allocateNodePorts gives svc's ports the node ports its type needs: a
// port's chosen nodePort is reserved (refused with kube-apiserver's
// message when taken or out of range), an unset one allocated. Ports
// already held (by the version an update replaces) stay held; a number
// given to two ports (say TCP and UDP) is taken once. It returns the undo.
// Kubernetes: the service REST's allocateNodePorts and initNodePorts.
func (s *Server) allocateNodePorts(k *kind, svc *api.Service, held map[int32]bool, dry bool) (undo func(), err error) {
	var taken []int32
	undo = func() {
		if dry {
			return
		}
		for _, p := range taken {
			s.nodePorts.release(p)
		}
	}
	if !needsNodePorts(svc) {
		return undo, nil
	}
	mine := maps.Clone(held)
	if mine == nil {
		mine = map[int32]bool{}
	}
	for i := range svc.Spec.Ports {
		sp := &svc.Spec.Ports[i]
		switch {
		case sp.NodePort != 0 && mine[sp.NodePort]:
			continue
		case sp.NodePort != 0:
			if err := s.nodePorts.reserve(sp.NodePort, dry); err != nil {
				undo()
				if !isRefusal(err) {
					return nil, apierrors.NewInternalError(fmt.Errorf("failed to allocate port %d: %w", sp.NodePort, err))
				}
				return nil, apierrors.NewInvalid(k.gr.Group, k.kind, svc.Metadata.Name, apierrors.FieldErrors{
					Invalid(NewPath("spec", "ports").Index(i).Child("nodePort"), sp.NodePort, err.Error())})
			}
		default:
			p, err := s.nodePorts.allocate(dry)
			if err != nil {
				undo()
				return nil, apierrors.NewInternalError(fmt.Errorf("failed to allocate a nodePort: %w", err))
			}
			sp.NodePort = p
		}
		taken = append(taken, sp.NodePort)
		mine[sp.NodePort] = true
	}
	if !needsHealthCheck(svc) || mine[svc.Spec.HealthCheckNodePort] {
		return undo, nil
	}
	// The health check port, chosen or not, as allocHealthCheckNodePort:
	// a refusal is an internal error there, not an invalid field.
	if hc := svc.Spec.HealthCheckNodePort; hc != 0 {
		if err := s.nodePorts.reserve(hc, dry); err != nil {
			undo()
			return nil, apierrors.NewInternalError(fmt.Errorf("failed to allocate requested HealthCheck NodePort %d: %w", hc, err))
		}
	} else {
		p, err := s.nodePorts.allocate(dry)
		if err != nil {
			undo()
			return nil, apierrors.NewInternalError(fmt.Errorf("failed to allocate a HealthCheck NodePort %d: %w", p, err))
		}
		svc.Spec.HealthCheckNodePort = p
	}
	taken = append(taken, svc.Spec.HealthCheckNodePort)
	return undo, nil
}

// keepHealthCheckNodePort carries an update's health check node port and
// external traffic policy over from the version it replaces, or drops them
// when the new type has no use for them and the client left them as they
// were. Kubernetes: patchAllocatedValues and dropTypeDependentFields.
func keepHealthCheckNodePort(svc, old *api.Service) {
	if !externallyAccessible(svc) && externallyAccessible(old) && svc.Spec.ExternalTrafficPolicy == old.Spec.ExternalTrafficPolicy {
		svc.Spec.ExternalTrafficPolicy = ""
	}
	switch {
	case needsHealthCheck(svc) && needsHealthCheck(old) && svc.Spec.HealthCheckNodePort == 0:
		svc.Spec.HealthCheckNodePort = old.Spec.HealthCheckNodePort
	case !needsHealthCheck(svc) && needsHealthCheck(old) && svc.Spec.HealthCheckNodePort == old.Spec.HealthCheckNodePort:
		svc.Spec.HealthCheckNodePort = 0
	}
}

// externallyAccessible reports whether a service is reached from outside
// the cluster (miniplane does not model externalIPs). Kubernetes:
// apiservice.ExternallyAccessible.
func externallyAccessible(svc *api.Service) bool {
	return svc.Spec.Type == api.ServiceTypeLoadBalancer || svc.Spec.Type == api.ServiceTypeNodePort
}

// keepNodePorts carries an update's node ports over from the version it
// replaces: a port left without one takes the old port's of the same
// number and protocol (kubectl apply never sends them), and a service that
// stops needing node ports drops the ones it had, unless the client
// changed them. Kubernetes: patchAllocatedValues and
// dropTypeDependentFields.
func keepNodePorts(svc, old *api.Service) {
	typ := svc.Spec.Type
	if typ == "" {
		typ = api.ServiceTypeClusterIP
	}
	if typ == api.ServiceTypeNodePort || typ == api.ServiceTypeLoadBalancer {
		if !needsNodePorts(old) {
			return
		}
		for i := range svc.Spec.Ports {
			sp := &svc.Spec.Ports[i]
			if sp.NodePort != 0 {
				continue
			}
			for _, op := range old.Spec.Ports {
				if op.Port == sp.Port && protocolOrTCP(op.Protocol) == protocolOrTCP(sp.Protocol) {
					sp.NodePort = op.NodePort
					break
				}
			}
		}
		return
	}
	if !needsNodePorts(old) || !sameNodePorts(svc, old) {
		return
	}
	ports := make([]api.ServicePort, len(svc.Spec.Ports))
	copy(ports, svc.Spec.Ports)
	for i := range ports {
		ports[i].NodePort = 0
	}
	svc.Spec.Ports = ports
}

// sameNodePorts reports whether every port of svc has the node port of the
// old port of the same number and protocol (or none where there is none).
// Kubernetes: sameNodePorts.
func sameNodePorts(svc, old *api.Service) bool {
	for _, sp := range svc.Spec.Ports {
		if sp.NodePort == 0 {
			continue
		}
		found := false
		for _, op := range old.Spec.Ports {
			if op.Port == sp.Port && protocolOrTCP(op.Protocol) == protocolOrTCP(sp.Protocol) {
				found = op.NodePort == sp.NodePort
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}

func protocolOrTCP(p api.Protocol) api.Protocol {
	if p == "" {
		return api.ProtocolTCP
	}
	return p
}
