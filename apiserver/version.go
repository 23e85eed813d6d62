package apiserver

// The Kubernetes version miniplane reports, in one place: the HTTP front's
// /version and the simulated nodes' kubeletVersion both read it, so `kubectl
// version` and `kubectl describe node` agree, as they do on a real cluster
// whose kubelets match the API server. kubectl's dispatcher on the
// development machine runs the bundled kubectl of the server's minor
// version, so the minor version also chooses which kubectl a test drives.
const (
	// VersionMajor and VersionMinor are /version's major and minor.
	VersionMajor = "1"
	VersionMinor = "32"
	// GitVersion is /version's gitVersion and each node's
	// status.nodeInfo.kubeletVersion.
	GitVersion = "v" + VersionMajor + "." + VersionMinor + ".0-miniplane"
)
