package apiserver

import (
	"math/big"
	"path"
	"slices"
	"strings"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/api/apierrors"
)

// This file defaults and validates what a pod hands its containers beyond
// their command: volumes, volume mounts, envFrom and env valueFrom.
// Kubernetes: SetDefaults_Volume and its sources' defaults
// (pkg/apis/core/v1/defaults.go), and validateVolumes, ValidateVolumeMounts,
// validateEnvVarValueFrom and ValidateEnvFrom (pkg/apis/core/validation).

// defaultFileMode is the mode of a volume's files when none is given:
// 0644, as corev1.{ConfigMap,Secret,DownwardAPI,Projected}VolumeSourceDefaultMode.
const defaultFileMode int32 = 0o644

// defaultTokenExpiration is a projected service account token's lifetime
// when none is given, in seconds.
const defaultTokenExpiration int64 = 3600

// defaultVolumes fills in a pod spec's volumes and field selectors.
func defaultVolumes(s *api.PodSpec) {
	if s.EnableServiceLinks == nil {
		s.EnableServiceLinks = ptr(true)
	}
	for i := range s.Volumes {
		v := &s.Volumes[i].VolumeSource
		if v.EmptyDir == nil && v.HostPath == nil && v.Secret == nil && v.DownwardAPI == nil && v.ConfigMap == nil && v.Projected == nil && v.PersistentVolumeClaim == nil {
			v.EmptyDir = &api.EmptyDirVolumeSource{}
		}
		switch {
		case v.HostPath != nil && v.HostPath.Type == nil:
			v.HostPath.Type = ptr("")
		case v.ConfigMap != nil:
			defaultMode(&v.ConfigMap.DefaultMode)
		case v.Secret != nil:
			defaultMode(&v.Secret.DefaultMode)
		case v.DownwardAPI != nil:
			defaultMode(&v.DownwardAPI.DefaultMode)
			defaultDownwardItems(v.DownwardAPI.Items)
		case v.Projected != nil:
			defaultMode(&v.Projected.DefaultMode)
			for _, src := range v.Projected.Sources {
				if src.DownwardAPI != nil {
					defaultDownwardItems(src.DownwardAPI.Items)
				}
				if t := src.ServiceAccountToken; t != nil && t.ExpirationSeconds == nil {
					t.ExpirationSeconds = ptr(defaultTokenExpiration)
				}
			}
		}
	}
	for _, cs := range [][]api.Container{s.InitContainers, s.Containers} {
		for i := range cs {
			for j := range cs[i].Env {
				if from := cs[i].Env[j].ValueFrom; from != nil && from.FieldRef != nil && from.FieldRef.APIVersion == "" {
					from.FieldRef.APIVersion = "v1"
				}
			}
		}
	}
}

func defaultMode(m **int32) {
	if *m == nil {
		*m = ptr(defaultFileMode)
	}
}

func defaultDownwardItems(items []api.DownwardAPIVolumeFile) {
	for i := range items {
		if f := items[i].FieldRef; f != nil && f.APIVersion == "" {
			f.APIVersion = "v1"
		}
	}
}

// fileModeMsg is Kubernetes' fileModeErrorMsg.
const fileModeMsg = "must be a number between 0 and 0777 (octal), both inclusive"

// validateVolumes checks a pod's volumes: names unique DNS labels, one
// source each, and each source's own rules.
func validateVolumes(errs apierrors.FieldErrors, vols []api.Volume, p fieldPath) apierrors.FieldErrors {
	for i := range vols {
		v := &vols[i]
		at := p.index(i)
		if v.Name == "" {
			errs = append(errs, Required(at.child("name").path(), ""))
		} else {
			errs = validateDNS1123LabelField(errs, v.Name, at.child("name"))
			for j := range i {
				if vols[j].Name == v.Name {
					errs = append(errs, Duplicate(at.child("name").path(), v.Name))
					break
				}
			}
		}
		errs = validatePodVolumeSource(errs, &v.VolumeSource, at)
	}
	return errs
}

func validatePodVolumeSource(errs apierrors.FieldErrors, v *api.VolumeSource, p fieldPath) apierrors.FieldErrors {
	n := 0
	one := func(name string) bool {
		n++
		if n > 1 {
			errs = append(errs, Forbidden(p.child(name).path(), "may not specify more than 1 volume type"))
			return false
		}
		return true
	}
	if v.EmptyDir != nil && one("emptyDir") && v.EmptyDir.Medium != "" && v.EmptyDir.Medium != "Memory" && !strings.HasPrefix(v.EmptyDir.Medium, "HugePages") {
		errs = append(errs, NotSupported(p.child("emptyDir").child("medium").path(), v.EmptyDir.Medium, "", "Memory", "HugePages"))
	}
	if v.HostPath != nil && one("hostPath") {
		errs = validateHostPath(errs, v.HostPath, p.child("hostPath"))
	}
	if v.Secret != nil && one("secret") {
		at := p.child("secret")
		if v.Secret.SecretName == "" {
			errs = append(errs, Required(at.child("secretName").path(), ""))
		} else {
			errs = validateNameField(errs, v.Secret.SecretName, nameIsDNSSubdomain, at.child("secretName"))
		}
		errs = validateMode(errs, v.Secret.DefaultMode, at.child("defaultMode"))
		errs = validateKeyToPaths(errs, v.Secret.Items, at.child("items"))
	}
	if v.DownwardAPI != nil && one("downwardAPI") {
		at := p.child("downwardAPI")
		errs = validateMode(errs, v.DownwardAPI.DefaultMode, at.child("defaultMode"))
		errs = validateDownwardFiles(errs, v.DownwardAPI.Items, at.child("items"))
	}
	if v.ConfigMap != nil && one("configMap") {
		at := p.child("configMap")
		errs = validateConfigMapRef(errs, v.ConfigMap.Name, at)
		errs = validateMode(errs, v.ConfigMap.DefaultMode, at.child("defaultMode"))
		errs = validateKeyToPaths(errs, v.ConfigMap.Items, at.child("items"))
	}
	if v.Projected != nil && one("projected") {
		errs = validateProjected(errs, v.Projected, p.child("projected"))
	}
	if v.PersistentVolumeClaim != nil && one("persistentVolumeClaim") && v.PersistentVolumeClaim.ClaimName == "" {
		errs = append(errs, Required(p.child("persistentVolumeClaim").child("claimName").path(), ""))
	}
	return errs
}

func validateConfigMapRef(errs apierrors.FieldErrors, name string, p fieldPath) apierrors.FieldErrors {
	if name == "" {
		return append(errs, Required(p.child("name").path(), ""))
	}
	return validateNameField(errs, name, nameIsDNSSubdomain, p.child("name"))
}

func validateProjected(errs apierrors.FieldErrors, pr *api.ProjectedVolumeSource, p fieldPath) apierrors.FieldErrors {
	errs = validateMode(errs, pr.DefaultMode, p.child("defaultMode"))
	paths := map[string]bool{}
	seen := func(at fieldPath, file string) {
		if paths[file] {
			errs = append(errs, Invalid(at.path(), file, "conflicting duplicate paths"))
		}
		paths[file] = true
	}
	for i := range pr.Sources {
		src := &pr.Sources[i]
		at := p.child("sources").index(i)
		n := 0
		for _, set := range []bool{src.Secret != nil, src.DownwardAPI != nil, src.ConfigMap != nil, src.ServiceAccountToken != nil} {
			if set {
				n++
			}
		}
		if n > 1 {
			errs = append(errs, Forbidden(at.path(), "may not specify more than 1 volume type per source"))
			continue
		}
		keys := func(field, name string, items []api.KeyToPath) {
			if name == "" {
				errs = append(errs, Required(at.child(field).child("name").path(), ""))
			}
			errs = validateKeyToPaths(errs, items, at.child(field).child("items"))
			for j, it := range items {
				seen(at.child(field).child("items").index(j).child("path"), it.Path)
			}
		}
		switch {
		case src.Secret != nil:
			keys("secret", src.Secret.Name, src.Secret.Items)
		case src.ConfigMap != nil:
			keys("configMap", src.ConfigMap.Name, src.ConfigMap.Items)
		case src.DownwardAPI != nil:
			errs = validateDownwardFiles(errs, src.DownwardAPI.Items, at.child("downwardAPI").child("items"))
			for j, it := range src.DownwardAPI.Items {
				seen(at.child("downwardAPI").child("items").index(j).child("path"), it.Path)
			}
		case src.ServiceAccountToken != nil:
			t := src.ServiceAccountToken
			tp := at.child("serviceAccountToken")
			if t.ExpirationSeconds != nil && *t.ExpirationSeconds < 600 {
				errs = append(errs, Invalid(tp.child("expirationSeconds").path(), *t.ExpirationSeconds, "may not specify a duration less than 10 minutes"))
			} else if t.ExpirationSeconds != nil && *t.ExpirationSeconds > 1<<32 {
				errs = append(errs, Invalid(tp.child("expirationSeconds").path(), *t.ExpirationSeconds, "may not specify a duration larger than 2^32 seconds"))
			}
			if t.Path == "" {
				errs = append(errs, Required(tp.child("path").path(), ""))
			} else {
				errs = validateLocalPath(errs, t.Path, tp.child("path"))
				seen(tp.child("path"), t.Path)
			}
		}
	}
	return errs
}

// validateMode checks a file mode: 0 to 0777.
func validateMode(errs apierrors.FieldErrors, mode *int32, p fieldPath) apierrors.FieldErrors {
	if mode != nil && (*mode < 0 || *mode > 0o777) {
		errs = append(errs, Invalid(p.path(), *mode, fileModeMsg))
	}
	return errs
}

func validateKeyToPaths(errs apierrors.FieldErrors, items []api.KeyToPath, p fieldPath) apierrors.FieldErrors {
	for i := range items {
		at := p.index(i)
		if items[i].Key == "" {
			errs = append(errs, Required(at.child("key").path(), ""))
		}
		if items[i].Path == "" {
			errs = append(errs, Required(at.child("path").path(), ""))
		} else {
			errs = validateLocalPath(errs, items[i].Path, at.child("path"))
		}
		errs = validateMode(errs, items[i].Mode, at.child("mode"))
	}
	return errs
}

// validateLocalPath checks a file's path inside a volume: relative, with
// no ".." element, not starting with "..". Kubernetes:
// validateLocalNonReservedPath.
func validateLocalPath(errs apierrors.FieldErrors, file string, p fieldPath) apierrors.FieldErrors {
	errs = validateLocalDescendingPath(errs, file, p)
	if strings.HasPrefix(file, "..") {
		errs = append(errs, Invalid(p.path(), file, "must not start with '..'"))
	}
	return errs
}

// hostPathTypes are the types a hostPath volume may have, sorted ("" checks
// nothing). Kubernetes: supportedHostPathTypes.
var hostPathTypes = []string{"", "BlockDevice", "CharDevice", "Directory", "DirectoryOrCreate", "File", "FileOrCreate", "Socket"}

// validateHostPath checks a hostPath volume: a path without a ".."
// element, and a known type. Kubernetes: validateHostPathVolumeSource.
func validateHostPath(errs apierrors.FieldErrors, h *api.HostPathVolumeSource, p fieldPath) apierrors.FieldErrors {
	if h.Path == "" {
		return append(errs, Required(p.child("path").path(), ""))
	}
	if slices.Contains(strings.Split(h.Path, "/"), "..") {
		errs = append(errs, Invalid(p.child("path").path(), h.Path, "must not contain '..'"))
	}
	if h.Type != nil && !slices.Contains(hostPathTypes, *h.Type) {
		errs = append(errs, NotSupported(p.child("type").path(), *h.Type, hostPathTypes...))
	}
	return errs
}

// validateLocalDescendingPath: relative, and no ".." element. Kubernetes:
// validateLocalDescendingPath.
func validateLocalDescendingPath(errs apierrors.FieldErrors, file string, p fieldPath) apierrors.FieldErrors {
	if path.IsAbs(file) {
		errs = append(errs, Invalid(p.path(), file, "must be a relative path"))
	}
	for _, part := range strings.Split(file, "/") {
		if part == ".." {
			errs = append(errs, Invalid(p.path(), file, "must not contain '..'"))
			break
		}
	}
	return errs
}

// downwardVolumeFields are the pod fields a downward API volume file may
// name (besides labels['k'] and annotations['k']).
var downwardVolumeFields = []string{"metadata.annotations", "metadata.labels", "metadata.name", "metadata.namespace", "metadata.uid"}

// downwardEnvFields are the pod fields an env var's fieldRef may name.
var downwardEnvFields = []string{"metadata.name", "metadata.namespace", "metadata.uid", "spec.nodeName", "spec.serviceAccountName", "status.hostIP", "status.hostIPs", "status.podIP", "status.podIPs"}

func validateDownwardFiles(errs apierrors.FieldErrors, items []api.DownwardAPIVolumeFile, p fieldPath) apierrors.FieldErrors {
	for i := range items {
		it := &items[i]
		at := p.index(i)
		if it.Path == "" {
			errs = append(errs, Required(at.child("path").path(), ""))
		} else {
			errs = validateLocalPath(errs, it.Path, at.child("path"))
		}
		errs = validateMode(errs, it.Mode, at.child("mode"))
		switch {
		case it.FieldRef != nil && it.ResourceFieldRef != nil:
			errs = append(errs, Invalid(at.path(), "resource", "fieldRef and resourceFieldRef can not be specified simultaneously"))
		case it.FieldRef != nil:
			errs = validateFieldRef(errs, it.FieldRef, downwardVolumeFields, at.child("fieldRef"))
		case it.ResourceFieldRef != nil:
			if it.ResourceFieldRef.ContainerName == "" {
				errs = append(errs, Required(at.child("resourceFieldRef").child("containerName").path(), ""))
			}
			errs = validateResourceFieldRef(errs, it.ResourceFieldRef, at.child("resourceFieldRef"))
		}
	}
	return errs
}

// validateFieldRef checks a fieldRef against the fields it may name.
func validateFieldRef(errs apierrors.FieldErrors, f *api.ObjectFieldSelector, allowed []string, p fieldPath) apierrors.FieldErrors {
	if f.FieldPath == "" {
		return append(errs, Required(p.child("fieldPath").path(), ""))
	}
	if f.APIVersion != "" && f.APIVersion != "v1" {
		return append(errs, Invalid(p.child("apiVersion").path(), f.APIVersion, "unsupported API version"))
	}
	for _, prefix := range []string{"metadata.labels['", "metadata.annotations['"} {
		if key, ok := strings.CutPrefix(f.FieldPath, prefix); ok {
			key, ok = strings.CutSuffix(key, "']")
			if !ok || key == "" {
				return append(errs, Invalid(p.child("fieldPath").path(), f.FieldPath, "invalid subscript"))
			}
			if msgs := qualifiedNameMsgs(strings.ToLower(key)); msgs != nil {
				return invalidEach(errs, p.child("fieldPath"), f.FieldPath, msgs)
			}
			return errs
		}
	}
	for _, a := range allowed {
		if a == f.FieldPath {
			return errs
		}
	}
	return append(errs, NotSupported(p.child("fieldPath").path(), f.FieldPath, allowed...))
}

// resourceFields are the resources a resourceFieldRef may name.
var resourceFields = []string{"limits.cpu", "limits.ephemeral-storage", "limits.memory", "requests.cpu", "requests.ephemeral-storage", "requests.memory"}

func validateResourceFieldRef(errs apierrors.FieldErrors, r *api.ResourceFieldSelector, p fieldPath) apierrors.FieldErrors {
	known := false
	for _, f := range resourceFields {
		known = known || f == r.Resource
	}
	switch {
	case r.Resource == "":
		errs = append(errs, Required(p.child("resource").path(), ""))
	case !known && !strings.HasPrefix(r.Resource, "limits.hugepages-") && !strings.HasPrefix(r.Resource, "requests.hugepages-"):
		errs = append(errs, NotSupported(p.child("resource").path(), r.Resource, resourceFields...))
	}
	return validateDivisor(errs, r.Resource, string(r.Divisor), p)
}

// validateDivisor checks a resourceFieldRef's divisor: unset (or zero) is
// 1, else it must be one the resource allows, after the quantity is made
// canonical ("1000m" is "1"). The invalid value reported is the resource's
// name, as Kubernetes reports it. Kubernetes:
// validateContainerResourceDivisor.
func validateDivisor(errs apierrors.FieldErrors, resource, divisor string, p fieldPath) apierrors.FieldErrors {
	if divisor == "" {
		return errs
	}
	q, problem := parseQuantity(divisor)
	if problem == "" && q.isZero() {
		return errs
	}
	var what string
	switch {
	case resource == "limits.cpu" || resource == "requests.cpu":
		if problem == "" && canonicalDivisor(q, true) {
			return errs
		}
		return append(errs, Invalid(p.child("divisor").path(), resource, "only divisor's values 1m and 1 are supported with the cpu resource"))
	case resource == "limits.memory" || resource == "requests.memory":
		what = "memory"
	case resource == "limits.ephemeral-storage" || resource == "requests.ephemeral-storage":
		what = "local ephemeral storage"
	case strings.HasPrefix(resource, "limits.hugepages-") || strings.HasPrefix(resource, "requests.hugepages-"):
		what = "hugepages"
	default:
		return errs
	}
	if problem == "" && canonicalDivisor(q, false) {
		return errs
	}
	return append(errs, Invalid(p.child("divisor").path(), resource, "only divisor's values 1, 1k, 1M, 1G, 1T, 1P, 1E, 1Ki, 1Mi, 1Gi, 1Ti, 1Pi, 1Ei are supported with the "+what+" resource"))
}

// canonicalDivisor reports whether q, written canonically, is one of the
// divisors Kubernetes allows: 1m (cpu only) and 1 in any format; 1k to 1E
// written in decimal SI (no suffix or an SI one); 1Ki to 1Ei written with
// a binary suffix. A decimal exponent writes all but 1 as "1e3", which is
// not allowed. Kubernetes: the divisor sets of validation.go, matched
// against Quantity.String.
func canonicalDivisor(q quantity, cpu bool) bool {
	v := q.value()
	is := func(base, exp int64) bool {
		return v.Cmp(new(big.Rat).SetInt(new(big.Int).Exp(big.NewInt(base), big.NewInt(exp), nil))) == 0
	}
	if is(10, 0) {
		return true
	}
	base, _, _ := api.QuantityScale(q.suffix)
	switch {
	case q.suffix != "" && (q.suffix[0] == 'e' || q.suffix[0] == 'E'):
		return false
	case base == 2:
		for exp := int64(10); exp <= 60; exp += 10 {
			if !cpu && is(2, exp) {
				return true
			}
		}
		return false
	case cpu:
		return v.Cmp(big.NewRat(1, 1000)) == 0
	}
	for exp := int64(3); exp <= 18; exp += 3 {
		if is(10, exp) {
			return true
		}
	}
	return false
}

// validateEnvFrom checks a container's envFrom: one source each, a
// prefix that makes valid names.
func validateEnvFrom(errs apierrors.FieldErrors, from []api.EnvFromSource, p fieldPath) apierrors.FieldErrors {
	for i := range from {
		f := &from[i]
		at := p.index(i)
		if f.Prefix != "" {
			errs = validateEnvName(errs, f.Prefix, at.child("prefix"))
		}
		switch {
		case f.ConfigMapRef != nil && f.SecretRef != nil:
			errs = append(errs, Invalid(at.path(), "", "may not have more than one field specified at a time"))
		case f.ConfigMapRef != nil:
			errs = validateConfigMapRef(errs, f.ConfigMapRef.Name, at.child("configMapRef"))
		case f.SecretRef != nil:
			errs = validateConfigMapRef(errs, f.SecretRef.Name, at.child("secretRef"))
		default:
			errs = append(errs, Invalid(at.path(), "", "must specify one of: `configMapRef` or `secretRef`"))
		}
	}
	return errs
}

// validateValueFrom checks an env var's valueFrom: not beside a value, one
// source, and the source's own rules.
func validateValueFrom(errs apierrors.FieldErrors, ev *api.EnvVar, p fieldPath) apierrors.FieldErrors {
	from := ev.ValueFrom
	n := 0
	for _, set := range []bool{from.FieldRef != nil, from.ResourceFieldRef != nil, from.ConfigMapKeyRef != nil, from.SecretKeyRef != nil} {
		if set {
			n++
		}
	}
	switch {
	case n == 0:
		return append(errs, Invalid(p.path(), "", "must specify one of: `fieldRef`, `resourceFieldRef`, `configMapKeyRef` or `secretKeyRef`"))
	case n > 1:
		return append(errs, Invalid(p.path(), "", "may not have more than one field specified at a time"))
	case ev.Value != "":
		return append(errs, Invalid(p.path(), "", "may not be specified when `value` is not empty"))
	}
	switch {
	case from.FieldRef != nil:
		errs = validateFieldRef(errs, from.FieldRef, downwardEnvFields, p.child("fieldRef"))
	case from.ResourceFieldRef != nil:
		errs = validateResourceFieldRef(errs, from.ResourceFieldRef, p.child("resourceFieldRef"))
	case from.ConfigMapKeyRef != nil:
		errs = validateKeyRef(errs, from.ConfigMapKeyRef.Name, from.ConfigMapKeyRef.Key, p.child("configMapKeyRef"))
	case from.SecretKeyRef != nil:
		errs = validateKeyRef(errs, from.SecretKeyRef.Name, from.SecretKeyRef.Key, p.child("secretKeyRef"))
	}
	return errs
}

func validateKeyRef(errs apierrors.FieldErrors, name, key string, p fieldPath) apierrors.FieldErrors {
	errs = validateConfigMapRef(errs, name, p)
	if key == "" {
		return append(errs, Required(p.child("key").path(), ""))
	}
	if msgs := configKeyMsgs(key); msgs != nil {
		errs = invalidEach(errs, p.child("key"), key, msgs)
	}
	return errs
}

// validateVolumeMounts checks a container's mounts: each names a volume of
// the pod, at a path no other mount of the container takes, with a
// relative subPath or subPathExpr (not both).
func validateVolumeMounts(errs apierrors.FieldErrors, mounts []api.VolumeMount, vols []api.Volume, p fieldPath) apierrors.FieldErrors {
	for i := range mounts {
		m := &mounts[i]
		at := p.index(i)
		if m.Name == "" {
			errs = append(errs, Required(at.child("name").path(), ""))
		} else if !slices.ContainsFunc(vols, func(v api.Volume) bool { return v.Name == m.Name }) {
			errs = append(errs, NotFound(at.child("name").path(), m.Name))
		}
		if m.MountPath == "" {
			errs = append(errs, Required(at.child("mountPath").path(), ""))
		} else {
			for j := range i {
				if mounts[j].MountPath == m.MountPath {
					errs = append(errs, Invalid(at.child("mountPath").path(), m.MountPath, "must be unique"))
					break
				}
			}
		}
		// Kubernetes names the subPath errors without the mount's index.
		if m.SubPath != "" {
			errs = validateLocalDescendingPath(errs, m.SubPath, p.child("subPath"))
		}
		if m.SubPathExpr != "" {
			if m.SubPath != "" {
				errs = append(errs, Invalid(at.child("subPathExpr").path(), m.SubPathExpr, "subPathExpr and subPath are mutually exclusive"))
			}
			errs = validateLocalDescendingPath(errs, m.SubPathExpr, p.child("subPathExpr"))
		}
	}
	return errs
}
