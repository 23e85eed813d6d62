// Package podenv works out what the simulated kubelet hands a container
// when it starts it, besides its command: its environment variables and
// the files of the volumes it mounts (a container.Input), and the command
// and args with their $(VAR) references expanded.
//
// It mirrors the kubelet's makeEnvironmentVariables and
// getServiceEnvVarMap (pkg/kubelet/kubelet_pods.go), the service link
// variables (pkg/kubelet/envvars), $(VAR) expansion
// (third_party/forked/golang/expansion), the downward API's field and
// resource values (pkg/api/v1/resource, pkg/fieldpath), and the payloads
// of the configMap, secret, downwardAPI, projected and emptyDir volume
// plugins (pkg/volume/...), and where a write lands in a shared emptyDir
// or hostPath volume (Shared, HostPath). It adds what the container runtime adds (PATH,
// HOSTNAME, HOME) so that `env` prints what a busybox container prints.
//
// The real kubelet hands the variables over in no particular order (a Go
// map); podenv's order is fixed: PATH and HOSTNAME, the container's own
// variables in the order they are declared (each envFrom source's keys
// sorted), then the service variables sorted by name, then HOME.
//
// Everything here is a pure function of the pod, its node and the objects
// it reads (Sources), safe for concurrent use. It imports api,
// controllers/nodesim/container and controllers/scheduler/fit.
package podenv
