package main

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const webStatefulSet = `apiVersion: apps/v1
kind: StatefulSet
metadata:
  name: web
spec:
  replicas: 2
  serviceName: web
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      containers:
      - name: nginx
        image: nginx:1
  volumeClaimTemplates:
  - metadata:
      name: www
    spec:
      accessModes: [ReadWriteOnce]
      resources:
        requests:
          storage: 1Gi
`

// TestStatefulSetWithKubectl runs a StatefulSet's life with the real
// kubectl against `miniplane serve`: apply (no warning that nothing acts),
// rollout status, pods web-0 and web-1 with their claims (provisioned
// and Bound by the persistentvolume-binder) and hostnames
// (their order is controllers/statefulset's and the sim's to check), set image,
// rollout history, scale, rollout undo, and a cascading delete that takes
// the pods and revisions (the claims stay, as whenDeleted Retain says);
// then a pod on a claim of no class stays Pending with the scheduler's
// message, and its claim with FailedBinding.
func TestStatefulSetWithKubectl(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a live control plane and kubectl")
	}
	url, _, stop := startServe(t, "--nodes=3")
	k := newKubectlSession(t, url)
	eventually(t, "ready", func() bool { return k.get("get", "--raw", "/readyz") == "ok" })

	rolledOut := func() string {
		t.Helper()
		return k.ok("rollout", "status", "sts/web", "--timeout=60s")
	}
	podImages := func() string {
		return k.get("get", "pods", "-l", "app=web", "-o", `jsonpath={range .items[*]}{.metadata.name}={.spec.containers[0].image} {end}`)
	}
	revisions := func() []string {
		var out []string
		for _, m := range revisionLine.FindAllStringSubmatch(k.ok("rollout", "history", "sts/web"), -1) {
			out = append(out, m[1])
		}
		return out
	}

	out := k.ok("apply", "-f", k.file("web.yaml", webStatefulSet))
	assert.Contains(t, out, "statefulset.apps/web created")
	assert.NotContains(t, out, "nothing acts")
	out = rolledOut()
	assert.Contains(t, out, "partitioned roll out complete: 2 new pods have been updated...")
	out = k.ok("get", "sts", "web")
	assert.Regexp(t, `web\s+2/2`, out)
	assert.Equal(t, "web-0=nginx:1 web-1=nginx:1", strings.TrimSpace(podImages()))
	assert.Equal(t, "web-1", k.get("get", "pod", "web-1", "-o", "jsonpath={.spec.hostname}"))
	assert.Equal(t, "www-web-0=Bound=standard www-web-1=Bound=standard",
		k.get("get", "pvc", "-o", `jsonpath={range .items[*]}{.metadata.name}={.status.phase}={.spec.storageClassName} {end}`), "provisioned and bound")
	out = k.ok("get", "pv")
	assert.Regexp(t, `pvc-[0-9a-f-]+\s+1Gi\s+RWO\s+Delete\s+Bound\s+default/www-web-0\s+standard`, out)

	out = k.ok("set", "image", "sts/web", "nginx=nginx:2")
	assert.Contains(t, out, "statefulset.apps/web image updated")
	rolledOut()
	assert.Equal(t, "web-0=nginx:2 web-1=nginx:2", strings.TrimSpace(podImages()))
	assert.Equal(t, []string{"1", "2"}, revisions())

	out = k.ok("scale", "sts/web", "--replicas=3")
	assert.Contains(t, out, "statefulset.apps/web scaled")
	rolledOut()
	assert.Equal(t, "web-0=nginx:2 web-1=nginx:2 web-2=nginx:2", strings.TrimSpace(podImages()))

	out = k.ok("rollout", "undo", "sts/web")
	assert.Contains(t, out, "statefulset.apps/web rolled back")
	rolledOut()
	assert.Equal(t, "web-0=nginx:1 web-1=nginx:1 web-2=nginx:1", strings.TrimSpace(podImages()))
	eventually(t, "the first revision is renumbered 3", func() bool {
		return strings.Join(revisions(), ",") == "2,3"
	})

	out = k.ok("describe", "sts", "web")
	for _, want := range []string{"Replicas:           3 desired | 3 total", "SuccessfulCreate", "create Claim www-web-2 Pod web-2 in StatefulSet web success"} {
		assert.Contains(t, out, want)
	}

	out = k.ok("delete", "sts", "web")
	assert.Contains(t, out, `statefulset.apps "web" deleted`)
	eventually(t, "the pods and revisions go with it", func() bool {
		return k.get("get", "pods,controllerrevisions", "-l", "app=web", "-o", "name") == ""
	})
	assert.Equal(t, "www-web-0 www-web-1 www-web-2", k.get("get", "pvc", "-o", `jsonpath={range .items[*]}{.metadata.name} {end}`), "claims retained")

	k.ok("apply", "-f", k.file("bare.yaml", bareClaimAndPod))
	eventually(t, "the pod waits for its claim", func() bool {
		return strings.Contains(k.get("get", "pod", "waiter", "-o", "jsonpath={.status.conditions[0].message}"),
			"0/3 nodes are available: pod has unbound immediate PersistentVolumeClaims.")
	})
	assert.Equal(t, "Pending", k.get("get", "pvc", "bare", "-o", "jsonpath={.status.phase}"))
	out = k.ok("describe", "pvc", "bare")
	assert.Contains(t, out, "no persistent volumes available for this claim and no storage class is set")
	require.NoError(t, stop())
}

// bareClaimAndPod is a claim of no class, which nothing provisions, and a
// pod that mounts it.
const bareClaimAndPod = `apiVersion: v1
kind: PersistentVolumeClaim
metadata:
  name: bare
spec:
  storageClassName: ""
  accessModes: [ReadWriteOnce]
  resources:
    requests:
      storage: 1Gi
---
apiVersion: v1
kind: Pod
metadata:
  name: waiter
spec:
  containers:
  - name: c
    image: nginx
  volumes:
  - name: data
    persistentVolumeClaim:
      claimName: bare
`
