package httpapi

import (
	"runtime"
	"runtime/debug"

	"github.com/miniplane/miniplane/apiserver"
)

// versionInfo is the answer to /version. Kubernetes: version.Info of
// k8s.io/apimachinery/pkg/version.
type versionInfo struct {
	Major        string `json:"major"`
	Minor        string `json:"minor"`
	GitVersion   string `json:"gitVersion"`
	GitCommit    string `json:"gitCommit"`
	GitTreeState string `json:"gitTreeState"`
	BuildDate    string `json:"buildDate"`
	GoVersion    string `json:"goVersion"`
	Compiler     string `json:"compiler"`
	Platform     string `json:"platform"`
}

// binaryVersion is /version for the running binary: the Kubernetes version
// it mimics, and its own Go version, compiler, platform and, when the Go
// toolchain stamped them (a build inside a git checkout), commit, tree state
// and commit time as the build date.
func binaryVersion() versionInfo {
	bi, _ := debug.ReadBuildInfo()
	return newVersionInfo(bi, runtime.Version(), runtime.Compiler, runtime.GOOS+"/"+runtime.GOARCH)
}

// newVersionInfo builds /version's answer from a binary's build information
// (nil when it has none). Without VCS stamps gitCommit and gitTreeState stay
// empty and buildDate is the epoch, as in a Kubernetes binary built without
// its version ldflags (k8s.io/component-base/version).
func newVersionInfo(bi *debug.BuildInfo, goVersion, compiler, platform string) versionInfo {
	v := versionInfo{
		Major: apiserver.VersionMajor, Minor: apiserver.VersionMinor, GitVersion: apiserver.GitVersion,
		BuildDate: "1970-01-01T00:00:00Z",
		GoVersion: goVersion, Compiler: compiler, Platform: platform,
	}
	if bi == nil {
		return v
	}
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			v.GitCommit = s.Value
		case "vcs.time":
			v.BuildDate = s.Value // RFC 3339 in UTC, the shape Kubernetes' buildDate has
		case "vcs.modified":
			v.GitTreeState = "clean"
			if s.Value == "true" {
				v.GitTreeState = "dirty"
			}
		}
	}
	return v
}
