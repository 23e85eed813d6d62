package main

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const agentDaemonSet = `apiVersion: apps/v1
kind: DaemonSet
metadata:
  name: agent
spec:
  selector:
    matchLabels: {app: agent}
  template:
    metadata:
      labels: {app: agent}
    spec:
      containers:
      - name: agent
        image: fluentd:1
`

const onFailureDaemonSet = `apiVersion: apps/v1
kind: DaemonSet
metadata:
  name: bad
spec:
  selector:
    matchLabels: {app: bad}
  template:
    metadata:
      labels: {app: bad}
    spec:
      restartPolicy: OnFailure
      containers:
      - name: c
        image: nginx
`

// TestDaemonSetWithKubectl runs a DaemonSet's life with the real kubectl
// against `miniplane serve`: apply, get (kubectl's columns, ds, all),
// rollout status, set image, rollout history (and one revision's
// template), rollout undo (kubectl reads the ControllerRevisions and
// patches the template back from one), describe, a refused manifest, and a
// cascading delete that takes the pods and revisions.
func TestDaemonSetWithKubectl(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a live control plane and kubectl")
	}
	url, _, stop := startServe(t, "--nodes=3")
	k := newKubectlSession(t, url)
	eventually(t, "ready", func() bool { return k.get("get", "--raw", "/readyz") == "ok" })

	rolledOut := func() {
		t.Helper()
		out := k.ok("rollout", "status", "ds/agent", "--timeout=60s")
		assert.Contains(t, out, `daemon set "agent" successfully rolled out`)
	}
	image := func() string {
		return k.get("get", "ds", "agent", "-o", "jsonpath={.spec.template.spec.containers[0].image}")
	}
	podImages := func() string {
		return k.get("get", "pods", "-l", "app=agent", "-o", `jsonpath={range .items[*]}{.spec.nodeName}={.spec.containers[0].image} {end}`)
	}
	revisions := func() []string {
		var out []string
		for _, m := range revisionLine.FindAllStringSubmatch(k.ok("rollout", "history", "ds/agent"), -1) {
			out = append(out, m[1])
		}
		return out
	}

	out := k.ok("apply", "-f", k.file("agent.yaml", agentDaemonSet))
	assert.Contains(t, out, "daemonset.apps/agent created")
	rolledOut()
	out = k.ok("get", "ds")
	assert.Regexp(t, `NAME\s+DESIRED\s+CURRENT\s+READY\s+UP-TO-DATE\s+AVAILABLE\s+NODE SELECTOR\s+AGE`, out)
	assert.Regexp(t, `agent\s+3\s+3\s+3\s+3\s+3\s+<none>`, out)
	assert.Contains(t, k.ok("get", "all"), "daemonset.apps/agent")
	assert.ElementsMatch(t, []string{"node-0=fluentd:1", "node-1=fluentd:1", "node-2=fluentd:1"}, strings.Fields(podImages()), "one pod per node")

	out = k.ok("set", "image", "ds/agent", "agent=fluentd:2")
	assert.Contains(t, out, "daemonset.apps/agent image updated")
	rolledOut()
	assert.ElementsMatch(t, []string{"node-0=fluentd:2", "node-1=fluentd:2", "node-2=fluentd:2"}, strings.Fields(podImages()))
	assert.Equal(t, []string{"1", "2"}, revisions())
	out = k.ok("rollout", "history", "ds/agent", "--revision=1")
	assert.Contains(t, out, "fluentd:1", out)
	out = k.ok("get", "controllerrevisions")
	assert.Regexp(t, `agent-[a-z0-9]+\s+daemonset.apps/agent\s+1`, out)
	assert.Regexp(t, `agent-[a-z0-9]+\s+daemonset.apps/agent\s+2`, out)

	out = k.ok("rollout", "undo", "ds/agent")
	assert.Contains(t, out, "daemonset.apps/agent rolled back")
	rolledOut()
	assert.Equal(t, "fluentd:1", image())
	assert.ElementsMatch(t, []string{"node-0=fluentd:1", "node-1=fluentd:1", "node-2=fluentd:1"}, strings.Fields(podImages()))
	eventually(t, "the first revision is renumbered 3", func() bool {
		return strings.Join(revisions(), ",") == "2,3"
	})
	out = k.ok("rollout", "undo", "ds/agent", "--to-revision=3")
	assert.Contains(t, out, "skipped rollback (current template already matches revision 3)")

	out = k.ok("describe", "ds", "agent")
	for _, want := range []string{"Desired Number of Nodes Scheduled: 3", "Current Number of Nodes Scheduled: 3",
		"Pods Status:  3 Running / 0 Waiting / 0 Succeeded / 0 Failed", "SuccessfulCreate", "daemonset-controller"} {
		assert.Contains(t, out, want)
	}

	out, err := k.run(nil, "apply", "-f", k.file("bad.yaml", onFailureDaemonSet))
	require.Error(t, err)
	assert.Contains(t, out, `The DaemonSet "bad" is invalid: spec.template.spec.restartPolicy: Unsupported value: "OnFailure": supported values: "Always"`)
	assert.Empty(t, k.get("get", "ds", "bad", "--ignore-not-found", "-o", "name"), "nothing stored")

	out = k.ok("delete", "ds", "agent")
	assert.Contains(t, out, `daemonset.apps "agent" deleted`)
	eventually(t, "the pods and revisions go with it", func() bool {
		return k.get("get", "pods,controllerrevisions", "-l", "app=agent", "-o", "name") == ""
	})
	require.NoError(t, stop())
}
