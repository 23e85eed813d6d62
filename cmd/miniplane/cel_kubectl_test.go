package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const cronTabCRD = `apiVersion: apiextensions.k8s.io/v1
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
            properties:
              replicas: {type: integer}
              minReplicas: {type: integer}
`

// TestCELRulesWithKubectl applies, with the real kubectl against serve, a
// definition with a CEL rule, an object that keeps it and one that breaks
// it: the refusal is kube-apiserver's, with the rule's message as written,
// and nothing is stored.
func TestCELRulesWithKubectl(t *testing.T) {
	url, _, stop := startServe(t, "--nodes=1")
	defer stop()
	k := newKubectlSession(t, url)
	eventually(t, "ready", func() bool { return k.get("get", "--raw", "/readyz") == "ok" })

	k.ok("apply", "-f", k.file("crd.yaml", cronTabCRD))
	eventually(t, "crontabs served", func() bool { return k.get("get", "crontabs") == "No resources found in default namespace." })
	assert.Equal(t, "crontab.stable.example.com/good created\n", k.ok("apply", "-f", k.file("good.yaml",
		"apiVersion: stable.example.com/v1\nkind: CronTab\nmetadata:\n  name: good\nspec:\n  replicas: 3\n  minReplicas: 1\n")))
	out, err := k.run(nil, "apply", "-f", k.file("bad.yaml",
		"apiVersion: stable.example.com/v1\nkind: CronTab\nmetadata:\n  name: bad\nspec:\n  replicas: 1\n  minReplicas: 2\n"))
	require.Error(t, err)
	assert.Contains(t, out, `The CronTab "bad" is invalid: spec: Invalid value: "object": replicas should be greater than or equal to minReplicas.`)
	assert.Equal(t, "good", k.get("get", "crontabs", "-o", "jsonpath={.items[*].metadata.name}"))
}
