package podenv

import (
	"fmt"
	"strings"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/controllers/nodesim/container"
)

// ClusterDNS is the cluster's DNS server, the kubelet's --cluster-dns:
// kubeadm's, the tenth address of the default Service range. miniplane
// runs no DNS server; the address is what a container's resolv.conf says.
const ClusterDNS = "10.96.0.10"

// etcFiles puts into fs, the files of container ct of pod mounted at
// mounts, the files the kubelet and the runtime write under /etc for it,
// each unless the container mounts a volume there: /etc/hosts once the
// pod has an IP (the kubelet's managed one, or with hostNetwork the
// node's), /etc/resolv.conf as its DNS policy says, and /etc/hostname.
// Kubernetes: makeMounts' makeHostsMount (ensureHostsFile), the DNS
// configurer's GetPodDNS as containerd writes it, and the sandbox's
// hostname file.
func etcFiles(pod *api.Pod, mounts []api.VolumeMount, fs container.FS) {
	if ip := pod.Status.PodIP; ip != "" && !mountsAt(mounts, "/etc/hosts") {
		hosts := HostsFile(pod, ip)
		if pod.Spec.HostNetwork {
			hosts = NodeHostsFile(pod.Spec.NodeName, pod.Status.HostIP) + hostAliases(pod)
		}
		fs.Put("/etc/hosts", container.File{Data: hosts, Mode: 0o644})
	}
	if conf, ok := ResolvConf(pod); ok && !mountsAt(mounts, "/etc/resolv.conf") {
		fs.Put("/etc/resolv.conf", container.File{Data: conf, Mode: 0o644})
	}
	if !mountsAt(mounts, "/etc/hostname") {
		host := Hostname(pod)
		if pod.Spec.HostNetwork {
			host = pod.Spec.NodeName
		}
		fs.Put("/etc/hostname", container.File{Data: host + "\n", Mode: 0o644})
	}
}

// NodeHostsFile is a simulated node's own /etc/hosts, as a kind node's
// runtime writes it: localhost, and the node's name at its IP. A
// hostNetwork pod sees it (with its hostAliases after), and so does a
// hostPath volume of /etc/hosts.
func NodeHostsFile(node, ip string) string {
	var b strings.Builder
	b.WriteString("127.0.0.1\tlocalhost\n")
	b.WriteString("::1\tlocalhost ip6-localhost ip6-loopback\n")
	b.WriteString("fe00::0\tip6-localnet\n")
	b.WriteString("ff00::0\tip6-mcastprefix\n")
	b.WriteString("ff02::1\tip6-allnodes\n")
	b.WriteString("ff02::2\tip6-allrouters\n")
	if ip != "" && node != "" {
		fmt.Fprintf(&b, "%s\t%s\n", ip, node)
	}
	return b.String()
}

// hostAliases is the hostAliases section the kubelet appends to a hosts
// file, or "" without aliases.
func hostAliases(pod *api.Pod) string {
	if len(pod.Spec.HostAliases) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("\n# Entries added by HostAliases.\n")
	for _, a := range pod.Spec.HostAliases {
		fmt.Fprintf(&b, "%s\t%s\n", a.IP, strings.Join(a.Hostnames, "\t"))
	}
	return b.String()
}

// ResolvConf is the /etc/resolv.conf of pod's containers, and whether
// there is one: with ClusterFirst (the default; a hostNetwork pod needs
// ClusterFirstWithHostNet) the cluster's DNS server, the search path of the
// pod's namespace and ndots:5, in containerd's order; the node's (Default,
// or ClusterFirst with hostNetwork) and None's (dnsConfig, which miniplane
// does not keep) are not simulated: no file. Kubernetes: the kubelet's
// dns.Configurer.GetPodDNS.
func ResolvConf(pod *api.Pod) (string, bool) {
	switch pod.Spec.DNSPolicy {
	case "", api.DNSClusterFirst:
		if pod.Spec.HostNetwork {
			return "", false
		}
	case api.DNSClusterFirstWithHostNet:
	default:
		return "", false
	}
	ns := pod.Metadata.Namespace
	return fmt.Sprintf("search %s.svc.%s svc.%s %s\nnameserver %s\noptions ndots:5\n",
		ns, ClusterDomain, ClusterDomain, ClusterDomain, ClusterDNS), true
}
