package apiserver

import (
	"slices"
	"strconv"
	"strings"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/api/apierrors"
)

// networkingKinds returns the networking.k8s.io/v1 kinds: Ingresses (with
// a status subresource), IngressClasses and NetworkPolicies. They are
// served with kube-apiserver's strategies, and the DefaultIngressClass
// admission step names an ingress's class, but nothing acts on them: no
// ingress controller or network plugin runs here (actedon.go).
func networkingKinds() []*kind {
	networking := func(resource string) apierrors.GroupResource {
		return apierrors.GroupResource{Group: "networking.k8s.io", Resource: resource}
	}
	ingress := typed(&kind{
		gr: networking("ingresses"), kind: "Ingress", apiVersion: "networking.k8s.io/v1", namespaced: true, shortNames: []string{"ing"}, singular: "ingress",
		newObj: func() api.Object { return &api.Ingress{} }, resetStatusOnCreate: true,
		// kube-apiserver's ingress status strategy resets only the spec: a
		// status patch's annotations are stored with it (conformance:
		// "should support creating Ingress API operations").
		status: statusOf(func(o *api.Ingress) *api.IngressStatus { return &o.Status }), statusTakesAnnotations: true,
		columns: ingressColumns,
	}, defaultIngress, validateIngress, validateIngressUpdate)
	ingress.validateStatus = func(o, old api.Object) apierrors.FieldErrors {
		return validateIngressStatusUpdate(o.(*api.Ingress), old.(*api.Ingress))
	}
	return []*kind{
		ingress,
		typed(&kind{
			gr: networking("ingressclasses"), kind: "IngressClass", apiVersion: "networking.k8s.io/v1", singular: "ingressclass",
			newObj:  func() api.Object { return &api.IngressClass{} },
			columns: ingressClassColumns,
		}, defaultIngressClass, validateIngressClass, validateIngressClassUpdate),
		typed(&kind{
			gr: networking("networkpolicies"), kind: "NetworkPolicy", apiVersion: "networking.k8s.io/v1", namespaced: true,
			shortNames: []string{"netpol"}, singular: "networkpolicy",
			newObj:  func() api.Object { return &api.NetworkPolicy{} },
			columns: networkPolicyColumns,
		}, defaultNetworkPolicy, validateNetworkPolicy, validateNetworkPolicyUpdate),
	}
}

// The columns of kubectl's tables for these kinds, as Kubernetes'
// pkg/printers/internalversion prints them (the server prints wide: the
// address is not clipped).
var (
	ingressColumns = []Column{nameColumn,
		{Name: "Class", Type: "string", Description: "The name of the IngressClass resource that should be used for additional configuration",
			Cell: func(o api.Object) any {
				if c := o.(*api.Ingress).Spec.IngressClassName; c != nil {
					return *c
				}
				return "<none>"
			}},
		{Name: "Hosts", Type: "string", Description: "Hosts that incoming requests are matched against before the ingress rule",
			Cell: func(o api.Object) any { return ingressHosts(o.(*api.Ingress).Spec.Rules) }},
		{Name: "Address", Type: "string", Description: "Address is a list containing ingress points for the load-balancer",
			Cell: func(o api.Object) any { return ingressAddress(o.(*api.Ingress).Status.LoadBalancer) }},
		{Name: "Ports", Type: "string", Description: "Ports of TLS configurations that open",
			Cell: func(o api.Object) any {
				if len(o.(*api.Ingress).Spec.TLS) != 0 {
					return "80, 443"
				}
				return "80"
			}},
		ageColumn}
	ingressClassColumns = []Column{nameColumn,
		{Name: "Controller", Type: "string", Description: "Controller that is responsible for handling this class",
			Cell: func(o api.Object) any { return o.(*api.IngressClass).Spec.Controller }},
		{Name: "Parameters", Type: "string", Description: "A reference to a resource with additional parameters",
			Cell: func(o api.Object) any {
				p := o.(*api.IngressClass).Spec.Parameters
				if p == nil {
					return "<none>"
				}
				s := p.Kind
				if p.APIGroup != nil {
					s += "." + *p.APIGroup
				}
				return s + "/" + p.Name
			}},
		ageColumn}
	networkPolicyColumns = []Column{nameColumn,
		{Name: "Pod-Selector", Type: "string", Description: "Selects the pods to which this NetworkPolicy object applies.  The array of ingress rules is applied to any pods selected by this field. Multiple network policies can select the same set of pods.  In this case, the ingress rules for each are combined additively. This field is NOT optional and follows standard label selector semantics. An empty podSelector matches all pods in this namespace.",
			Cell: func(o api.Object) any { return api.FormatLabelSelector(&o.(*api.NetworkPolicy).Spec.PodSelector) }},
		ageColumn}
)

// ingressHosts is the Hosts cell: the first three rules' hosts, "*" when
// none names one. Kubernetes: formatHosts.
func ingressHosts(rules []api.IngressRule) string {
	const max = 3
	var hosts []string
	more := false
	for _, r := range rules {
		if len(hosts) == max {
			more = true
		}
		if !more && r.Host != "" {
			hosts = append(hosts, r.Host)
		}
	}
	if len(hosts) == 0 {
		return "*"
	}
	s := strings.Join(hosts, ",")
	if more {
		s += " + " + strconv.Itoa(len(rules)-max) + " more..."
	}
	return s
}

// ingressAddress is the Address cell: the load balancer's IPs (or
// hostnames), sorted and unique. Kubernetes: ingressLoadBalancerStatusStringer.
func ingressAddress(lb api.IngressLoadBalancerStatus) string {
	var addrs []string
	for _, in := range lb.Ingress {
		switch {
		case in.IP != "":
			addrs = append(addrs, in.IP)
		case in.Hostname != "":
			addrs = append(addrs, in.Hostname)
		}
	}
	slices.Sort(addrs)
	return strings.Join(slices.Compact(addrs), ",")
}
