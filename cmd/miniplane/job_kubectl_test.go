package main

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

const failingJob = `apiVersion: batch/v1
kind: Job
metadata:
  name: fails
spec:
  backoffLimit: 2
  template:
    spec:
      restartPolicy: Never
      containers:
      - name: main
        image: busybox
        command: ["sh", "-c", "exit 1"]
`

const shortLivedJob = `apiVersion: batch/v1
kind: Job
metadata:
  name: short-lived
spec:
  ttlSecondsAfterFinished: 2
  template:
    spec:
      restartPolicy: Never
      containers:
      - name: main
        image: busybox
        command: ["echo", "done"]
`

// TestJobWithKubectl runs Jobs with the real kubectl against serve: one that
// succeeds (wait, logs, get), one that fails past its backoff limit (with
// the failure back-off: 10s then 20s), a delete that takes the pods, and
// one deleted with its pod by the ttl-after-finished controller once done.
func TestJobWithKubectl(t *testing.T) {
	if testing.Short() {
		t.Skip("runs serve and kubectl for about a minute")
	}
	url, _, stop := startServe(t, "--nodes=2")
	defer stop()
	k := newKubectlSession(t, url)
	eventually(t, "ready", func() bool { return k.get("get", "--raw", "/readyz") == "ok" })

	k.ok("create", "job", "hello", "--image=busybox", "--", "echo", "hello")
	assert.Contains(t, k.ok("wait", "--for=condition=complete", "job/hello", "--timeout=60s"), "job.batch/hello condition met")
	assert.Equal(t, "hello\n", k.ok("logs", "job/hello"))
	out := k.ok("get", "jobs")
	assert.Regexp(t, `hello\s+Complete\s+1/1\s+\S+\s+\S+`, out)
	conds := k.ok("get", "job/hello", "-o", `jsonpath={range .status.conditions[*]}{.type}={.status} {end}`)
	assert.Equal(t, "SuccessCriteriaMet=True Complete=True", strings.TrimSpace(conds))
	pods := k.ok("get", "pods", "-l", "job-name=hello", "-o", `jsonpath={range .items[*]}{.status.phase} {.metadata.finalizers}{"\n"}{end}`)
	assert.Equal(t, "Succeeded \n", pods, "one pod, its tracking finalizer removed once counted")

	k.ok("create", "-f", k.file("short.yaml", shortLivedJob))
	assert.Contains(t, k.ok("wait", "--for=delete", "job/short-lived", "--timeout=60s"), "job.batch/short-lived condition met",
		"the ttl-after-finished controller deletes it 2s after it completed")
	eventually(t, "short-lived's pod deleted with it", func() bool {
		return k.get("get", "pods", "-l", "job-name=short-lived", "-o", "name") == ""
	})

	k.ok("create", "-f", k.file("fails.yaml", failingJob))
	assert.Contains(t, k.ok("wait", "--for=condition=failed", "job/fails", "--timeout=90s"), "condition met")
	reason := k.ok("get", "job/fails", "-o", `jsonpath={.status.conditions[?(@.type=="Failed")].reason} {.status.failed}`)
	assert.Equal(t, "BackoffLimitExceeded 3", reason)
	assert.Regexp(t, `fails\s+Failed\s+0/1`, k.ok("get", "jobs"))
	assert.Contains(t, k.ok("get", "events", "--field-selector", "involvedObject.name=fails"), "Job has reached the specified backoff limit")

	k.ok("delete", "job", "hello")
	eventually(t, "hello's pod deleted with it", func() bool {
		return k.get("get", "pods", "-l", "job-name=hello", "-o", "name") == ""
	})
	k.ok("delete", "job", "fails", "--cascade=foreground")
	eventually(t, "fails' pods deleted before it", func() bool {
		return k.get("get", "pods", "-l", "job-name=fails", "-o", "name") == "" && k.get("get", "jobs", "-o", "name") == ""
	})
}
