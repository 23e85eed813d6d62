package apiserver

// Pods' security contexts and host aliases. Kubernetes:
// validatePodSpecSecurityContext, validateSysctls, ValidateSecurityContext,
// validateSeccompProfileField and ValidateHostAliases in
// pkg/apis/core/validation.

import (
	"fmt"
	"math"
	"regexp"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/api/apierrors"
)

// msgIDRange is what Kubernetes says of a uid or gid out of range
// (validation.IsValidUserID, IsValidGroupID).
const msgIDRange = "must be between 0 and 2147483647, inclusive"

// validateID reports a uid or gid that is not between 0 and 2^31-1.
func validateID(errs apierrors.FieldErrors, id *int64, p fieldPath) apierrors.FieldErrors {
	if id != nil && (*id < 0 || *id > math.MaxInt32) {
		errs = append(errs, Invalid(p.path(), *id, msgIDRange))
	}
	return errs
}

// validateRunAs reports a runAsUser or runAsGroup of the security context
// at p out of range.
func validateRunAs(errs apierrors.FieldErrors, user, group *int64, p fieldPath) apierrors.FieldErrors {
	errs = validateID(errs, user, p.child("runAsUser"))
	return validateID(errs, group, p.child("runAsGroup"))
}

// validatePodSecurityContext checks the pod's security context: its ids in
// range, its sysctls' names and its seccomp profile.
func validatePodSecurityContext(errs apierrors.FieldErrors, sc *api.PodSecurityContext, p fieldPath) apierrors.FieldErrors {
	if sc == nil {
		return errs
	}
	errs = validateID(errs, sc.FSGroup, p.child("fsGroup"))
	errs = validateRunAs(errs, sc.RunAsUser, sc.RunAsGroup, p)
	for i := range sc.SupplementalGroups {
		errs = validateID(errs, &sc.SupplementalGroups[i], p.child("supplementalGroups").index(i))
	}
	errs = validateSysctls(errs, sc.Sysctls, p.child("sysctls"))
	return validateSeccompProfile(errs, sc.SeccompProfile, p.child("seccompProfile"))
}

// validateSecurityContext checks a container's security context: its ids
// in range, its seccomp profile, and no privileges granted while escalation
// is refused. Privileged containers are allowed (the kube-apiserver's
// --allow-privileged, which clusters set).
func validateSecurityContext(errs apierrors.FieldErrors, sc *api.SecurityContext, p fieldPath) apierrors.FieldErrors {
	if sc == nil {
		return errs
	}
	errs = validateRunAs(errs, sc.RunAsUser, sc.RunAsGroup, p)
	errs = validateSeccompProfile(errs, sc.SeccompProfile, p.child("seccompProfile"))
	if sc.AllowPrivilegeEscalation != nil && !*sc.AllowPrivilegeEscalation {
		// Kubernetes prints the whole context as the value, in Go syntax
		// of its internal type; miniplane gives the fields at fault.
		if sc.Privileged != nil && *sc.Privileged {
			errs = append(errs, Invalid(p.path(), "allowPrivilegeEscalation: false, privileged: true",
				"cannot set `allowPrivilegeEscalation` to false and `privileged` to true"))
		}
		if sc.Capabilities != nil {
			for _, c := range sc.Capabilities.Add {
				if c == "CAP_SYS_ADMIN" {
					errs = append(errs, Invalid(p.path(), "allowPrivilegeEscalation: false, capabilities.add: CAP_SYS_ADMIN",
						"cannot set `allowPrivilegeEscalation` to false and `capabilities.Add` CAP_SYS_ADMIN"))
				}
			}
		}
	}
	return errs
}

// Seccomp profile types.
const (
	SeccompRuntimeDefault = "RuntimeDefault"
	SeccompUnconfined     = "Unconfined"
	SeccompLocalhost      = "Localhost"
)

// validateSeccompProfile checks a seccomp profile: a known type, and a
// localhost profile (a relative path) for Localhost and only then.
func validateSeccompProfile(errs apierrors.FieldErrors, sp *api.SeccompProfile, p fieldPath) apierrors.FieldErrors {
	if sp == nil {
		return errs
	}
	switch sp.Type {
	case SeccompLocalhost, SeccompRuntimeDefault, SeccompUnconfined:
	case "":
		errs = append(errs, Required(p.child("type").path(), "type is required when seccompProfile is set"))
	default:
		errs = append(errs, NotSupported(p.child("type").path(), sp.Type, SeccompLocalhost, SeccompRuntimeDefault, SeccompUnconfined))
	}
	switch {
	case sp.Type == SeccompLocalhost && sp.LocalhostProfile == nil:
		errs = append(errs, Required(p.child("localhostProfile").path(), "must be set when seccomp type is Localhost"))
	case sp.Type == SeccompLocalhost:
		errs = validateLocalDescendingPath(errs, *sp.LocalhostProfile, p.child("localhostProfile"))
	case sp.LocalhostProfile != nil:
		errs = append(errs, Invalid(p.child("localhostProfile").path(), *sp.LocalhostProfile, "can only be set when seccomp type is Localhost"))
	}
	return errs
}

// validateHostAliases checks the pod's /etc/hosts entries: each an IP
// address and DNS-1123 subdomains.
func validateHostAliases(errs apierrors.FieldErrors, aliases []api.HostAlias, p fieldPath) apierrors.FieldErrors {
	for i, a := range aliases {
		errs = validateIP(errs, a.IP, p.index(i).child("ip"))
		for j, h := range a.Hostnames {
			errs = validateDNS1123SubdomainField(errs, h, p.index(i).child("hostnames").index(j))
		}
	}
	return errs
}

// sysctlMaxLength is the longest sysctl name, and sysctlName the form of
// one: segments of lowercase letters, digits, '-' and '_' (starting and
// ending with a letter or digit), separated by '.' or '/'. Kubernetes:
// validation.SysctlMaxLength and SysctlContainSlashFmt.
const sysctlMaxLength = 253

var sysctlName = regexp.MustCompile(`^([a-z0-9]([-_a-z0-9]*[a-z0-9])?[\./])*[a-z0-9]([-_a-z0-9]*[a-z0-9])?$`)

// validateSysctls reports a sysctl without a name, with a name not of a
// sysctl's form, or named twice. Whether the kernel knows it, or it is
// safe, is not the API's business: the kubelet refuses what its node does
// not allow (SysctlForbidden). Kubernetes' check against hostNetwork and
// hostIPC has nothing to check: miniplane's pods do not share the host's
// namespaces.
func validateSysctls(errs apierrors.FieldErrors, sysctls []api.Sysctl, p fieldPath) apierrors.FieldErrors {
	seen := make(map[string]bool, len(sysctls))
	for i, s := range sysctls {
		name := p.index(i).child("name")
		switch {
		case s.Name == "":
			errs = append(errs, Required(name.path(), ""))
		case len(s.Name) > sysctlMaxLength || !sysctlName.MatchString(s.Name):
			errs = append(errs, Invalid(name.path(), s.Name,
				fmt.Sprintf("must have at most %d characters and match regex %s", sysctlMaxLength, sysctlName)))
		case seen[s.Name]:
			errs = append(errs, Duplicate(name.path(), s.Name))
		}
		seen[s.Name] = true
	}
	return errs
}
