package httpapi_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/miniplane/miniplane/clock"
)

// celCRDYAML is a definition whose schema carries CEL validation rules: one
// on spec with a message, a transition rule, and one on list items.
const celCRDYAML = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: crontabs.stable.example.com
spec:
  group: stable.example.com
  scope: Namespaced
  names: {plural: crontabs, singular: crontab, kind: CronTab}
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            x-kubernetes-validations:
            - rule: "self.minReplicas <= self.replicas"
              message: "replicas should be greater than or equal to minReplicas."
            - rule: "self.image == oldSelf.image"
              message: "image is immutable"
            properties:
              image: {type: string, maxLength: 64}
              replicas: {type: integer}
              minReplicas: {type: integer}
              hosts:
                type: array
                maxItems: 8
                items:
                  type: string
                  maxLength: 253
                  x-kubernetes-validations:
                  - rule: "self.endsWith('.example.com')"
                    messageExpression: "'host ' + self + ' is not under example.com'"
`

func cronTab(name, spec string) string {
	return "apiVersion: stable.example.com/v1\nkind: CronTab\nmetadata:\n  name: " + name + "\nspec:\n" + spec
}

// TestKubectlCELRules applies, with the real kubectl, a definition with CEL
// rules and objects that break them: each refusal is kube-apiserver's, with
// the rule's message as written, and a rule that does not compile refuses
// the definition.
func TestKubectlCELRules(t *testing.T) {
	ts := newTestServer(t, clock.Real{}, nil)
	k := newKubectl(t, ts.url)

	assert.Equal(t, "customresourcedefinition.apiextensions.k8s.io/crontabs.stable.example.com created\n",
		k.ok(celCRDYAML, "apply", "-f", "-"))
	assert.Equal(t, "crontab.stable.example.com/ok created\n",
		k.ok(cronTab("ok", "  image: nginx\n  replicas: 3\n  minReplicas: 1\n  hosts: [a.example.com]\n"), "apply", "-f", "-"))

	assert.Contains(t, k.fails(cronTab("low", "  image: nginx\n  replicas: 1\n  minReplicas: 2\n"), "apply", "-f", "-"),
		`The CronTab "low" is invalid: spec: Invalid value: "object": replicas should be greater than or equal to minReplicas.`)
	assert.Contains(t, k.fails(cronTab("host", "  image: nginx\n  replicas: 1\n  minReplicas: 1\n  hosts: [a.example.com, b.example.org]\n"), "apply", "-f", "-"),
		`The CronTab "host" is invalid: spec.hosts[1]: Invalid value: "string": host b.example.org is not under example.com`)
	assert.Contains(t, k.fails(cronTab("ok", "  image: redis\n  replicas: 3\n  minReplicas: 1\n"), "apply", "-f", "-"),
		`The CronTab "ok" is invalid: spec: Invalid value: "object": image is immutable`)
	assert.Equal(t, "crontab.stable.example.com/ok configured\n",
		k.ok(cronTab("ok", "  image: nginx\n  replicas: 5\n  minReplicas: 1\n"), "apply", "-f", "-"))

	bad := strings.Replace(celCRDYAML, `rule: "self.minReplicas <= self.replicas"`, `rule: "self.minReplica <= self.replicas"`, 1)
	bad = strings.ReplaceAll(bad, "crontabs", "badtabs")
	bad = strings.ReplaceAll(bad, "CronTab", "BadTab")
	bad = strings.ReplaceAll(bad, "crontab", "badtab")
	out := k.fails(bad, "apply", "-f", "-")
	assert.Contains(t, out, `The CustomResourceDefinition "badtabs.stable.example.com" is invalid: `+
		`spec.validation.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].rule: Invalid value: `+
		`apiextensions.ValidationRule{Rule:"self.minReplica <= self.replicas", Message:"replicas should be greater than or equal to minReplicas.", MessageExpression:"", Reason:(*apiextensions.FieldValueErrorReason)(nil), FieldPath:"", OptionalOldSelf:(*bool)(nil)}: `+
		`compilation failed: ERROR: <input>:1:5: undefined field 'minReplica'`)
	assert.Contains(t, k.fails("", "get", "crd", "badtabs.stable.example.com"), "NotFound")
}
