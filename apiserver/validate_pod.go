package apiserver

// Pods: defaulting and validation, and the pod spec rules that replication
// controllers reuse for their template. Kubernetes: SetDefaults_Pod,
// SetDefaults_PodSpec and SetDefaults_Container in pkg/apis/core/v1, and
// ValidatePodCreate, ValidatePodSpec and ValidatePodUpdate in
// pkg/apis/core/validation.

import (
	"math"
	"reflect"
	"strconv"
	"strings"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/api/apierrors"
)

// DefaultSchedulerName is the scheduler a pod gets when it names none.
const DefaultSchedulerName = "default-scheduler"

// podMeta is how pods' metadata is checked.
var podMeta = metaRules{namespaced: true, name: nameIsDNSSubdomain, kubeFinalizers: true}

// updatablePodSpecFields is Kubernetes' list of what a pod update may
// change, printed when it changes anything else.
const updatablePodSpecFields = "`spec.containers[*].image`," +
	"`spec.initContainers[*].image`," +
	"`spec.activeDeadlineSeconds`," +
	"`spec.tolerations` (only additions to existing tolerations)," +
	"`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)"

// ---- defaulting ----

// defaultPod fills in what a pod's creator may leave out. Besides the pod
// spec defaults, a container's requests default to its limits (for pods
// only, not for templates, as in Kubernetes).
func defaultPod(p *api.Pod) {
	defaultPodSpec(&p.Spec)
	for i := range p.Spec.InitContainers {
		defaultRequestsFromLimits(&p.Spec.InitContainers[i].Resources)
	}
	for i := range p.Spec.Containers {
		defaultRequestsFromLimits(&p.Spec.Containers[i].Resources)
	}
}

// defaultRequestsFromLimits sets each missing request to its limit.
func defaultRequestsFromLimits(r *api.ResourceRequirements) {
	for name, limit := range r.Limits {
		if _, ok := r.Requests[name]; ok {
			continue
		}
		if r.Requests == nil {
			r.Requests = make(api.ResourceList, len(r.Limits))
		}
		r.Requests[name] = limit
	}
}

// defaultPodSpec fills in a pod spec, of a pod or of a template.
func defaultPodSpec(s *api.PodSpec) {
	// The deprecated serviceAccount is read when serviceAccountName is
	// empty and always echoes it, as Kubernetes' v1 conversion does.
	if s.ServiceAccountName == "" {
		s.ServiceAccountName = s.DeprecatedServiceAccount
	}
	s.DeprecatedServiceAccount = s.ServiceAccountName
	if s.DNSPolicy == "" {
		s.DNSPolicy = api.DNSClusterFirst
	}
	if s.RestartPolicy == "" {
		s.RestartPolicy = api.RestartPolicyAlways
	}
	if s.TerminationGracePeriodSeconds == nil {
		grace := int64(DefaultTerminationGracePeriodSeconds)
		s.TerminationGracePeriodSeconds = &grace
	}
	if s.SchedulerName == "" {
		s.SchedulerName = DefaultSchedulerName
	}
	if s.SecurityContext == nil {
		s.SecurityContext = &api.PodSecurityContext{}
	}
	defaultVolumes(s)
	for i := range s.InitContainers {
		defaultContainer(&s.InitContainers[i])
	}
	for i := range s.Containers {
		defaultContainer(&s.Containers[i])
	}
	for i := range s.EphemeralContainers {
		defaultContainer(&s.EphemeralContainers[i].EphemeralContainerCommon)
	}
}

func defaultContainer(c *api.Container) {
	if c.ImagePullPolicy == "" {
		// An image that floats (":latest", or no tag at all) is pulled every
		// time; a pinned one only when the node lacks it.
		if imageTag(c.Image) == "latest" {
			c.ImagePullPolicy = api.PullAlways
		} else {
			c.ImagePullPolicy = api.PullIfNotPresent
		}
	}
	for i := range c.Ports {
		if c.Ports[i].Protocol == "" {
			c.Ports[i].Protocol = api.ProtocolTCP
		}
	}
	defaultProbe(c.LivenessProbe)
	defaultProbe(c.ReadinessProbe)
	defaultProbe(c.StartupProbe)
}

// imageTag returns the tag of an image reference: "1.25" for "nginx:1.25",
// "latest" when the reference names neither a tag nor a digest, and "" when
// it pins a digest without a tag (or is empty).
func imageTag(image string) string {
	if image == "" {
		return ""
	}
	name, _, hasDigest := strings.Cut(image, "@")
	// A tag follows the last ':' after the last '/'; a ':' before a '/' is a
	// registry's port ("localhost:5000/web").
	if i := strings.LastIndexByte(name, ':'); i > strings.LastIndexByte(name, '/') {
		return name[i+1:]
	}
	if hasDigest {
		return ""
	}
	return "latest"
}

func defaultProbe(p *api.Probe) {
	if p == nil {
		return
	}
	if p.TimeoutSeconds == 0 {
		p.TimeoutSeconds = 1
	}
	if p.PeriodSeconds == 0 {
		p.PeriodSeconds = 10
	}
	if p.SuccessThreshold == 0 {
		p.SuccessThreshold = 1
	}
	if p.FailureThreshold == 0 {
		p.FailureThreshold = 3
	}
	if h := p.HTTPGet; h != nil {
		if h.Path == "" {
			h.Path = "/"
		}
		if h.Scheme == "" {
			h.Scheme = "HTTP"
		}
	}
}

// ---- validation ----

// validatePod checks a pod on create.
func validatePod(p *api.Pod) apierrors.FieldErrors {
	errs := validateObjectMeta(nil, &p.Metadata, podMeta, metadataPath)
	spec := pathAt("spec")
	errs = validatePodSpec(errs, &p.Spec, spec)
	// Only pods, not templates, reject an image with surrounding spaces:
	// some tools used " " as a placeholder in templates.
	errs = validateImageWhitespace(errs, p.Spec.Containers, spec.child("containers"))
	return validateImageWhitespace(errs, p.Spec.InitContainers, spec.child("initContainers"))
}

func validateImageWhitespace(errs apierrors.FieldErrors, containers []api.Container, p fieldPath) apierrors.FieldErrors {
	for i := range containers {
		if image := containers[i].Image; len(strings.TrimSpace(image)) != len(image) {
			errs = append(errs, Invalid(p.index(i).child("image").path(), image, "must not have leading or trailing whitespace"))
		}
	}
	return errs
}

// validatePodSpec checks a pod spec at p: a pod's ("spec") or a template's
// ("spec.template.spec"). Kubernetes: ValidatePodSpec.
func validatePodSpec(errs apierrors.FieldErrors, s *api.PodSpec, p fieldPath) apierrors.FieldErrors {
	if s.TerminationGracePeriodSeconds == nil {
		errs = append(errs, Required(p.child("terminationGracePeriodSeconds").path(), ""))
	} else {
		errs = validateNonNegative(errs, *s.TerminationGracePeriodSeconds, p.child("terminationGracePeriodSeconds"))
	}
	errs = validateVolumes(errs, s.Volumes, p.child("volumes"))
	if d := s.ActiveDeadlineSeconds; d != nil && (*d < 1 || *d > math.MaxInt32) {
		errs = append(errs, Invalid(p.child("activeDeadlineSeconds").path(), *d, "must be between 1 and 2147483647, inclusive"))
	}
	errs = validateContainers(errs, s.Containers, p.child("containers"))
	for i := range s.Containers {
		errs = validateVolumeMounts(errs, s.Containers[i].VolumeMounts, s.Volumes, p.child("containers").index(i).child("volumeMounts"))
	}
	for i := range s.InitContainers {
		errs = validateVolumeMounts(errs, s.InitContainers[i].VolumeMounts, s.Volumes, p.child("initContainers").index(i).child("volumeMounts"))
	}
	errs = validateInitContainers(errs, s.InitContainers, s.Containers, p.child("initContainers"))
	errs = validateEphemeralContainers(errs, s, p.child("ephemeralContainers"))
	errs = validateRestartPolicy(errs, s.RestartPolicy, p.child("restartPolicy"))
	errs = validateDNSPolicy(errs, s.DNSPolicy, p.child("dnsPolicy"))
	errs = validateLabels(errs, s.NodeSelector, p.child("nodeSelector"))
	if s.ServiceAccountName != "" {
		errs = validateNameField(errs, s.ServiceAccountName, nameIsDNSSubdomain, p.child("serviceAccountName"))
	}
	if s.NodeName != "" {
		errs = validateNameField(errs, s.NodeName, nameIsDNSSubdomain, p.child("nodeName"))
	}
	if s.Hostname != "" {
		errs = validateDNS1123LabelField(errs, s.Hostname, p.child("hostname"))
	}
	if s.Subdomain != "" {
		errs = validateDNS1123LabelField(errs, s.Subdomain, p.child("subdomain"))
	}
	errs = validateTolerations(errs, s.Tolerations, p.child("tolerations"))
	if s.PriorityClassName != "" {
		errs = validateNameField(errs, s.PriorityClassName, nameIsDNSSubdomain, p.child("priorityClassName"))
	}
	if s.PreemptionPolicy != nil {
		errs = validatePreemptionPolicy(errs, s.PreemptionPolicy, p.child("preemptionPolicy").path())
	}
	if s.Affinity != nil && s.Affinity.NodeAffinity != nil {
		errs = validateNodeAffinity(errs, s.Affinity.NodeAffinity, p.child("affinity").child("nodeAffinity"))
	}
	if s.RuntimeClassName != nil {
		errs = validateNameField(errs, *s.RuntimeClassName, nameIsDNSSubdomain, p.child("runtimeClassName"))
	}
	if len(s.Overhead) > 0 {
		errs = validateResourceQuantities(errs, s.Overhead, p.child("overhead"))
	}
	errs = validatePodSecurityContext(errs, s.SecurityContext, p.child("securityContext"))
	return validateHostAliases(errs, s.HostAliases, p.child("hostAliases"))
}

// validateNodeAffinity checks a pod's node affinity: the required selector
// as any node selector, each preference's weight and term. Kubernetes:
// validateNodeAffinity.
func validateNodeAffinity(errs apierrors.FieldErrors, na *api.NodeAffinity, p fieldPath) apierrors.FieldErrors {
	if na.RequiredDuringSchedulingIgnoredDuringExecution != nil {
		errs = validateNodeSelector(errs, na.RequiredDuringSchedulingIgnoredDuringExecution, p.child("requiredDuringSchedulingIgnoredDuringExecution"))
	}
	for i, term := range na.PreferredDuringSchedulingIgnoredDuringExecution {
		at := p.child("preferredDuringSchedulingIgnoredDuringExecution").index(i)
		if term.Weight <= 0 || term.Weight > 100 {
			errs = append(errs, Invalid(at.child("weight").path(), term.Weight, "must be in the range 1-100"))
		}
		errs = validateNodeSelectorTerm(errs, term.Preference, at.child("preference"))
	}
	return errs
}

func validateRestartPolicy(errs apierrors.FieldErrors, policy api.RestartPolicy, p fieldPath) apierrors.FieldErrors {
	switch policy {
	case api.RestartPolicyAlways, api.RestartPolicyOnFailure, api.RestartPolicyNever:
		return errs
	case "":
		return append(errs, Required(p.path(), ""))
	}
	return append(errs, NotSupported(p.path(), policy,
		string(api.RestartPolicyAlways), string(api.RestartPolicyOnFailure), string(api.RestartPolicyNever)))
}

func validateDNSPolicy(errs apierrors.FieldErrors, policy api.DNSPolicy, p fieldPath) apierrors.FieldErrors {
	switch policy {
	case api.DNSClusterFirstWithHostNet, api.DNSClusterFirst, api.DNSDefault, api.DNSNone:
		return errs
	case "":
		return append(errs, Required(p.path(), ""))
	}
	return append(errs, NotSupported(p.path(), policy,
		string(api.DNSClusterFirstWithHostNet), string(api.DNSClusterFirst), string(api.DNSDefault), string(api.DNSNone)))
}

// validateContainers checks the regular containers: at least one, names
// unique among them, and no two asking for the same host port.
func validateContainers(errs apierrors.FieldErrors, containers []api.Container, p fieldPath) apierrors.FieldErrors {
	if len(containers) == 0 {
		return append(errs, Required(p.path(), ""))
	}
	for i := range containers {
		c := &containers[i]
		at := p.index(i)
		errs = validateContainerCommon(errs, c, at)
		for j := range i {
			if containers[j].Name == c.Name {
				errs = append(errs, Duplicate(at.child("name").path(), c.Name))
				break
			}
		}
		if c.LivenessProbe != nil {
			errs = validateProbe(errs, c.LivenessProbe, at.child("livenessProbe"))
			if c.LivenessProbe.SuccessThreshold != 1 {
				errs = append(errs, Invalid(at.child("livenessProbe").child("successThreshold").path(), c.LivenessProbe.SuccessThreshold, "must be 1"))
			}
		}
		if c.ReadinessProbe != nil {
			errs = validateProbe(errs, c.ReadinessProbe, at.child("readinessProbe"))
		}
		if c.StartupProbe != nil {
			errs = validateProbe(errs, c.StartupProbe, at.child("startupProbe"))
			if c.StartupProbe.SuccessThreshold != 1 {
				errs = append(errs, Invalid(at.child("startupProbe").child("successThreshold").path(), c.StartupProbe.SuccessThreshold, "must be 1"))
			}
		}
	}
	// Regular containers run together, so their host ports must all differ.
	for i := range containers {
		errs = validateHostPorts(errs, containers, i, p.index(i))
	}
	return errs
}

// validateInitContainers checks init containers: their names must differ from
// every other container's, and they may not have probes (they run to
// completion, one at a time, so each only conflicts with itself on host
// ports).
func validateInitContainers(errs apierrors.FieldErrors, inits, regular []api.Container, p fieldPath) apierrors.FieldErrors {
	for i := range inits {
		c := &inits[i]
		at := p.index(i)
		errs = validateContainerCommon(errs, c, at)
		if containerNamed(regular, c.Name) || c.Name != "" && containerNamed(inits[:i], c.Name) {
			errs = append(errs, Duplicate(at.child("name").path(), c.Name))
		}
		errs = validateHostPorts(errs, inits[i:i+1], 0, at)
		if c.LivenessProbe != nil {
			errs = append(errs, Forbidden(at.child("livenessProbe").path(), "may not be set for init containers without restartPolicy=Always"))
		}
		if c.ReadinessProbe != nil {
			errs = append(errs, Forbidden(at.child("readinessProbe").path(), "may not be set for init containers without restartPolicy=Always"))
		}
		if c.StartupProbe != nil {
			errs = append(errs, Forbidden(at.child("startupProbe").path(), "may not be set for init containers without restartPolicy=Always"))
		}
	}
	return errs
}

func containerNamed(containers []api.Container, name string) bool {
	for i := range containers {
		if containers[i].Name == name {
			return true
		}
	}
	return false
}

// validateHostPorts reports each host port of containers[ci], at path ctr,
// that an earlier port in containers already asks for with the same protocol.
func validateHostPorts(errs apierrors.FieldErrors, containers []api.Container, ci int, ctr fieldPath) apierrors.FieldErrors {
	ports := containers[ci].Ports
	for pi := range ports {
		port := &ports[pi]
		if port.HostPort != 0 && hostPortTaken(containers, ci, pi, port) {
			errs = append(errs, Duplicate(ctr.child("ports").index(pi).child("hostPort").path(),
				string(port.Protocol)+"//"+strconv.Itoa(int(port.HostPort))))
		}
	}
	return errs
}

// hostPortTaken reports whether a port before containers[ci].Ports[pi] has
// the same host port and protocol.
func hostPortTaken(containers []api.Container, ci, pi int, port *api.ContainerPort) bool {
	for cj := 0; cj <= ci; cj++ {
		ports := containers[cj].Ports
		if cj == ci {
			ports = ports[:pi]
		}
		for _, q := range ports {
			if q.HostPort == port.HostPort && q.Protocol == port.Protocol {
				return true
			}
		}
	}
	return false
}

// validateContainerCommon checks what every kind of container shares.
// Kubernetes: validateContainerCommon.
func validateContainerCommon(errs apierrors.FieldErrors, c *api.Container, p fieldPath) apierrors.FieldErrors {
	if c.Name == "" {
		errs = append(errs, Required(p.child("name").path(), ""))
	} else {
		errs = validateDNS1123LabelField(errs, c.Name, p.child("name"))
	}
	if c.Image == "" {
		errs = append(errs, Required(p.child("image").path(), ""))
	}
	errs = validateContainerPorts(errs, c.Ports, p.child("ports"))
	errs = validateEnvFrom(errs, c.EnvFrom, p.child("envFrom"))
	errs = validateEnv(errs, c.Env, p.child("env"))
	errs = validatePullPolicy(errs, c.ImagePullPolicy, p.child("imagePullPolicy"))
	switch c.TerminationMessagePolicy {
	case "", api.TerminationMessageReadFile, api.TerminationMessageFallbackToLogsOnError: // empty is File: not defaulted here
	default:
		errs = append(errs, NotSupported(p.child("terminationMessagePolicy").path(), c.TerminationMessagePolicy,
			string(api.TerminationMessageReadFile), string(api.TerminationMessageFallbackToLogsOnError)))
	}
	errs = validateSecurityContext(errs, c.SecurityContext, p.child("securityContext"))
	return validateResources(errs, &c.Resources, p.child("resources"))
}

// validateContainerPorts checks a container's ports: names are IANA service
// names unique in the container, numbers are in range, protocols known.
func validateContainerPorts(errs apierrors.FieldErrors, ports []api.ContainerPort, p fieldPath) apierrors.FieldErrors {
	for i := range ports {
		port := &ports[i]
		at := p.index(i)
		if port.Name != "" {
			if msgs := portNameMsgs(port.Name); msgs != nil {
				errs = invalidEach(errs, at.child("name"), port.Name, msgs)
			} else if containerPortNamed(ports[:i], port.Name) {
				errs = append(errs, Duplicate(at.child("name").path(), port.Name))
			}
		}
		if port.ContainerPort == 0 {
			errs = append(errs, Required(at.child("containerPort").path(), ""))
		} else {
			errs = validatePortNumber(errs, port.ContainerPort, at.child("containerPort"))
		}
		if port.HostPort != 0 {
			errs = validatePortNumber(errs, port.HostPort, at.child("hostPort"))
		}
		errs = validateProtocol(errs, port.Protocol, at.child("protocol"))
	}
	return errs
}

// containerPortNamed reports whether a port with a valid name equal to name
// is among ports (Kubernetes only remembers names that were valid).
func containerPortNamed(ports []api.ContainerPort, name string) bool {
	for i := range ports {
		if ports[i].Name == name && portNameMsgs(name) == nil {
			return true
		}
	}
	return false
}

// validateEnv checks environment variable names: any printable ASCII but
// '=' (Kubernetes' relaxed rule, the default since 1.32).
func validateEnv(errs apierrors.FieldErrors, env []api.EnvVar, p fieldPath) apierrors.FieldErrors {
	for i := range env {
		name := env[i].Name
		if name == "" {
			errs = append(errs, Required(p.index(i).child("name").path(), ""))
		} else {
			errs = validateEnvName(errs, name, p.index(i).child("name"))
		}
		if env[i].ValueFrom != nil {
			errs = validateValueFrom(errs, &env[i], p.index(i).child("valueFrom"))
		}
	}
	return errs
}

// validateEnvName checks an environment variable's name (or an envFrom
// prefix): any printable ASCII but '='.
func validateEnvName(errs apierrors.FieldErrors, name string, p fieldPath) apierrors.FieldErrors {
	for j := 0; j < len(name); j++ {
		if c := name[j]; c < ' ' || c > '~' || c == '=' {
			return append(errs, Invalid(p.path(), name,
				"a valid environment variable name must consist only of printable ASCII characters other than '='"))
		}
	}
	return errs
}

func validatePullPolicy(errs apierrors.FieldErrors, policy api.PullPolicy, p fieldPath) apierrors.FieldErrors {
	switch policy {
	case api.PullAlways, api.PullIfNotPresent, api.PullNever:
		return errs
	case "":
		return append(errs, Required(p.path(), ""))
	}
	return append(errs, NotSupported(p.path(), policy, string(api.PullAlways), string(api.PullIfNotPresent), string(api.PullNever)))
}

// validateResources checks a container's requests and limits: resource
// names, quantities, and that no request exceeds its limit. It first checks
// in map order without reporting, and only on a problem walks the names in
// order, so that messages are stable and valid resources cost nothing.
// Kubernetes: ValidateContainerResourceRequirements.
func validateResources(errs apierrors.FieldErrors, r *api.ResourceRequirements, p fieldPath) apierrors.FieldErrors {
	if len(r.Limits) == 0 && len(r.Requests) == 0 {
		return errs
	}
	var found apierrors.FieldErrors
	for name, value := range r.Limits {
		found = validateResourceEntry(found, name, value, nil, p)
	}
	for name, value := range r.Requests {
		found = validateResourceEntry(found, name, value, r.Limits, p)
	}
	if found == nil {
		return errs
	}
	for _, name := range sortedKeys(r.Limits) {
		errs = validateResourceEntry(errs, name, r.Limits[name], nil, p)
	}
	for _, name := range sortedKeys(r.Requests) {
		errs = validateResourceEntry(errs, name, r.Requests[name], r.Limits, p)
	}
	return errs
}

// validateResourceEntry checks one limit (limits == nil) or one request
// (limits is the container's limits).
func validateResourceEntry(errs apierrors.FieldErrors, name, value string, limits api.ResourceList, p fieldPath) apierrors.FieldErrors {
	isRequest := limits != nil
	list := p.child("limits")
	if isRequest {
		list = p.child("requests")
	}
	at := list.key(name)
	n := len(errs)
	errs = validateContainerResourceName(errs, name, at)
	errs, q, ok := validateQuantity(errs, value, at)
	if ok && isExtendedResource(name) && !q.isInteger() {
		errs = append(errs, Invalid(at.path(), value, "must be an integer"))
	}
	if !isRequest || len(errs) > n {
		return errs
	}
	limit, hasLimit := limits[name]
	switch {
	case !hasLimit && !overcommitAllowed(name):
		errs = append(errs, Required(p.child("limits").path(), "Limit must be set for non overcommitable resources"))
	case !hasLimit || limit == value:
	default:
		lq, problem := parseQuantity(limit)
		if problem != "" {
			return errs // reported with the limits
		}
		cmp := q.cmp(lq)
		if cmp != 0 && !overcommitAllowed(name) {
			errs = append(errs, Invalid(list.path(), value, "must be equal to "+name+" limit of "+limit))
		} else if cmp > 0 {
			errs = append(errs, Invalid(list.path(), value, "must be less than or equal to "+name+" limit of "+limit))
		}
	}
	return errs
}

// standardResourceNames are the resource names Kubernetes defines without a
// domain prefix (hugepages-<size> aside).
var standardResourceNames = map[string]bool{
	"cpu": true, "memory": true, "ephemeral-storage": true, "storage": true, "pods": true,
	"services": true, "replicationcontrollers": true, "resourcequotas": true, "secrets": true,
	"configmaps": true, "persistentvolumeclaims": true, "services.nodeports": true,
	"services.loadbalancers": true, "requests.cpu": true, "requests.memory": true,
	"requests.ephemeral-storage": true, "requests.storage": true, "limits.cpu": true,
	"limits.memory": true, "limits.ephemeral-storage": true,
}

func isHugePages(name string) bool { return strings.HasPrefix(name, "hugepages-") }

// isNativeResource: a name without a domain, or in kubernetes.io's.
func isNativeResource(name string) bool {
	return !strings.Contains(name, "/") || strings.Contains(name, "kubernetes.io/")
}

// isExtendedResource: a device or other resource a node advertises under
// its own domain, e.g. "example.com/gpu"; always counted in whole units.
func isExtendedResource(name string) bool {
	if isNativeResource(name) || strings.HasPrefix(name, "requests.") {
		return false
	}
	return qualifiedNameMsgs("requests."+name) == nil
}

// overcommitAllowed: may a request be below its limit? Not for huge pages
// and extended resources, which cannot be shared.
func overcommitAllowed(name string) bool { return isNativeResource(name) && !isHugePages(name) }

// validateContainerResourceName: Kubernetes' validateContainerResourceName.
func validateContainerResourceName(errs apierrors.FieldErrors, name string, p fieldPath) apierrors.FieldErrors {
	if msgs := qualifiedNameMsgs(name); msgs != nil {
		return invalidEach(errs, p, name, msgs)
	}
	if !strings.Contains(name, "/") {
		if !standardResourceNames[name] && !isHugePages(name) && !strings.HasPrefix(name, "requests.hugepages-") {
			return append(errs, Invalid(p.path(), name, "must be a standard resource type or fully qualified"))
		}
		if name != api.ResourceCPU && name != api.ResourceMemory && name != "ephemeral-storage" && !isHugePages(name) {
			return append(errs, Invalid(p.path(), name, "must be a standard resource for containers"))
		}
		return errs
	}
	if !isNativeResource(name) && !isExtendedResource(name) {
		errs = append(errs, Invalid(p.path(), name, "doesn't follow extended resource name standard"))
	}
	return errs
}

// validateProbe checks a liveness or readiness probe: exactly one handler,
// and no negative timings. Kubernetes: validateProbe.
func validateProbe(errs apierrors.FieldErrors, probe *api.Probe, p fieldPath) apierrors.FieldErrors {
	handlers := 0
	if h := probe.Exec; h != nil {
		handlers++
		if len(h.Command) == 0 {
			errs = append(errs, Required(p.child("exec").child("command").path(), ""))
		}
	}
	if h := probe.HTTPGet; h != nil {
		if handlers++; handlers > 1 {
			errs = append(errs, Forbidden(p.child("httpGet").path(), "may not specify more than 1 handler type"))
		} else {
			at := p.child("httpGet")
			if h.Path == "" {
				errs = append(errs, Required(at.child("path").path(), ""))
			}
			errs = validatePortNumOrName(errs, h.Port, at.child("port"))
			if h.Scheme != "HTTP" && h.Scheme != "HTTPS" {
				errs = append(errs, NotSupported(at.child("scheme").path(), h.Scheme, "HTTP", "HTTPS"))
			}
		}
	}
	if h := probe.TCPSocket; h != nil {
		if handlers++; handlers > 1 {
			errs = append(errs, Forbidden(p.child("tcpSocket").path(), "may not specify more than 1 handler type"))
		} else {
			errs = validatePortNumOrName(errs, h.Port, p.child("tcpSocket").child("port"))
		}
	}
	if h := probe.GRPC; h != nil {
		if handlers++; handlers > 1 {
			errs = append(errs, Forbidden(p.child("grpc").path(), "may not specify more than 1 handler type"))
		} else {
			errs = validatePortNumOrName(errs, api.IntOrString{IntVal: h.Port}, p.child("grpc").child("port"))
		}
	}
	if handlers == 0 {
		errs = append(errs, Required(p.path(), "must specify a handler type"))
	}
	errs = validateNonNegative(errs, int64(probe.InitialDelaySeconds), p.child("initialDelaySeconds"))
	errs = validateNonNegative(errs, int64(probe.TimeoutSeconds), p.child("timeoutSeconds"))
	errs = validateNonNegative(errs, int64(probe.PeriodSeconds), p.child("periodSeconds"))
	errs = validateNonNegative(errs, int64(probe.SuccessThreshold), p.child("successThreshold"))
	return validateNonNegative(errs, int64(probe.FailureThreshold), p.child("failureThreshold"))
}

// validateTolerations: Kubernetes' ValidateTolerations.
func validateTolerations(errs apierrors.FieldErrors, tolerations []api.Toleration, p fieldPath) apierrors.FieldErrors {
	for i := range tolerations {
		t := &tolerations[i]
		at := p.index(i)
		if t.Key != "" {
			errs = validateQualifiedNameField(errs, t.Key, at.child("key"))
		}
		// An empty key with Exists matches every taint; with Equal it
		// would match nothing.
		if t.Key == "" && t.Operator != api.TolerationOpExists {
			errs = append(errs, Invalid(at.child("operator").path(), t.Operator,
				"operator must be Exists when `key` is empty, which means \"match all values and all keys\""))
		}
		if t.TolerationSeconds != nil && t.Effect != api.TaintEffectNoExecute {
			errs = append(errs, Invalid(at.child("effect").path(), t.Effect, "effect must be 'NoExecute' when `tolerationSeconds` is set"))
		}
		switch t.Operator {
		case api.TolerationOpEqual, "":
			if msgs := labelValueMsgs(t.Value); msgs != nil {
				errs = append(errs, Invalid(at.child("operator").path(), t.Value, strings.Join(msgs, ";")))
			}
		case api.TolerationOpExists:
			if t.Value != "" {
				errs = append(errs, Invalid(at.child("operator").path(), t.Value, "value must be empty when `operator` is 'Exists'"))
			}
		default:
			errs = append(errs, NotSupported(at.child("operator").path(), t.Operator,
				string(api.TolerationOpEqual), string(api.TolerationOpExists)))
		}
		if t.Effect != "" {
			errs = validateTaintEffect(errs, t.Effect, at.child("effect"))
		}
	}
	return errs
}

// ---- update ----

// validatePodUpdate checks a pod update: the pod must be valid, keep its
// identity, and change nothing in its spec but container images and new
// tolerations. Binding to a node is the binding subresource's job, so
// spec.nodeName cannot change here either. Kubernetes: ValidatePodUpdate.
func validatePodUpdate(p, old *api.Pod) apierrors.FieldErrors {
	errs := validatePod(p)
	errs = validateObjectMetaUpdate(errs, &p.Metadata, &old.Metadata, metadataPath)
	spec := pathAt("spec")
	if len(p.Spec.Containers) != len(old.Spec.Containers) {
		return append(errs, Forbidden(spec.child("containers").path(), "pod updates may not add or remove containers"))
	}
	if len(p.Spec.InitContainers) != len(old.Spec.InitContainers) {
		return append(errs, Forbidden(spec.child("initContainers").path(), "pod updates may not add or remove containers"))
	}
	// spec.activeDeadlineSeconds may be set where it was not, or lowered.
	switch d, was := p.Spec.ActiveDeadlineSeconds, old.Spec.ActiveDeadlineSeconds; {
	case d == nil && was != nil:
		return append(errs, Invalid(spec.child("activeDeadlineSeconds").path(), nil, "must not update from a positive integer to nil value"))
	case d != nil && (*d < 0 || *d > math.MaxInt32):
		return append(errs, Invalid(spec.child("activeDeadlineSeconds").path(), *d, "must be between 0 and 2147483647, inclusive"))
	case d != nil && was != nil && *was < *d:
		return append(errs, Invalid(spec.child("activeDeadlineSeconds").path(), *d, "must be less than or equal to previous value"))
	}
	if !onlyAddedTolerations(p.Spec.Tolerations, old.Spec.Tolerations) {
		errs = append(errs, Forbidden(spec.child("tolerations").path(), "existing toleration can not be modified except its tolerationSeconds"))
	}
	if semanticEqual(reflect.ValueOf(&p.Spec).Elem(), reflect.ValueOf(&old.Spec).Elem()) {
		return errs
	}
	// Take the changes that are allowed back out, and see what is left.
	munged := p.Spec
	munged.Containers = withImagesOf(p.Spec.Containers, old.Spec.Containers)
	munged.InitContainers = withImagesOf(p.Spec.InitContainers, old.Spec.InitContainers)
	munged.Tolerations = old.Spec.Tolerations
	munged.ActiveDeadlineSeconds = old.Spec.ActiveDeadlineSeconds
	if !semanticEqual(reflect.ValueOf(&munged).Elem(), reflect.ValueOf(&old.Spec).Elem()) {
		errs = append(errs, Forbidden(spec.path(), "pod updates may not change fields other than "+updatablePodSpecFields))
	}
	return errs
}

// onlyAddedTolerations reports whether every old toleration is still there,
// though its tolerationSeconds may have changed.
func onlyAddedTolerations(tolerations, old []api.Toleration) bool {
	for _, o := range old {
		found := false
		for _, t := range tolerations {
			if t.Key == o.Key && t.Operator == o.Operator && t.Value == o.Value && t.Effect == o.Effect {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}

// withImagesOf returns a copy of containers with the images of old.
func withImagesOf(containers, old []api.Container) []api.Container {
	if len(containers) == 0 {
		return containers
	}
	out := make([]api.Container, len(containers))
	for i := range containers {
		out[i] = containers[i]
		out[i].Image = old[i].Image
	}
	return out
}

// semanticEqual is reflect.DeepEqual, except that a nil slice or map equals
// an empty one, as in Kubernetes' equality.Semantic: a client that sends
// "env: []" has not changed a pod that had no env.
func semanticEqual(a, b reflect.Value) bool {
	switch a.Kind() {
	case reflect.Slice:
		if a.Len() != b.Len() {
			return false
		}
		for i := range a.Len() {
			if !semanticEqual(a.Index(i), b.Index(i)) {
				return false
			}
		}
		return true
	case reflect.Map:
		if a.Len() != b.Len() {
			return false
		}
		for it := a.MapRange(); it.Next(); {
			bv := b.MapIndex(it.Key())
			if !bv.IsValid() || !semanticEqual(it.Value(), bv) {
				return false
			}
		}
		return true
	case reflect.Pointer, reflect.Interface:
		if a.IsNil() || b.IsNil() {
			return a.IsNil() == b.IsNil()
		}
		return semanticEqual(a.Elem(), b.Elem())
	case reflect.Struct:
		for i := range a.NumField() {
			if !semanticEqual(a.Field(i), b.Field(i)) {
				return false
			}
		}
		return true
	case reflect.String:
		return a.String() == b.String()
	case reflect.Bool:
		return a.Bool() == b.Bool()
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return a.Int() == b.Int()
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return a.Uint() == b.Uint()
	case reflect.Float32, reflect.Float64:
		return a.Float() == b.Float()
	}
	panic("apiserver: semanticEqual: unexpected kind " + a.Kind().String())
}
