package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestCronJobWithKubectl is a CronJob's first steps with the real kubectl
// against `miniplane serve`: create one, see it with its short name and
// kubectl's columns, read it back with its defaults, run it by hand
// (kubectl reads the cron job and creates a Job from its template),
// suspend it, and have a bad schedule refused with Kubernetes' message.
// serve runs on the real clock, so the test does not wait for a minute to
// pass: the scheduled runs are the simulator's test (sim).
func TestCronJobWithKubectl(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a live control plane and kubectl")
	}
	url, _, _ := startServe(t)
	k := newKubectlSession(t, url)
	eventually(t, "ready", func() bool { return k.get("get", "--raw", "/readyz") == "ok" })

	out := k.ok("create", "cronjob", "hello", "--image=busybox", "--schedule=*/1 * * * *", "--", "echo", "hello")
	assert.Contains(t, out, "cronjob.batch/hello created")

	out = k.ok("get", "cj")
	assert.Regexp(t, `NAME\s+SCHEDULE\s+TIMEZONE\s+SUSPEND\s+ACTIVE\s+LAST SCHEDULE\s+AGE`, out)
	assert.Regexp(t, `hello\s+\*/1 \* \* \* \*\s+<none>\s+False\s+0\s+<none>\s+\d+s`, out)
	out = k.ok("get", "cronjobs", "-o", "wide")
	assert.Regexp(t, `CONTAINERS\s+IMAGES\s+SELECTOR`, out)
	assert.Regexp(t, `\d+s\s+hello\s+busybox\s+<none>`, out)
	out = k.ok("get", "all")
	assert.Contains(t, out, "cronjob.batch/hello")

	out = k.ok("get", "cj", "hello", "-o", "jsonpath={.spec.concurrencyPolicy} {.spec.suspend} {.spec.successfulJobsHistoryLimit} {.spec.failedJobsHistoryLimit} {.spec.jobTemplate.spec.template.spec.restartPolicy}")
	assert.Equal(t, "Allow false 3 1 OnFailure", out)

	out = k.ok("create", "job", "manual", "--from=cronjob/hello")
	assert.Contains(t, out, "job.batch/manual created")
	out = k.ok("get", "job", "manual", "-o", `jsonpath={.metadata.annotations.cronjob\.kubernetes\.io/instantiate} {.metadata.ownerReferences[0].kind}/{.metadata.ownerReferences[0].name} {.spec.template.spec.containers[0].command}`)
	assert.Equal(t, `manual CronJob/hello ["echo","hello"]`, out)

	out = k.ok("patch", "cronjob", "hello", "-p", `{"spec":{"suspend":true}}`)
	assert.Contains(t, out, "cronjob.batch/hello patched")
	assert.Regexp(t, `hello\s+\*/1 \* \* \* \*\s+<none>\s+True`, k.ok("get", "cj", "hello"))

	out = k.ok("describe", "cronjob", "hello")
	assert.Regexp(t, `Schedule:\s+\*/1 \* \* \* \*`, out)
	assert.Regexp(t, `Concurrency Policy:\s+Allow`, out)

	out, err := k.run(nil, "create", "cronjob", "bad", "--image=busybox", "--schedule=61 * * * *")
	require.Error(t, err)
	assert.Contains(t, out, `spec.schedule: Invalid value: "61 * * * *": end of range (61) above maximum (59): 61`)
	out, err = k.run(nil, "create", "cronjob", "bad", "--image=busybox", "--schedule=TZ=UTC * * * * *")
	require.Error(t, err)
	assert.Contains(t, out, "cannot use TZ or CRON_TZ in schedule, use timeZone field instead")
	_, err = k.run(nil, "get", "cj", "bad")
	assert.Error(t, err, "a refused cron job is not stored")

	out = k.ok("delete", "cronjob", "hello")
	assert.Contains(t, out, `cronjob.batch "hello" deleted`)
}
