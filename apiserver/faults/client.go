package faults

import (
	"regexp"
	"strings"
)

// clientGoDefault matches client-go's default User-Agent,
// rest.DefaultKubernetesUserAgent:
//
//	<command>/<version> (<os>/<arch>) kubernetes/<commit>
//
// where <command> is the base name of the binary (os.Args[0]), and what
// rest.AddUserAgent appends to it ("/replicaset-controller").
var clientGoDefault = regexp.MustCompile(`^[^/\s]+/(\S+) \([^/\s()]+/[^/\s()]+\) (kubernetes/\S+)$`)

// ClientOf names the client a request comes from, as its fault streams
// and the trace know it: the User-Agent, less what depends on how the
// client was built rather than on the test. client-go's default
// User-Agent starts with the binary's name and its platform, so the same
// test built as ctrl.test or controller.test, or for linux/amd64 or
// darwin/arm64, would draw different faults from one seed; ClientOf
// replaces the name with "client-go" and drops the platform:
//
//	"ctrl.test/v0.0.0 (linux/amd64) kubernetes/$Format/node-controller"
//	  -> "client-go/v0.0.0 kubernetes/$Format/node-controller"
//
// kubectl's and kube-controller-manager's User-Agents have that shape
// too and lose their first word alike: what stays — client-go's version and
// commit, the suffix a component adds — comes from the client's
// dependencies and code, not from where it was built. Any other User-Agent
// (one the test set in rest.Config.UserAgent) is kept as it is, its
// surrounding space trimmed; an empty one is "unknown".
func ClientOf(userAgent string) string {
	ua := strings.TrimSpace(userAgent)
	if m := clientGoDefault.FindStringSubmatch(ua); m != nil {
		return "client-go/" + m[1] + " " + m[2]
	}
	if ua == "" {
		return "unknown"
	}
	return ua
}
