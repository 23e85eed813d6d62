package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestPriorityClassesWithKubectl drives PriorityClasses and the Priority
// admission step with the real kubectl against `miniplane serve`: the two
// system classes are there from the start, a class is created and listed
// with kube-apiserver's columns, a pod naming it gets its priority, a pod
// naming a missing class and a second default class are refused with
// kube-apiserver's messages and nothing stored.
func TestPriorityClassesWithKubectl(t *testing.T) {
	k := readyServe(t)

	out := k.ok("get", "pc")
	assert.Regexp(t, `NAME\s+VALUE\s+GLOBAL-DEFAULT\s+AGE`, out)
	assert.Regexp(t, `system-cluster-critical\s+2000000000\s+false`, out)
	assert.Regexp(t, `system-node-critical\s+2000001000\s+false`, out)

	assert.Contains(t, k.ok("create", "priorityclass", "high", "--value=1000", "--description=for the web tier"),
		"priorityclass.scheduling.k8s.io/high created")
	assert.Regexp(t, `high\s+1000\s+false\s+\S+\s+PreemptLowerPriority`, k.ok("get", "pc", "high", "-o", "wide"))
	assert.Regexp(t, `Description:\s+for the web tier`, k.ok("describe", "pc", "high"))

	k.ok("create", "-f", k.file("pod.yaml", `apiVersion: v1
kind: Pod
metadata: {name: web}
spec:
  priorityClassName: high
  containers: [{name: web, image: nginx}]
`))
	assert.Equal(t, "1000 PreemptLowerPriority", k.get("get", "pod", "web", "-o", "jsonpath={.spec.priority} {.spec.preemptionPolicy}"))
	k.ok("run", "plain", "--image=nginx")
	assert.Equal(t, "0", k.get("get", "pod", "plain", "-o", "jsonpath={.spec.priority}"), "no class and no default: priority 0")

	out, err := k.run(nil, "create", "-f", k.file("missing.yaml", `apiVersion: v1
kind: Pod
metadata: {name: lost}
spec:
  priorityClassName: missing
  containers: [{name: web, image: nginx}]
`))
	require.Error(t, err)
	assert.Contains(t, out, `pods "lost" is forbidden: no PriorityClass with name missing was found`)
	_, err = k.run(nil, "get", "pod", "lost")
	assert.Error(t, err, "a refused pod is not stored")

	assert.Contains(t, k.ok("create", "priorityclass", "normal", "--value=10", "--global-default"), "created")
	out, err = k.run(nil, "create", "priorityclass", "other", "--value=20", "--global-default")
	require.Error(t, err)
	assert.Contains(t, out, `priorityclasses.scheduling.k8s.io "other" is forbidden: PriorityClass normal is already marked as default. Only one default can exist`)
	k.ok("run", "defaulted", "--image=nginx")
	assert.Equal(t, "normal 10", k.get("get", "pod", "defaulted", "-o", "jsonpath={.spec.priorityClassName} {.spec.priority}"))

	out, err = k.run(nil, "create", "priorityclass", "system-mine", "--value=5")
	require.Error(t, err)
	assert.Contains(t, out, `metadata.name: Forbidden: priority class names with 'system-' prefix are reserved for system use only. error: system-mine is not a known system priority class`)
	out, err = k.run(nil, "patch", "pc", "high", "-p", `{"value":2000}`)
	require.Error(t, err)
	assert.Contains(t, out, `value: Forbidden: may not be changed in an update.`)
}

// TestPodTemplatesWithKubectl stores a PodTemplate with the real kubectl
// and reads it back with kube-apiserver's columns, patches it, describes it,
// and is refused an invalid one with nothing stored.
func TestPodTemplatesWithKubectl(t *testing.T) {
	k := readyServe(t)

	assert.Contains(t, k.ok("create", "-f", k.file("pt.yaml", `apiVersion: v1
kind: PodTemplate
metadata: {name: web}
template:
  metadata: {labels: {app: web, tier: front}}
  spec:
    containers: [{name: nginx, image: "nginx:1.27"}]
`)), "podtemplate/web created")
	out := k.ok("get", "podtemplates")
	assert.Regexp(t, `NAME\s+CONTAINERS\s+IMAGES\s+POD LABELS\n`, out)
	assert.Regexp(t, `web\s+nginx\s+nginx:1\.27\s+app=web,tier=front`, out)
	assert.Equal(t, "Always", k.get("get", "podtemplate", "web", "-o", "jsonpath={.template.spec.restartPolicy}"), "the pod spec is defaulted")

	k.ok("patch", "podtemplate", "web", "-p", `{"template":{"spec":{"containers":[{"name":"sidecar","image":"busybox"}]}}}`)
	assert.Equal(t, "sidecar nginx", k.get("get", "podtemplate", "web", "-o", "jsonpath={.template.spec.containers[*].name}"),
		"a strategic merge patch merges containers by name")
	assert.Regexp(t, `Name:\s+sidecar`, k.ok("describe", "podtemplate", "web"), "kubectl describes a template generically")

	out, err := k.run(nil, "create", "-f", k.file("bad.yaml", `apiVersion: v1
kind: PodTemplate
metadata: {name: bad}
template:
  spec:
    containers: [{name: nginx}]
`))
	require.Error(t, err)
	assert.Contains(t, out, `PodTemplate "bad" is invalid: template.spec.containers[0].image: Required value`)
	_, err = k.run(nil, "get", "podtemplate", "bad")
	assert.Error(t, err, "a refused template is not stored")
	assert.Contains(t, k.ok("delete", "podtemplates", "--all"), `podtemplate "web" deleted`)
}

// TestLimitRangesWithKubectl creates a LimitRange with the real kubectl,
// sees a pod without resources given its defaults by the LimitRanger step,
// and has a pod above its max refused with kube-apiserver's message and
// nothing stored.
func TestLimitRangesWithKubectl(t *testing.T) {
	k := readyServe(t)

	assert.Contains(t, k.ok("create", "-f", k.file("lr.yaml", `apiVersion: v1
kind: LimitRange
metadata: {name: limits}
spec:
  limits:
  - type: Container
    max: {cpu: "2"}
    default: {cpu: 500m, memory: 256Mi}
    defaultRequest: {cpu: 250m, memory: 128Mi}
`)), "limitrange/limits created")
	assert.Regexp(t, `NAME\s+CREATED AT\nlimits\s+\d{4}-`, k.ok("get", "limits"))
	assert.Regexp(t, `Container\s+cpu\s+-\s+2\s+250m\s+500m`, k.ok("describe", "limitrange", "limits"))

	k.ok("run", "web", "--image=nginx")
	assert.Equal(t, `{"limits":{"cpu":"500m","memory":"256Mi"},"requests":{"cpu":"250m","memory":"128Mi"}}`,
		k.get("get", "pod", "web", "-o", "jsonpath={.spec.containers[0].resources}"))

	out, err := k.run(nil, "run", "big", "--image=nginx", `--overrides={"spec":{"containers":[{"name":"big","image":"nginx","resources":{"limits":{"cpu":"3"}}}]}}`)
	require.Error(t, err)
	assert.Contains(t, out, `pods "big" is forbidden: maximum cpu usage per Container is 2, but limit is 3`)
	_, err = k.run(nil, "get", "pod", "big")
	assert.Error(t, err, "a refused pod is not stored")
}

// readyServe starts `miniplane serve` and returns a kubectl session on it
// once it is ready; it skips the test in -short mode.
func readyServe(t *testing.T) *kubectlSession {
	t.Helper()
	if testing.Short() {
		t.Skip("runs a live control plane and kubectl")
	}
	url, _, _ := startServe(t)
	k := newKubectlSession(t, url)
	eventually(t, "ready", func() bool { return k.get("get", "--raw", "/readyz") == "ok" })
	return k
}
