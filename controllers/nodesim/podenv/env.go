package podenv

import (
	"fmt"
	"math"
	"net"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/controllers/nodesim/container"
	"github.com/miniplane/miniplane/controllers/scheduler/fit"
)

// Sources are what the kubelet reads, besides the pod, to start its
// containers.
type Sources struct {
	// ConfigMap and Secret return an object of the pod's namespace, or
	// false when there is none.
	ConfigMap func(name string) (*api.ConfigMap, bool)
	Secret    func(name string) (*api.Secret, bool)
	// Services returns the cluster's services (the kubelet's service lister
	// lists them all), in any order.
	Services func() []*api.Service
	// Allocatable is the node's allocatable resources: the limit of a
	// container that sets none, for the downward API.
	Allocatable api.ResourceList
	// Token, if set, issues a token of the pod's service account for
	// audience ("" for the API server's), valid for expirationSeconds, as a
	// kubelet asks TokenRequest for one; nil: the files hold
	// TokenPlaceholder.
	Token func(audience string, expirationSeconds int64) (string, error)
}

// Event is an event the kubelet records about the pod while it works out
// a container's environment.
type Event struct{ Type, Reason, Message string }

// ConfigError is why a container cannot be started: a ConfigMap, a Secret
// or a key its environment needs is missing. Its message is the kubelet's,
// which the container's waiting state (CreateContainerConfigError) shows.
type ConfigError struct{ Message string }

func (e *ConfigError) Error() string { return e.Message }

// ordered is a map that remembers the order its keys were first set in.
type ordered struct {
	keys []string
	vals map[string]string
}

func newOrdered() *ordered { return &ordered{vals: map[string]string{}} }

func (o *ordered) set(k, v string) {
	if _, ok := o.vals[k]; !ok {
		o.keys = append(o.keys, k)
	}
	o.vals[k] = v
}

func (o *ordered) get(k string) (string, bool) {
	v, ok := o.vals[k]
	return v, ok
}

func (o *ordered) remove(k string) {
	if _, ok := o.vals[k]; ok {
		delete(o.vals, k)
		o.keys = slices.DeleteFunc(o.keys, func(x string) bool { return x == k })
	}
}

// Variables returns the environment variables the kubelet computes for
// container ct of pod: envFrom's keys, then env (whose values expand
// $(VAR) references to the variables before them and the service
// variables), then the service variables the container does not set
// itself; the events it records (keys of envFrom that are no variable
// names); or a ConfigError. Kubernetes: makeEnvironmentVariables.
func Variables(pod *api.Pod, ct *api.Container, src Sources) ([]container.EnvVar, []Event, error) {
	links := pod.Spec.EnableServiceLinks == nil || *pod.Spec.EnableServiceLinks
	serviceEnv := serviceVariables(pod.Metadata.Namespace, links, src.Services())
	ns := pod.Metadata.Namespace
	env := newOrdered()
	var events []Event
	for _, from := range ct.EnvFrom {
		var (
			data     map[string]string
			kind     string
			name     string
			optional bool
		)
		switch {
		case from.ConfigMapRef != nil:
			kind, name, optional = "configMap", from.ConfigMapRef.Name, isTrue(from.ConfigMapRef.Optional)
			cm, ok := src.ConfigMap(name)
			if !ok {
				if optional {
					continue
				}
				return nil, nil, &ConfigError{fmt.Sprintf("configmap %q not found", name)}
			}
			data = cm.Data
		case from.SecretRef != nil:
			kind, name, optional = "secret", from.SecretRef.Name, isTrue(from.SecretRef.Optional)
			s, ok := src.Secret(name)
			if !ok {
				if optional {
					continue
				}
				return nil, nil, &ConfigError{fmt.Sprintf("secret %q not found", name)}
			}
			data = make(map[string]string, len(s.Data))
			for k, v := range s.Data {
				data[k] = string(v)
			}
		default:
			continue
		}
		var invalid []string
		for _, k := range sortedKeys(data) {
			v := data[k]
			k = from.Prefix + k
			if !isEnvVarName(k) {
				invalid = append(invalid, k)
				continue
			}
			env.set(k, v)
		}
		if len(invalid) > 0 {
			sort.Strings(invalid)
			events = append(events, Event{api.EventTypeWarning, "InvalidEnvironmentVariableNames", fmt.Sprintf(
				"Keys [%s] from the EnvFrom %s %s/%s were skipped since they are considered invalid environment variable names.",
				strings.Join(invalid, ", "), kind, ns, name)})
		}
	}
	mapping := mappingOf(env, serviceEnv)
	for i := range ct.Env {
		ev := &ct.Env[i]
		value := ev.Value
		switch from := ev.ValueFrom; {
		case value != "":
			value = Expand(value, mapping)
		case from == nil:
		case from.FieldRef != nil:
			v, err := fieldValue(pod, from.FieldRef.FieldPath)
			if err != nil {
				return nil, nil, &ConfigError{err.Error()}
			}
			value = v
		case from.ResourceFieldRef != nil:
			v, err := resourceValue(pod, ct, from.ResourceFieldRef, src.Allocatable)
			if err != nil {
				return nil, nil, &ConfigError{err.Error()}
			}
			value = v
		case from.ConfigMapKeyRef != nil:
			ref := from.ConfigMapKeyRef
			cm, ok := src.ConfigMap(ref.Name)
			if !ok {
				if isTrue(ref.Optional) {
					continue
				}
				return nil, nil, &ConfigError{fmt.Sprintf("configmap %q not found", ref.Name)}
			}
			if value, ok = cm.Data[ref.Key]; !ok {
				if isTrue(ref.Optional) {
					continue
				}
				return nil, nil, &ConfigError{fmt.Sprintf("couldn't find key %s in ConfigMap %s/%s", ref.Key, ns, ref.Name)}
			}
		case from.SecretKeyRef != nil:
			ref := from.SecretKeyRef
			s, ok := src.Secret(ref.Name)
			if !ok {
				if isTrue(ref.Optional) {
					continue
				}
				return nil, nil, &ConfigError{fmt.Sprintf("secret %q not found", ref.Name)}
			}
			b, ok := s.Data[ref.Key]
			if !ok {
				if isTrue(ref.Optional) {
					continue
				}
				return nil, nil, &ConfigError{fmt.Sprintf("couldn't find key %s in Secret %s/%s", ref.Key, ns, ref.Name)}
			}
			value = string(b)
		}
		serviceEnv.remove(ev.Name) // the container's own value wins
		env.set(ev.Name, value)
	}
	vars := make([]container.EnvVar, 0, len(env.keys)+len(serviceEnv.keys))
	for _, k := range env.keys {
		vars = append(vars, container.EnvVar{Name: k, Value: env.vals[k]})
	}
	for _, k := range serviceEnv.keys {
		if _, set := env.vals[k]; !set {
			vars = append(vars, container.EnvVar{Name: k, Value: serviceEnv.vals[k]})
		}
	}
	return vars, events, nil
}

func isTrue(b *bool) bool { return b != nil && *b }

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// isEnvVarName is the kubelet's test of an envFrom key with its prefix:
// letters, digits, '_', '-' and '.', not starting with a digit.
// Kubernetes: validation.IsEnvVarName.
func isEnvVarName(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '_' || c == '-' || c == '.' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z':
		case '0' <= c && c <= '9' && i > 0:
		default:
			return false
		}
	}
	return true
}

// masterServices are the services of namespace default whose variables
// every pod gets, even with enableServiceLinks false.
var masterServices = []string{"kubernetes"}

// serviceVariables returns the service link variables for a pod in ns,
// sorted by name: those of the master services, and with links those of
// every service of ns that has a cluster IP (a service of ns wins over a
// master service of the same name). Kubernetes: getServiceEnvVarMap and
// envvars.FromServices.
func serviceVariables(ns string, links bool, services []*api.Service) *ordered {
	chosen := map[string]*api.Service{}
	for _, svc := range services {
		ip := svc.Spec.ClusterIP
		if ip == "" || ip == api.ClusterIPNone || len(svc.Spec.Ports) == 0 {
			continue
		}
		name := svc.Metadata.Name
		switch {
		case links && svc.Metadata.Namespace == ns:
			chosen[name] = svc
		case svc.Metadata.Namespace == "default" && slices.Contains(masterServices, name):
			if _, ok := chosen[name]; !ok {
				chosen[name] = svc
			}
		}
	}
	m := map[string]string{}
	for _, svc := range chosen {
		for _, v := range linkVariables(svc) {
			m[v.Name] = v.Value
		}
	}
	out := newOrdered()
	for _, k := range sortedKeys(m) {
		out.set(k, m[k])
	}
	return out
}

// linkVariables are one service's variables: <NAME>_SERVICE_HOST,
// _SERVICE_PORT (and _SERVICE_PORT_<PORT> for each named port), and the
// Docker link ones, <NAME>_PORT and <NAME>_PORT_<port>_<PROTO>{,_PROTO,
// _PORT,_ADDR}. Kubernetes: envvars.FromServices.
func linkVariables(svc *api.Service) []container.EnvVar {
	prefix := envName(svc.Metadata.Name)
	ip := svc.Spec.ClusterIP
	vars := []container.EnvVar{
		{Name: prefix + "_SERVICE_HOST", Value: ip},
		{Name: prefix + "_SERVICE_PORT", Value: strconv.Itoa(int(svc.Spec.Ports[0].Port))},
	}
	for _, p := range svc.Spec.Ports {
		if p.Name != "" {
			vars = append(vars, container.EnvVar{Name: prefix + "_SERVICE_PORT_" + envName(p.Name), Value: strconv.Itoa(int(p.Port))})
		}
	}
	for i, p := range svc.Spec.Ports {
		proto := string(p.Protocol)
		if proto == "" {
			proto = string(api.ProtocolTCP)
		}
		port := strconv.Itoa(int(p.Port))
		url := strings.ToLower(proto) + "://" + net.JoinHostPort(ip, port)
		if i == 0 {
			vars = append(vars, container.EnvVar{Name: prefix + "_PORT", Value: url})
		}
		pp := prefix + "_PORT_" + port + "_" + strings.ToUpper(proto)
		vars = append(vars,
			container.EnvVar{Name: pp, Value: url},
			container.EnvVar{Name: pp + "_PROTO", Value: strings.ToLower(proto)},
			container.EnvVar{Name: pp + "_PORT", Value: port},
			container.EnvVar{Name: pp + "_ADDR", Value: ip})
	}
	return vars
}

// envName is a service or port name as a variable's: upper case, '-' as
// '_'. Kubernetes: makeEnvVariableName.
func envName(s string) string { return strings.ToUpper(strings.ReplaceAll(s, "-", "_")) }

// fieldValue is the value of a pod field a fieldRef selects. Kubernetes:
// podFieldSelectorRuntimeValue and fieldpath.ExtractFieldPathAsString.
func fieldValue(pod *api.Pod, fieldPath string) (string, error) {
	switch fieldPath {
	case "metadata.name":
		return pod.Metadata.Name, nil
	case "metadata.namespace":
		return pod.Metadata.Namespace, nil
	case "metadata.uid":
		return string(pod.Metadata.UID), nil
	case "metadata.labels":
		return formatMap(pod.Metadata.Labels), nil
	case "metadata.annotations":
		return formatMap(pod.Metadata.Annotations), nil
	case "spec.nodeName":
		return pod.Spec.NodeName, nil
	case "spec.serviceAccountName":
		return pod.Spec.ServiceAccountName, nil
	case "status.hostIP":
		return pod.Status.HostIP, nil
	case "status.hostIPs":
		ips := make([]string, len(pod.Status.HostIPs))
		for i, ip := range pod.Status.HostIPs {
			ips[i] = ip.IP
		}
		return strings.Join(ips, ","), nil
	case "status.podIP":
		return pod.Status.PodIP, nil
	case "status.podIPs":
		ips := make([]string, len(pod.Status.PodIPs))
		for i, ip := range pod.Status.PodIPs {
			ips[i] = ip.IP
		}
		return strings.Join(ips, ","), nil
	}
	for _, m := range []struct {
		prefix string
		values map[string]string
	}{{"metadata.labels['", pod.Metadata.Labels}, {"metadata.annotations['", pod.Metadata.Annotations}} {
		if key, ok := strings.CutPrefix(fieldPath, m.prefix); ok {
			if key, ok = strings.CutSuffix(key, "']"); ok {
				return m.values[key], nil
			}
		}
	}
	return "", fmt.Errorf("unsupported fieldPath: %v", fieldPath)
}

// formatMap is labels or annotations as a downward API file holds them:
// key="value" lines, sorted by key, the value quoted as Go quotes it.
// Kubernetes: fieldpath.FormatMap.
func formatMap(m map[string]string) string {
	lines := make([]string, 0, len(m))
	for _, k := range sortedKeys(m) {
		lines = append(lines, fmt.Sprintf("%v=%q", k, m[k]))
	}
	return strings.Join(lines, "\n")
}

// resourceValue is a container's limit or request in units of the
// selector's divisor, rounded up; a limit the container does not set is
// the node's allocatable. The selector's containerName, if set, names the
// container (the downward API volume's way); else it is ct. Kubernetes:
// containerResourceRuntimeValue, after defaultPodLimitsForDownwardAPI.
func resourceValue(pod *api.Pod, ct *api.Container, sel *api.ResourceFieldSelector, allocatable api.ResourceList) (string, error) {
	if sel.ContainerName != "" {
		ct = nil
		for i := range pod.Spec.Containers {
			if pod.Spec.Containers[i].Name == sel.ContainerName {
				ct = &pod.Spec.Containers[i]
			}
		}
		for i := range pod.Spec.InitContainers {
			if pod.Spec.InitContainers[i].Name == sel.ContainerName {
				ct = &pod.Spec.InitContainers[i]
			}
		}
		if ct == nil {
			return "", fmt.Errorf("container %s not found", sel.ContainerName)
		}
	}
	kind, res, ok := strings.Cut(sel.Resource, ".")
	if !ok || kind != "limits" && kind != "requests" {
		return "", fmt.Errorf("unsupported container resource : %v", sel.Resource)
	}
	var q string
	if kind == "limits" {
		q, ok = ct.Resources.Limits[res]
		if !ok {
			q, ok = allocatable[res]
		}
	} else {
		q, ok = ct.Resources.Requests[res]
	}
	if !ok {
		q = "0"
	}
	divisor := string(sel.Divisor)
	if divisor == "" || divisor == "0" {
		divisor = "1"
	}
	milli := int64(1)
	if res == api.ResourceCPU {
		milli = 1000
	}
	n, okN := fit.Units(q, milli)
	d, okD := fit.Units(divisor, milli)
	if !okN || !okD || d == 0 {
		return "", fmt.Errorf("unsupported container resource : %v", sel.Resource)
	}
	return strconv.FormatInt(int64(math.Ceil(float64(n)/float64(d))), 10), nil
}
