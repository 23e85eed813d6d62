// This module builds etcd v3.5 (the release line Kubernetes v1.32's
// kube-apiserver is tested with; v3.5.16 is the etcd client it requires)
// from the Go module proxy, for bench-stacks.sh and bench-create.sh. The
// scripts copy this file and main.go to a build directory (bench-lib.sh) and run
// `go mod tidy` there, so go.sum is generated, not committed.
module github.com/miniplane/miniplane/interop/realk8s/etcd

go 1.22

require go.etcd.io/etcd/server/v3 v3.5.16
