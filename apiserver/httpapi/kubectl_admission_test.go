package httpapi_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/miniplane/miniplane/clock"
)

// maxReplicasManifest is a policy that forbids Deployments of more than
// five replicas, and its binding.
const maxReplicasManifest = `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: max-replicas}
spec:
  failurePolicy: Fail
  matchConstraints:
    resourceRules:
    - apiGroups: [apps]
      apiVersions: [v1]
      operations: [CREATE, UPDATE]
      resources: [deployments]
  validations:
  - expression: object.spec.replicas <= 5
    message: at most 5 replicas
    reason: Forbidden
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: max-replicas}
spec:
  policyName: max-replicas
  validationActions: [Deny]
`

// TestKubectlValidatingAdmissionPolicy applies a policy and its binding
// with the real kubectl, then has kubectl create deployment refused with
// kube-apiserver's message, kubectl scale refused once the rule names deployments/scale,
// a Warn binding answered as kubectl's Warning line, the columns of
// kubectl get, a policy that does not compile refused at create, and a
// webhook configuration created with the warning that it is not called.
func TestKubectlValidatingAdmissionPolicy(t *testing.T) {
	ts := newTestServer(t, clock.Real{}, nil)
	k := newKubectl(t, ts.url)
	out := k.ok(maxReplicasManifest, "apply", "-f", "-")
	assert.Contains(t, out, "validatingadmissionpolicy.admissionregistration.k8s.io/max-replicas created")
	assert.Contains(t, out, "validatingadmissionpolicybinding.admissionregistration.k8s.io/max-replicas created")

	t.Run("refused", func(t *testing.T) {
		rev := ts.srv.Store().Rev()
		errOut := k.fails("", "create", "deployment", "web", "--image=nginx:1.27", "--replicas=6")
		assert.Equal(t, `error: failed to create deployment: deployments.apps "web" is forbidden: ValidatingAdmissionPolicy 'max-replicas' with binding 'max-replicas' denied request: at most 5 replicas`+"\n", errOut)
		assert.Equal(t, rev, ts.srv.Store().Rev(), "nothing stored")
	})
	t.Run("admitted; the scale subresource is another resource", func(t *testing.T) {
		assert.Equal(t, "deployment.apps/web created\n", k.ok("", "create", "deployment", "web", "--image=nginx:1.27", "--replicas=5"))
		// The rule names deployments, not deployments/scale: kubectl scale
		// is not matched, as on a cluster, until the rule adds it.
		assert.Equal(t, "deployment.apps/web scaled\n", k.ok("", "scale", "deployment", "web", "--replicas=4"))
		k.ok("", "patch", "validatingadmissionpolicy", "max-replicas", "--type=json", "-p",
			`[{"op":"add","path":"/spec/matchConstraints/resourceRules/0/resources/-","value":"deployments/scale"}]`)
		errOut := k.fails("", "scale", "deployment", "web", "--replicas=9")
		assert.Contains(t, errOut, `deployments.apps "web" is forbidden: ValidatingAdmissionPolicy 'max-replicas' with binding 'max-replicas' denied request: at most 5 replicas`)
	})
	t.Run("get", func(t *testing.T) {
		rows := columns(k.ok("", "get", "validatingadmissionpolicies"))
		require.Len(t, rows, 2)
		assert.Equal(t, []string{"NAME", "VALIDATIONS", "PARAMKIND", "AGE"}, rows[0])
		assert.Equal(t, []string{"max-replicas", "1", "<unset>"}, rows[1][:3])
		rows = columns(k.ok("", "get", "validatingadmissionpolicybindings"))
		require.Len(t, rows, 2)
		assert.Equal(t, []string{"NAME", "POLICYNAME", "PARAMREF", "AGE"}, rows[0])
		assert.Equal(t, []string{"max-replicas", "max-replicas", "<unset>"}, rows[1][:3])
	})
	t.Run("warn", func(t *testing.T) {
		k.ok("", "patch", "validatingadmissionpolicybinding", "max-replicas", "--type=merge", "-p", `{"spec":{"validationActions":["Warn"]}}`)
		stdout, stderr, err := k.run("", "create", "deployment", "big", "--image=nginx:1.27", "--replicas=7")
		require.NoError(t, err, stderr)
		assert.Equal(t, "deployment.apps/big created\n", stdout)
		assert.Equal(t, "Warning: Validation failed for ValidatingAdmissionPolicy 'max-replicas' with binding 'max-replicas': at most 5 replicas\n", stderr)
	})
	t.Run("a policy that does not compile", func(t *testing.T) {
		errOut := k.fails(`apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: broken}
spec:
  matchConstraints:
    resourceRules: [{apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [pods]}]
  validations: [{expression: "object.spec.containers.size() >"}]
`, "create", "-f", "-")
		assert.Contains(t, errOut, `The ValidatingAdmissionPolicy "broken" is invalid: spec.validations[0].expression: Invalid value: "object.spec.containers.size() >": compilation failed: ERROR: <input>:1:32: Syntax error`)
	})
	t.Run("webhooks are not called", func(t *testing.T) {
		stdout, stderr, err := k.run(`apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata: {name: hooks}
webhooks:
- name: deny.example.com
  clientConfig: {url: "https://hook.example.com/validate"}
  rules: [{apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [pods]}]
  sideEffects: None
  admissionReviewVersions: [v1]
`, "create", "-f", "-")
		require.NoError(t, err, stderr)
		assert.Equal(t, "validatingwebhookconfiguration.admissionregistration.k8s.io/hooks created\n", stdout)
		assert.Contains(t, stderr, "Warning: admission webhooks are not called here")
		rows := columns(k.ok("", "get", "validatingwebhookconfigurations"))
		assert.Equal(t, []string{"NAME", "WEBHOOKS", "AGE"}, rows[0])
		assert.Equal(t, []string{"hooks", "1"}, rows[1][:2])
	})
}
