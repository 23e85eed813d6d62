package container

import (
	"strings"
	"time"

	"github.com/miniplane/miniplane/api"
)

// Input is what the kubelet hands a container when it starts it, besides
// its command: its environment and its filesystem. Its zero value is an
// empty environment and filesystem.
type Input struct {
	// Env is the environment, in the order `env` prints it.
	Env []EnvVar
	// FS is the filesystem of its mounted volumes.
	FS FS
	// User is who its processes run as.
	User User
	// ReadOnlyRoot says the image's filesystem is read-only
	// (readOnlyRootFilesystem): only the Writable paths take writes.
	ReadOnlyRoot bool
	// Writable are the mount points of its writable volumes.
	Writable []string
	// Privileged gives its processes every capability.
	Privileged bool
	// CapAdd are capabilities added to the runtime's default set.
	CapAdd []string
	// NoNewPrivs keeps setuid programs from raising privileges
	// (allowPrivilegeEscalation: false).
	NoNewPrivs bool
	// Sysctls are the kernel parameters its pod set
	// (securityContext.sysctls), which sysctl reads.
	Sysctls []api.Sysctl
	// Start is when the run starts, on the kubelet's clock: the time a
	// program that prints the time reads.
	Start time.Time
	// Seed seeds what a program draws at random (agnhost logs-generator),
	// so that a run's output is a pure function of its Input. The kubelet
	// derives it from the pod's UID, the container's name and its restart
	// count.
	Seed uint64
}

// writable reports whether a write to p lands on a writable filesystem:
// any path when the root filesystem is writable, else one under a
// writable volume or the runtime's /dev.
func (in *Input) writable(p string) bool {
	if !in.ReadOnlyRoot {
		return true
	}
	for _, at := range append([]string{"/dev"}, in.Writable...) {
		if p == at || strings.HasPrefix(p, strings.TrimSuffix(at, "/")+"/") {
			return true
		}
	}
	return false
}

// EnvVar is one variable of a container's environment.
type EnvVar struct{ Name, Value string }

// lookup returns the value of the variable name.
func (in *Input) lookup(name string) (string, bool) {
	for i := len(in.Env) - 1; i >= 0; i-- {
		if in.Env[i].Name == name {
			return in.Env[i].Value, true
		}
	}
	return "", false
}
