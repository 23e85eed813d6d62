package container

import (
	"slices"
	"strings"

	"github.com/miniplane/miniplane/api"
)

// SafeSysctls are the sysctls the kubelet allows every pod to set, each
// with the value a container reads when its pod does not set it. The names
// are the kubelet's safe list (pkg/kubelet/sysctl, SafeSysctlAllowlist, on
// a kernel new enough for all of them). The values are the Linux kernel's
// defaults in a new network or IPC namespace, as its documentation gives
// them (Documentation/admin-guide/sysctl/kernel.rst for shm_rmid_forced,
// Documentation/networking/ip-sysctl.rst for the net.ipv4 ones); the
// kernel prints a list of numbers with tabs between them.
var SafeSysctls = []api.Sysctl{
	{Name: "kernel.shm_rmid_forced", Value: "0"},
	{Name: "net.ipv4.ip_local_port_range", Value: "32768\t60999"},
	{Name: "net.ipv4.tcp_syncookies", Value: "1"},
	{Name: "net.ipv4.ping_group_range", Value: "1\t0"},
	{Name: "net.ipv4.ip_unprivileged_port_start", Value: "1024"},
	{Name: "net.ipv4.ip_local_reserved_ports", Value: ""},
	{Name: "net.ipv4.tcp_keepalive_time", Value: "7200"},
	{Name: "net.ipv4.tcp_fin_timeout", Value: "60"},
	{Name: "net.ipv4.tcp_keepalive_intvl", Value: "75"},
	{Name: "net.ipv4.tcp_keepalive_probes", Value: "9"},
	{Name: "net.ipv4.tcp_rmem", Value: "4096\t131072\t6291456"},
	{Name: "net.ipv4.tcp_wmem", Value: "4096\t16384\t4194304"},
}

// NormalizeSysctl is a sysctl's name with "." between its parts: a name
// whose first separator is "/" ("net/ipv4/conf/eth0.100/forwarding") has
// its "/" and "." swapped, as the kubelet and sysctl(8) read it.
// Kubernetes: component-helpers' sysctl.NormalizeName.
func NormalizeSysctl(name string) string {
	i := strings.IndexAny(name, "./")
	if i < 0 || name[i] == '.' {
		return name
	}
	return strings.Map(func(r rune) rune {
		switch r {
		case '.':
			return '/'
		case '/':
			return '.'
		}
		return r
	}, name)
}

// sysctlValue is the value a container reads of the sysctl name: its
// pod's, else the kernel's default for a safe one. ok is false for a
// sysctl the simulator does not know the value of.
func (in *Input) sysctlValue(name string) (value string, ok bool) {
	name = NormalizeSysctl(name)
	for i := len(in.Sysctls) - 1; i >= 0; i-- {
		if NormalizeSysctl(in.Sysctls[i].Name) == name {
			return in.Sysctls[i].Value, true
		}
	}
	if i := slices.IndexFunc(SafeSysctls, func(s api.Sysctl) bool { return s.Name == name }); i >= 0 {
		return SafeSysctls[i].Value, true
	}
	return "", false
}

// sysctl is busybox's sysctl reading keys: "NAME = VALUE" a line (the
// name with dots), or the value alone with -n. Setting one (-w, NAME=V),
// -a and the other options are not simulated, nor a key whose value the
// simulator does not know: the command then counts as unknown.
func (sh *shell) sysctl(args []string) (int32, bool) {
	valueOnly := false
	for len(args) > 0 && strings.HasPrefix(args[0], "-") {
		if args[0] != "-n" {
			return 0, false
		}
		valueOnly, args = true, args[1:]
	}
	if len(args) == 0 {
		return 0, false
	}
	var out strings.Builder
	for _, name := range args {
		v, ok := sh.in.sysctlValue(name)
		if !ok || strings.Contains(name, "=") {
			return 0, false
		}
		if !valueOnly {
			out.WriteString(NormalizeSysctl(name) + " = ")
		}
		out.WriteString(v + "\n")
	}
	sh.print(out.String())
	return 0, true
}
