package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// failOnceJob is Kubernetes' e2e Job fixture "failOnce" restarted in place:
// its first run leaves a marker in the pod's emptyDir and fails, the next
// finds it and succeeds.
const failOnceJob = `apiVersion: batch/v1
kind: Job
metadata:
  name: fail-once
spec:
  template:
    spec:
      restartPolicy: OnFailure
      volumes:
      - name: data
        emptyDir: {}
      containers:
      - name: c
        image: busybox
        volumeMounts:
        - name: data
          mountPath: /data
        command: ["/bin/sh", "-c"]
        args: ["if [[ -r /data/foo ]]; then exit 0; else touch /data/foo; exit 1; fi"]
`

const sysctlPod = `apiVersion: v1
kind: Pod
metadata:
  name: sysctl
spec:
  restartPolicy: Never
  securityContext:
    sysctls:
    - name: kernel/shm_rmid_forced
      value: "1"
  containers:
  - name: c
    image: busybox
    command: ["/bin/sysctl", "kernel.shm_rmid_forced"]
`

const badSysctlPod = `apiVersion: v1
kind: Pod
metadata:
  name: bad-sysctl
spec:
  securityContext:
    sysctls:
    - {name: foo-, value: bar}
    - {name: kernel.msgmax, value: "1"}
  containers:
  - name: c
    image: busybox
`

// TestKubeletModelWithKubectl: with the real kubectl against serve, the
// failOnce Job completes after one restart in place (its emptyDir kept), a
// pod reads the sysctl it set, one with a malformed sysctl name is refused
// by the API, and one with an unsafe sysctl is rejected by its kubelet.
func TestKubeletModelWithKubectl(t *testing.T) {
	if testing.Short() {
		t.Skip("runs serve and kubectl")
	}
	url, _, stop := startServe(t, "--nodes=1")
	defer stop()
	k := newKubectlSession(t, url)
	eventually(t, "ready", func() bool { return k.get("get", "--raw", "/readyz") == "ok" })

	k.ok("create", "-f", k.file("job.yaml", failOnceJob))
	assert.Contains(t, k.ok("wait", "--for=condition=complete", "job/fail-once", "--timeout=60s"), "condition met")
	assert.Equal(t, "1", k.get("get", "pods", "-l", "job-name=fail-once", "-o", "jsonpath={.items[0].status.containerStatuses[0].restartCount}"))

	k.ok("create", "-f", k.file("sysctl.yaml", sysctlPod))
	k.ok("wait", "--for=jsonpath={.status.phase}=Succeeded", "pod/sysctl", "--timeout=60s")
	assert.Equal(t, "kernel.shm_rmid_forced = 1\n", k.ok("logs", "sysctl"))

	out, err := k.run(nil, "create", "-f", k.file("bad.yaml", badSysctlPod))
	require.Error(t, err)
	assert.Contains(t, out, `spec.securityContext.sysctls[0].name: Invalid value: "foo-": must have at most 253 characters and match regex`)
	assert.NotContains(t, out, "kernel.msgmax")

	k.ok("run", "unsafe", "--image=busybox", "--restart=Never", `--overrides={"spec":{"securityContext":{"sysctls":[{"name":"kernel.msgmax","value":"1"}]}}}`)
	k.ok("wait", "--for=jsonpath={.status.reason}=SysctlForbidden", "pod/unsafe", "--timeout=60s")
	assert.Equal(t, `Failed Pod was rejected: forbidden sysctl: "kernel.msgmax" not allowlisted`,
		k.get("get", "pod/unsafe", "-o", "jsonpath={.status.phase} {.status.message}"))
}
