// This module builds Kubernetes v1.32's end-to-end suite, e2e.test
// (k8s.io/kubernetes/test/e2e compiled with `go test -c`), from the Go
// module proxy, for run-conformance.sh. It is its own module so that
// interop's tests never pull k8s.io/kubernetes.
//
// The replace directives are kcm/go.mod's, for the same reason: the
// staging modules k8s.io/kubernetes requires at v0.0.0 are pinned to
// the release the proxy serves, v0.32.13 (k8s.io/endpointslice only
// v0.32.12, k8s.io/sample-apiserver only v0.32.3).
// run-conformance.sh copies this file and e2e_test.go to a build
// directory and runs `go mod tidy` there, so go.sum is generated, not
// committed.
module github.com/miniplane/miniplane/interop/realk8s/e2e

go 1.23.0

godebug default=go1.23

require k8s.io/kubernetes v1.32.13

replace (
	k8s.io/api => k8s.io/api v0.32.13
	k8s.io/apiextensions-apiserver => k8s.io/apiextensions-apiserver v0.32.13
	k8s.io/apimachinery => k8s.io/apimachinery v0.32.13
	k8s.io/apiserver => k8s.io/apiserver v0.32.13
	k8s.io/cli-runtime => k8s.io/cli-runtime v0.32.13
	k8s.io/client-go => k8s.io/client-go v0.32.13
	k8s.io/cloud-provider => k8s.io/cloud-provider v0.32.13
	k8s.io/cluster-bootstrap => k8s.io/cluster-bootstrap v0.32.13
	k8s.io/code-generator => k8s.io/code-generator v0.32.13
	k8s.io/component-base => k8s.io/component-base v0.32.13
	k8s.io/component-helpers => k8s.io/component-helpers v0.32.13
	k8s.io/controller-manager => k8s.io/controller-manager v0.32.13
	k8s.io/cri-api => k8s.io/cri-api v0.32.13
	k8s.io/cri-client => k8s.io/cri-client v0.32.13
	k8s.io/csi-translation-lib => k8s.io/csi-translation-lib v0.32.13
	k8s.io/dynamic-resource-allocation => k8s.io/dynamic-resource-allocation v0.32.13
	k8s.io/endpointslice => k8s.io/endpointslice v0.32.12
	k8s.io/externaljwt => k8s.io/externaljwt v0.32.13
	k8s.io/kms => k8s.io/kms v0.32.13
	k8s.io/kube-aggregator => k8s.io/kube-aggregator v0.32.13
	k8s.io/kube-controller-manager => k8s.io/kube-controller-manager v0.32.13
	k8s.io/kube-proxy => k8s.io/kube-proxy v0.32.13
	k8s.io/kube-scheduler => k8s.io/kube-scheduler v0.32.13
	k8s.io/kubectl => k8s.io/kubectl v0.32.13
	k8s.io/kubelet => k8s.io/kubelet v0.32.13
	k8s.io/metrics => k8s.io/metrics v0.32.13
	k8s.io/mount-utils => k8s.io/mount-utils v0.32.13
	k8s.io/pod-security-admission => k8s.io/pod-security-admission v0.32.13
	k8s.io/sample-apiserver => k8s.io/sample-apiserver v0.32.3
)
