package httpapi_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/client"
	"github.com/miniplane/miniplane/clock"
)

// hpaManifest is of a group version miniplane does not serve (nor
// kube-apiserver v1.32: autoscaling/v2beta2 went in v1.26).
const hpaManifest = `apiVersion: autoscaling/v2beta2
kind: HorizontalPodAutoscaler
metadata:
  name: web
spec:
  maxReplicas: 3
  scaleTargetRef:
    apiVersion: apps/v1
    kind: Deployment
    name: web
`

// listManifest is a v1 List, which kubectl validates itself against
// /openapi/v2, item by item. extra goes into the pod's spec.
func listManifest(extra string) string {
	return `apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: Pod
  metadata:
    name: listed
  spec:
    containers:
    - name: web
      image: nginx:1.27
      ports:
      - containerPort: 80
      resources:
        limits: {cpu: 1, memory: 64Mi}
      livenessProbe:
        httpGet: {path: /healthz, port: 80}
` + extra
}

// oneLine joins kubectl's wrapped lines, so that a doc comment can be
// looked for whole.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// TestKubectlOpenAPI drives the real kubectl through what it reads the
// OpenAPI documents for: explain (from /openapi/v3, and from /openapi/v2
// when asked), validation of an object the server does not serve (which
// must fail on the kind, not on the documents), and client-side
// validation of a List against /openapi/v2.
func TestKubectlOpenAPI(t *testing.T) {
	ts := newTestServer(t, clock.Real{}, nil)
	k := newKubectl(t, ts.url)
	stored := func() int {
		n := 0
		for _, r := range ts.srv.Resources() {
			n += ts.srv.Count(r.Resource)
		}
		return n
	}

	t.Run("explain", func(t *testing.T) {
		tests := []struct {
			args []string
			want []string // in the output with its lines joined
		}{
			{[]string{"explain", "pods"}, []string{
				"KIND: Pod VERSION: v1 DESCRIPTION: Pod is a group of containers scheduled together onto one node",
				"metadata <ObjectMeta> Metadata is the pod's identity, labels and owners.",
				"spec <PodSpec> Spec is the desired state, written by the pod's creator.",
				"status <PodStatus>",
			}},
			{[]string{"explain", "pod.spec.containers"}, []string{
				"FIELD: containers <[]Container>",
				"DESCRIPTION: Containers run together for the life of the pod.",
				"Container is one container of a pod.",
				"image <string> Image is the container image reference.",
				"name <string> -required- Name is unique among the pod's containers.",
				"ports <[]ContainerPort>",
				"resources <ResourceRequirements>",
			}},
			{[]string{"explain", "rc.spec.replicas"}, []string{
				"KIND: ReplicationController VERSION: v1 FIELD: replicas <integer>",
				"DESCRIPTION: Replicas is the desired number of pods; nil means 1 (the apiserver defaults it).",
			}},
			{[]string{"explain", "svc.spec.ports.targetPort"}, []string{"FIELD: targetPort <IntOrString>"}},
			{[]string{"explain", "pod.spec.containers.resources.limits"}, []string{"FIELD: limits <map[string]Quantity>"}},
			{[]string{"explain", "pod.metadata.creationTimestamp"}, []string{"FIELD: creationTimestamp <string>"}},
			{[]string{"explain", "leases"}, []string{"GROUP: coordination.k8s.io KIND: Lease VERSION: v1"}},
			{[]string{"explain", "events.regarding", "--api-version=events.k8s.io/v1"}, []string{
				"GROUP: events.k8s.io KIND: Event VERSION: v1 FIELD: regarding <ObjectReference>",
			}},
			{[]string{"explain", "pods.spec.containers.ports", "--output=plaintext-openapiv2"}, []string{
				"RESOURCE: ports <[]Object>",
				"containerPort <integer> -required- ContainerPort is the port number in the pod's network namespace.",
			}},
		}
		for _, tt := range tests {
			t.Run(strings.Join(tt.args[1:], " "), func(t *testing.T) {
				out := oneLine(k.ok("", tt.args...))
				for _, want := range tt.want {
					assert.Contains(t, out, want)
				}
			})
		}
	})
	t.Run("explain a missing field", func(t *testing.T) {
		assert.Contains(t, k.fails("", "explain", "pod.spec.nope"), `error: field "nope" does not exist`)
	})

	t.Run("apply an unserved kind", func(t *testing.T) {
		before := stored()
		for _, verb := range []string{"apply", "create"} {
			errOut := k.fails(hpaManifest, verb, "-f", "-")
			assert.Contains(t, errOut, `no matches for kind "HorizontalPodAutoscaler" in version "autoscaling/v2beta2"`, verb)
			assert.NotContains(t, errOut, "--validate=false", "the documents downloaded and validated")
		}
		assert.Equal(t, before, stored(), "nothing stored")
	})

	t.Run("validate a list against v2", func(t *testing.T) {
		before := stored()
		errOut := k.fails(listManifest("    containerz: []\n"), "apply", "-f", "-")
		assert.Contains(t, errOut, `ValidationError(Pod.spec): unknown field "containerz" in io.k8s.api.core.v1.PodSpec`)
		assert.Equal(t, before, stored(), "nothing stored")

		assert.Equal(t, "pod/listed created\n", k.ok(listManifest(""), "apply", "-f", "-"))
		p, err := client.For[*api.Pod](ts.srv).Get(t.Context(), "default", "listed")
		require.NoError(t, err)
		assert.Equal(t, "1", p.Spec.Containers[0].Resources.Limits["cpu"])
	})
}
