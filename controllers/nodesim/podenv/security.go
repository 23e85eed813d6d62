package podenv

import (
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/controllers/nodesim/container"
)

// ClusterDomain is the cluster's DNS domain, the kubelet's
// --cluster-domain as kubeadm sets it.
const ClusterDomain = "cluster.local"

// effective is a container's security context with the pod's filled in
// where the container's leaves a field unset. Kubernetes:
// securitycontext.DetermineEffectiveSecurityContext.
func effective(pod *api.Pod, ct *api.Container) api.SecurityContext {
	var sc api.SecurityContext
	if ct.SecurityContext != nil {
		sc = *ct.SecurityContext
	}
	if p := pod.Spec.SecurityContext; p != nil {
		if sc.RunAsUser == nil {
			sc.RunAsUser = p.RunAsUser
		}
		if sc.RunAsGroup == nil {
			sc.RunAsGroup = p.RunAsGroup
		}
		if sc.RunAsNonRoot == nil {
			sc.RunAsNonRoot = p.RunAsNonRoot
		}
	}
	return sc
}

// Security works out who container ct of pod runs as and with what
// privileges, into in: the uid and gid of its security context (the
// pod's where the container's sets none) or of its image, the pod's
// supplementary groups and fsGroup, a read-only root filesystem,
// privileged, added capabilities, no_new_privs and the pod's sysctls. It refuses, with the
// kubelet's message, a container that must not run as root but would.
// Kubernetes: generateContainerConfig's verifyRunAsNonRoot, and
// determineEffectiveSecurityContext.
func Security(pod *api.Pod, ct *api.Container, in *container.Input) error {
	sc := effective(pod, ct)
	image, _ := container.ImageConfig(ct.Image)
	if isTrue(sc.RunAsNonRoot) {
		switch {
		case sc.RunAsUser != nil && *sc.RunAsUser == 0:
			return &ConfigError{Message: fmt.Sprintf("container's runAsUser breaks non-root policy (pod: %q, container: %s)", podDesc(pod), ct.Name)}
		case sc.RunAsUser == nil && image.UID == 0:
			return &ConfigError{Message: fmt.Sprintf("container has runAsNonRoot and image will run as root (pod: %q, container: %s)", podDesc(pod), ct.Name)}
		}
	}
	u := container.User{UID: image.UID}
	if sc.RunAsUser != nil {
		u.UID = *sc.RunAsUser
	}
	u.GID, _ = container.PasswdGID(u.UID)
	if sc.RunAsGroup != nil {
		u.GID = *sc.RunAsGroup
	}
	if p := pod.Spec.SecurityContext; p != nil {
		u.Extra = slices.Clone(p.SupplementalGroups)
		if p.FSGroup != nil {
			u.Extra = append(u.Extra, *p.FSGroup)
		}
		in.Sysctls = p.Sysctls // shared with the pod, never changed
	}
	in.User = u
	in.ReadOnlyRoot = isTrue(sc.ReadOnlyRootFilesystem)
	in.Privileged = isTrue(sc.Privileged)
	in.NoNewPrivs = sc.AllowPrivilegeEscalation != nil && !*sc.AllowPrivilegeEscalation
	if sc.Capabilities != nil {
		in.CapAdd = slices.Clone(sc.Capabilities.Add)
	}
	in.Writable = writableMounts(pod, ct)
	return nil
}

// podDesc names a pod as the kubelet's messages do: name_namespace(uid).
// Kubernetes: format.Pod.
func podDesc(pod *api.Pod) string {
	return fmt.Sprintf("%s_%s(%s)", pod.Metadata.Name, pod.Metadata.Namespace, pod.Metadata.UID)
}

// writableMounts are the mount points of ct's writable volumes: those not
// mounted read-only whose plugin writes no payload (configMap, secret,
// downwardAPI and projected volumes are read-only), and the files the
// kubelet mounts itself (/etc/hosts, the termination log).
func writableMounts(pod *api.Pod, ct *api.Container) []string {
	out := []string{"/etc/hosts", "/dev/termination-log"}
	for _, m := range ct.VolumeMounts {
		if m.ReadOnly {
			continue
		}
		i := slices.IndexFunc(pod.Spec.Volumes, func(v api.Volume) bool { return v.Name == m.Name })
		if i < 0 {
			continue
		}
		v := pod.Spec.Volumes[i].VolumeSource
		if v.ConfigMap == nil && v.Secret == nil && v.DownwardAPI == nil && v.Projected == nil {
			out = append(out, path.Clean("/"+m.MountPath))
		}
	}
	return out
}

// HostsFile is the /etc/hosts the kubelet writes for a pod with IP ip and
// mounts into each of its containers: localhost, the pod's own name, and
// its hostAliases. Kubernetes: managedHostsFileContent.
func HostsFile(pod *api.Pod, ip string) string {
	var b strings.Builder
	b.WriteString("# Kubernetes-managed hosts file.\n")
	b.WriteString("127.0.0.1\tlocalhost\n")
	b.WriteString("::1\tlocalhost ip6-localhost ip6-loopback\n")
	b.WriteString("fe00::0\tip6-localnet\n")
	b.WriteString("fe00::0\tip6-mcastprefix\n")
	b.WriteString("fe00::1\tip6-allnodes\n")
	b.WriteString("fe00::2\tip6-allrouters\n")
	host := Hostname(pod)
	if sub := pod.Spec.Subdomain; sub != "" {
		fmt.Fprintf(&b, "%s\t%s.%s.%s.svc.%s\t%s\n", ip, host, sub, pod.Metadata.Namespace, ClusterDomain, host)
	} else {
		fmt.Fprintf(&b, "%s\t%s\n", ip, host)
	}
	if len(pod.Spec.HostAliases) > 0 {
		b.WriteString("\n# Entries added by HostAliases.\n")
		for _, a := range pod.Spec.HostAliases {
			fmt.Fprintf(&b, "%s\t%s\n", a.IP, strings.Join(a.Hostnames, "\t"))
		}
	}
	return b.String()
}

// subPaths expands the subPathExpr of ct's mounts with its environment
// (vars), into a copy of its mounts with SubPath set; it refuses, with the
// kubelet's message, a reference to a variable unset or empty, and a
// subPath that is absolute or climbs out of its volume. Kubernetes:
// makeMounts with ExpandContainerVolumeMounts.
func subPaths(ct *api.Container, vars []container.EnvVar) ([]api.VolumeMount, error) {
	mounts := slices.Clone(ct.VolumeMounts)
	for i := range mounts {
		m := &mounts[i]
		if m.SubPathExpr != "" {
			var missing []string
			m.SubPath = Expand(m.SubPathExpr, func(name string) (string, bool) {
				j := slices.IndexFunc(vars, func(v container.EnvVar) bool { return v.Name == name })
				if j < 0 || vars[j].Value == "" {
					if !slices.Contains(missing, name) {
						missing = append(missing, name)
					}
					return "", true
				}
				return vars[j].Value, true
			})
			if len(missing) > 0 {
				slices.Sort(missing)
				return nil, &ConfigError{Message: "missing value for " + strings.Join(missing, ", ")}
			}
		}
		if m.SubPath == "" {
			continue
		}
		if path.IsAbs(m.SubPath) {
			return nil, &ConfigError{Message: fmt.Sprintf("error SubPath `%s` must not be an absolute path", m.SubPath)}
		}
		if slices.Contains(strings.Split(m.SubPath, "/"), "..") {
			return nil, &ConfigError{Message: fmt.Sprintf("unable to provision SubPath `%s`: must not contain '..'", m.SubPath)}
		}
	}
	return mounts, nil
}
