package httpapi

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/miniplane/miniplane/api"
)

// The cell helpers below follow what kubectl users know from a real
// cluster (Kubernetes' printers.go): "<none>" for nothing, ages like 5s,
// 3m10s, 2d4h.

func orNone(s string) string {
	if s == "" {
		return "<none>"
	}
	return s
}

func orUnknown(s string) string {
	if s == "" {
		return "<unknown>"
	}
	return s
}

// age is the time since t, in kubectl's short form; "<unknown>" for no time.
func age(t api.Time, now time.Time) string {
	if t.IsZero() {
		return "<unknown>"
	}
	return humanDuration(now.Sub(t.Time))
}

// humanDuration prints a duration the way kubectl's ages read: two units
// while the larger is small, one after.
func humanDuration(d time.Duration) string {
	if d < -time.Second {
		return "<invalid>"
	}
	if d < 0 {
		return "0s"
	}
	s := int64(d / time.Second)
	m, h := s/60, s/3600
	days, years := h/24, h/(24*365)
	two := func(a int64, ua string, b int64, ub string) string {
		if b == 0 {
			return strconv.FormatInt(a, 10) + ua
		}
		return strconv.FormatInt(a, 10) + ua + strconv.FormatInt(b, 10) + ub
	}
	switch {
	case s < 120:
		return strconv.FormatInt(s, 10) + "s"
	case m < 10:
		return two(m, "m", s%60, "s")
	case m < 180:
		return strconv.FormatInt(m, 10) + "m"
	case h < 8:
		return two(h, "h", m%60, "m")
	case h < 48:
		return strconv.FormatInt(h, 10) + "h"
	case h < 24*8:
		return two(days, "d", h%24, "h")
	case h < 24*365*2:
		return strconv.FormatInt(days, 10) + "d"
	case h < 24*365*8:
		return two(years, "y", days%365, "d")
	}
	return strconv.FormatInt(years, 10) + "y"
}

// selectorText prints an equality selector as k=v,k=v in key order.
func selectorText(sel map[string]string) string {
	if len(sel) == 0 {
		return "<none>"
	}
	return api.SelectorFromSet(sel).String()
}

// externalIPs is a service's EXTERNAL-IP cell.
func externalIPs(s *api.Service) string {
	switch s.Spec.Type {
	case api.ServiceTypeExternalName:
		return s.Spec.ExternalName
	case api.ServiceTypeLoadBalancer:
		var ips []string
		for _, in := range s.Status.LoadBalancer.Ingress {
			if in.IP != "" {
				ips = append(ips, in.IP)
			} else if in.Hostname != "" {
				ips = append(ips, in.Hostname)
			}
		}
		if len(ips) == 0 {
			return "<pending>"
		}
		return strings.Join(ips, ",")
	}
	return "<none>"
}

// servicePorts is a service's PORT(S) cell: 80/TCP, 80:30080/TCP, ...
func servicePorts(ports []api.ServicePort) string {
	if len(ports) == 0 {
		return "<none>"
	}
	parts := make([]string, len(ports))
	for i, p := range ports {
		proto := p.Protocol
		if proto == "" {
			proto = "TCP"
		}
		if p.NodePort != 0 {
			parts[i] = fmt.Sprintf("%d:%d/%s", p.Port, p.NodePort, proto)
		} else {
			parts[i] = fmt.Sprintf("%d/%s", p.Port, proto)
		}
	}
	return strings.Join(parts, ",")
}

// endpointsText is an endpoints object's ENDPOINTS cell: ip:port pairs,
// the first max of them, then "+ N more...".
func endpointsText(subsets []api.EndpointSubset, limit int) string {
	var list []string
	total := 0
	add := func(s string) {
		if len(list) < limit {
			list = append(list, s)
		}
		total++
	}
	for _, ss := range subsets {
		for _, a := range ss.Addresses {
			if len(ss.Ports) == 0 {
				add(a.IP)
				continue
			}
			for _, p := range ss.Ports {
				add(a.IP + ":" + strconv.Itoa(int(p.Port)))
			}
		}
	}
	if total == 0 {
		return "<none>"
	}
	out := strings.Join(list, ",")
	if total > len(list) {
		out += fmt.Sprintf(" + %d more...", total-len(list))
	}
	return out
}

// nodeStatus is a node's STATUS cell: Ready, NotReady or Unknown, with
// SchedulingDisabled when cordoned.
func nodeStatus(n *api.Node) string {
	status := "Unknown"
	for _, c := range n.Status.Conditions {
		if c.Type == api.NodeReady {
			if c.Status == api.ConditionTrue {
				status = "Ready"
			} else {
				status = "NotReady"
			}
		}
	}
	if n.Spec.Unschedulable {
		status += ",SchedulingDisabled"
	}
	return status
}

// Node role labels: node-role.kubernetes.io/<role> and kubernetes.io/role.
const (
	nodeRolePrefix = "node-role.kubernetes.io/"
	nodeRoleLabel  = "kubernetes.io/role"
)

// nodeRoles is a node's ROLES cell, from its role labels.
func nodeRoles(n *api.Node) string {
	var roles []string
	for k, v := range n.Metadata.Labels {
		switch {
		case strings.HasPrefix(k, nodeRolePrefix) && len(k) > len(nodeRolePrefix):
			roles = append(roles, k[len(nodeRolePrefix):])
		case k == nodeRoleLabel && v != "":
			roles = append(roles, v)
		}
	}
	if len(roles) == 0 {
		return "<none>"
	}
	sort.Strings(roles)
	return strings.Join(roles, ",")
}

func nodeAddress(n *api.Node, t api.NodeAddressType) string {
	for _, a := range n.Status.Addresses {
		if a.Type == t {
			return a.Address
		}
	}
	return "<none>"
}

// jobStatus is kubectl's STATUS of a job: Complete, Failed, Terminating,
// Suspended, FailureTarget or Running, in that order of precedence.
func jobStatus(j *api.Job) string {
	has := func(typ string) bool {
		for _, c := range j.Status.Conditions {
			if c.Type == typ && c.Status == api.ConditionTrue {
				return true
			}
		}
		return false
	}
	switch {
	case has(api.JobComplete):
		return "Complete"
	case has(api.JobFailed):
		return "Failed"
	case j.Metadata.DeletionTimestamp != nil:
		return "Terminating"
	case has(api.JobSuspended):
		return "Suspended"
	case has(api.JobFailureTarget):
		return "FailureTarget"
	}
	return "Running"
}

// jobCompletions is kubectl's COMPLETIONS: succeeded/completions, or for a
// work queue (no completions) succeeded/1, "of parallelism" when above 1.
func jobCompletions(j *api.Job) string {
	if j.Spec.Completions != nil {
		return fmt.Sprintf("%d/%d", j.Status.Succeeded, *j.Spec.Completions)
	}
	if p := j.Spec.Parallelism; p != nil && *p > 1 {
		return fmt.Sprintf("%d/1 of %d", j.Status.Succeeded, *p)
	}
	return fmt.Sprintf("%d/1", j.Status.Succeeded)
}

// jobDuration is kubectl's DURATION: from the start time to completion, or
// to now while the job has not completed; empty before it started.
func jobDuration(j *api.Job, now time.Time) string {
	switch {
	case j.Status.StartTime == nil:
		return ""
	case j.Status.CompletionTime == nil:
		return humanDuration(now.Sub(j.Status.StartTime.Time))
	}
	return humanDuration(j.Status.CompletionTime.Sub(j.Status.StartTime.Time))
}
