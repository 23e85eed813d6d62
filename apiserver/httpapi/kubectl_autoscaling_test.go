package httpapi_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/miniplane/miniplane/clock"
)

// TestKubectlAutoscale makes an autoscaler with kubectl autoscale (which
// writes autoscaling/v2), reads it back in both versions, prints it, and
// checks a refusal stores nothing.
func TestKubectlAutoscale(t *testing.T) {
	ts := newTestServer(t, clock.Real{}, nil)
	k := newKubectl(t, ts.url)
	k.ok(`apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  replicas: 1
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers: [{name: nginx, image: "nginx:1.27"}]
`, "apply", "-f", "-")
	assert.Equal(t, "horizontalpodautoscaler.autoscaling/web autoscaled\n", k.ok("", "autoscale", "deployment", "web", "--min=2", "--max=5", "--cpu-percent=50"))

	t.Run("get", func(t *testing.T) {
		rows := columns(k.ok("", "get", "hpa"))
		require.Len(t, rows, 2)
		assert.Equal(t, []string{"NAME", "REFERENCE", "TARGETS", "MINPODS", "MAXPODS", "REPLICAS", "AGE"}, rows[0])
		assert.Equal(t, []string{"web", "Deployment/web", "cpu:", "<unknown>/50%", "2", "5", "0"}, rows[1][:7])
	})
	t.Run("v1 shows the CPU target", func(t *testing.T) {
		assert.Equal(t, "50", k.ok("", "get", "horizontalpodautoscalers.v1.autoscaling", "web", "-o", "jsonpath={.spec.targetCPUUtilizationPercentage}"))
		assert.Equal(t, "autoscaling/v2", k.ok("", "get", "hpa", "web", "-o", "jsonpath={.apiVersion}"))
	})
	t.Run("a refusal stores nothing", func(t *testing.T) {
		rev := ts.srv.Store().Rev()
		errOut := k.fails("apiVersion: autoscaling/v1\nkind: HorizontalPodAutoscaler\nmetadata: {name: bad}\n"+
			"spec: {minReplicas: 4, maxReplicas: 2, scaleTargetRef: {kind: Deployment, name: web}}\n", "create", "-f", "-")
		assert.Contains(t, errOut, `The HorizontalPodAutoscaler "bad" is invalid: spec.maxReplicas: Invalid value: 2: must be greater than or equal to `+"`minReplicas`")
		assert.Equal(t, rev, ts.srv.Store().Rev())
	})
}
