package container

import (
	"slices"
	"strconv"
	"strings"
)

// User is who a container's processes run as: the uid and primary gid the
// kubelet resolved from the security context and the image, and the
// supplementary groups it adds (the pod's supplementalGroups and
// fsGroup). Its zero value is root. Kubernetes: the runtime's
// LinuxContainerSecurityContext (run_as_user, run_as_group,
// supplemental_groups).
type User struct {
	UID, GID int64
	// Extra are the supplementary groups the kubelet adds, in order.
	Extra []int64
}

// The image's account files, as `id` and `whoami` read them: busybox's
// /etc/passwd and /etc/group (the users and groups below 100 and nobody),
// which every simulated image is taken to carry.
var (
	passwdNames = map[int64]string{0: "root", 1: "daemon", 2: "bin", 3: "sys", 4: "sync", 8: "mail",
		33: "www-data", 37: "operator", 65534: "nobody"}
	groupNames = map[int64]string{0: "root", 1: "daemon", 2: "bin", 3: "sys", 4: "adm", 5: "tty", 6: "disk",
		7: "lp", 8: "mail", 9: "kmem", 10: "wheel", 11: "cdrom", 18: "dialout", 19: "floppy", 28: "video",
		29: "audio", 32: "tape", 33: "www-data", 37: "operator", 43: "utmp", 46: "plugdev", 50: "staff",
		54: "lock", 82: "netdev", 100: "users", 65534: "nogroup"}
	// memberOf are the groups /etc/group lists a user in, besides its own.
	memberOf = map[int64][]int64{0: {10}}
)

// PasswdGID is the primary group /etc/passwd gives uid, and whether it
// lists uid: the gid a container runs with when its security context
// sets no runAsGroup (0 for a uid the image does not know).
func PasswdGID(uid int64) (int64, bool) {
	switch uid {
	case 4:
		return 100, true
	}
	if _, ok := passwdNames[uid]; ok {
		return uid, true
	}
	return 0, false
}

// Groups are all the groups of u's processes, as getgroups(2) gives them:
// the primary group, those the image's /etc/group lists the user in, then
// the kubelet's supplementary groups; each once.
func (u User) Groups() []int64 {
	groups := []int64{u.GID}
	for _, g := range append(slices.Clip(memberOf[u.UID]), u.Extra...) {
		if !slices.Contains(groups, g) {
			groups = append(groups, g)
		}
	}
	return groups
}

// named is id written as `id` writes it: "1001", or "0(root)" when the
// image names it.
func named(id int64, names map[int64]string) string {
	s := strconv.FormatInt(id, 10)
	if n, ok := names[id]; ok {
		s += "(" + n + ")"
	}
	return s
}

// nameOrID is the name of id, or the number when the image has none.
func nameOrID(id int64, names map[int64]string) string {
	if n, ok := names[id]; ok {
		return n
	}
	return strconv.FormatInt(id, 10)
}

// id prints the user and groups as busybox's id does: with no option
// "uid=0(root) gid=0(root) groups=0(root),10(wheel)"; -u, -g or -G one of
// them as numbers, or as names with -n.
func (sh *shell) id(args []string) (int32, bool) {
	var which byte
	names := false
	for _, a := range args {
		if len(a) < 2 || a[0] != '-' {
			return 0, false // a user named: not simulated
		}
		for _, c := range a[1:] {
			switch c {
			case 'u', 'g', 'G':
				if which != 0 && which != byte(c) {
					sh.print("id: only one of -u, -g, -G may be given\n")
					return 1, true
				}
				which = byte(c)
			case 'n':
				names = true
			default:
				return 0, false
			}
		}
	}
	u := sh.in.User
	show := func(id int64, table map[int64]string) string {
		if names {
			return nameOrID(id, table)
		}
		return strconv.FormatInt(id, 10)
	}
	switch which {
	case 'u':
		sh.print(show(u.UID, passwdNames) + "\n")
	case 'g':
		sh.print(show(u.GID, groupNames) + "\n")
	case 'G':
		var out []string
		for _, g := range u.Groups() {
			out = append(out, show(g, groupNames))
		}
		sh.print(strings.Join(out, " ") + "\n")
	default:
		if names {
			sh.print("id: -n needs -u, -g or -G\n")
			return 1, true
		}
		var out []string
		for _, g := range u.Groups() {
			out = append(out, named(g, groupNames))
		}
		sh.print("uid=" + named(u.UID, passwdNames) + " gid=" + named(u.GID, groupNames) + " groups=" + strings.Join(out, ",") + "\n")
	}
	return 0, true
}

// whoami prints the user's name, which the image's /etc/passwd gives.
func (sh *shell) whoami() int32 {
	n, ok := passwdNames[sh.in.User.UID]
	if !ok {
		sh.print("whoami: unknown uid " + strconv.FormatInt(sh.in.User.UID, 10) + "\n")
		return 1
	}
	sh.print(n + "\n")
	return 0
}

// hasCap reports whether the container's processes hold capability c
// (as "NET_ADMIN"): a privileged container holds all; others the
// runtime's default set (which has no NET_ADMIN nor SYS_ADMIN) with the
// security context's additions.
func (in *Input) hasCap(c string) bool {
	if in.Privileged {
		return true
	}
	for _, a := range in.CapAdd {
		if a == c || a == "CAP_"+c || a == "ALL" {
			return true
		}
	}
	return false
}

// ipLink runs `ip link add ...`: making a network device needs
// CAP_NET_ADMIN, which only a privileged container (or one granted it)
// holds; other ip commands are not simulated.
func (sh *shell) ip(args []string) (int32, bool) {
	if len(args) < 2 || args[0] != "link" || args[1] != "add" {
		return 0, false
	}
	if !sh.in.hasCap("NET_ADMIN") {
		sh.print("ip: RTNETLINK answers: Operation not permitted\n")
		return 2, true
	}
	return 0, true
}
