package main

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// taskPod is a pod of the official task "Configure a Pod to Use a
// ConfigMap" (kubernetes.io/docs/tasks/configure-pod-container/configure-pod-configmap/),
// as it writes its pods: a busybox container whose lines after its image are
// container, then the spec's lines after the containers, spec.
func taskPod(name, container, spec string) string {
	return "apiVersion: v1\nkind: Pod\nmetadata:\n  name: " + name + "\nspec:\n  containers:\n" +
		"    - name: test-container\n      image: registry.k8s.io/busybox\n" + container + spec + "  restartPolicy: Never\n"
}

// The task's pods.
var (
	configMapTaskEnvPod = taskPod("dapi-test-pod", `      command: [ "/bin/sh", "-c", "env" ]
      env:
        - name: SPECIAL_LEVEL_KEY
          valueFrom:
            configMapKeyRef:
              name: special-config
              key: special.how
`, ``)
	configMapTaskEnvFromPod = taskPod("dapi-envfrom-pod", `      command: [ "/bin/sh", "-c", "env" ]
      envFrom:
      - configMapRef:
          name: special-config-2
`, ``)
	configMapTaskCommandPod = taskPod("dapi-command-pod", `      command: [ "/bin/echo", "$(SPECIAL_LEVEL_KEY) $(SPECIAL_TYPE_KEY)" ]
      env:
        - name: SPECIAL_LEVEL_KEY
          valueFrom:
            configMapKeyRef:
              name: special-config-2
              key: SPECIAL_LEVEL
        - name: SPECIAL_TYPE_KEY
          valueFrom:
            configMapKeyRef:
              name: special-config-2
              key: SPECIAL_TYPE
`, ``)
	configMapTaskVolumePod = taskPod("dapi-volume-pod", `      command: [ "/bin/sh", "-c", "ls /etc/config/" ]
      volumeMounts:
      - name: config-volume
        mountPath: /etc/config
`, `  volumes:
    - name: config-volume
      configMap:
        name: special-config-2
`)
	configMapTaskPathPod = taskPod("dapi-path-pod", `      command: [ "/bin/sh","-c","cat /etc/config/keys" ]
      volumeMounts:
      - name: config-volume
        mountPath: /etc/config
`, `  volumes:
    - name: config-volume
      configMap:
        name: special-config-2
        items:
        - key: SPECIAL_LEVEL
          path: keys
`)
	configMapTaskMissingKeyPod = taskPod("dapi-missing-pod", `      command: [ "/bin/sh", "-c", "env" ]
      env:
        - name: LOG_LEVEL
          valueFrom:
            configMapKeyRef:
              name: special-config
              key: nope
`, ``)
)

// TestKubectlConfigMapTask walks the official task "Configure a Pod to Use
// a ConfigMap" with the real kubectl: the containers' env, their commands
// with $(VAR), ls and cat of the mounted ConfigMap, read through kubectl
// logs; and a missing key holds a pod back with
// CreateContainerConfigError, as the task warns.
func TestKubectlConfigMapTask(t *testing.T) {
	p, k := kubectlOnOneNode(t)
	eventually(t, "the node is registered", func() bool { return p.Nodes().HasSynced() && p.IsReady() })
	succeeded := func(name string) {
		t.Helper()
		eventually(t, name+" completes", func() bool {
			return k.ok("", "get", "pod", name, "-o", "jsonpath={.status.phase}") == "Succeeded"
		})
	}

	k.ok("", "create", "configmap", "special-config", "--from-literal=special.how=very")
	k.ok("", "create", "configmap", "special-config-2", "--from-literal=SPECIAL_LEVEL=very", "--from-literal=SPECIAL_TYPE=charm")
	for _, pod := range []string{configMapTaskEnvPod, configMapTaskEnvFromPod, configMapTaskCommandPod, configMapTaskVolumePod, configMapTaskPathPod, configMapTaskMissingKeyPod} {
		k.ok(pod, "apply", "-f", "-")
	}

	succeeded("dapi-test-pod")
	env := k.ok("", "logs", "dapi-test-pod")
	for _, want := range []string{"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin\n", "HOSTNAME=dapi-test-pod\n",
		"SPECIAL_LEVEL_KEY=very\n", "KUBERNETES_SERVICE_HOST=", "KUBERNETES_SERVICE_PORT=", "KUBERNETES_PORT=tcp://", "HOME=/root\n"} {
		assert.Contains(t, env, want)
	}
	succeeded("dapi-envfrom-pod")
	env = k.ok("", "logs", "dapi-envfrom-pod")
	assert.Contains(t, env, "\nSPECIAL_LEVEL=very\nSPECIAL_TYPE=charm\n")
	succeeded("dapi-command-pod")
	assert.Equal(t, "very charm\n", k.ok("", "logs", "dapi-command-pod"))
	succeeded("dapi-volume-pod")
	assert.Equal(t, "SPECIAL_LEVEL\nSPECIAL_TYPE\n", k.ok("", "logs", "dapi-volume-pod"))
	succeeded("dapi-path-pod")
	assert.Equal(t, "very\n", k.ok("", "logs", "dapi-path-pod"))

	eventually(t, "the pod with a missing key waits", func() bool {
		return strings.Contains(k.ok("", "get", "pod", "dapi-missing-pod"), "CreateContainerConfigError")
	})
	assert.Contains(t, k.ok("", "describe", "pod", "dapi-missing-pod"), "Error: couldn't find key nope in ConfigMap default/special-config")
}
