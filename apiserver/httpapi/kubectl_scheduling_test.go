package httpapi_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/miniplane/miniplane/clock"
)

// schedulingManifest has one of each kind kube-scheduler lists that
// kubectl get prints by short name.
const schedulingManifest = `apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata:
  name: fast
  annotations: {storageclass.kubernetes.io/is-default-class: "true"}
provisioner: ebs.csi.aws.com
volumeBindingMode: WaitForFirstConsumer
---
apiVersion: v1
kind: PersistentVolume
metadata: {name: pv0}
spec:
  capacity: {storage: 10Gi}
  accessModes: [ReadWriteOnce, ReadOnlyMany]
  storageClassName: fast
  hostPath: {path: /data}
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: data}
spec:
  accessModes: [ReadWriteOnce]
  storageClassName: fast
  resources: {requests: {storage: 1Gi}}
---
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {name: web}
spec:
  maxUnavailable: 1
  selector: {matchLabels: {app: web}}
---
apiVersion: apps/v1
kind: ReplicaSet
metadata: {name: web}
spec:
  replicas: 3
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers: [{name: nginx, image: "nginx:1.27"}]
---
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: db}
spec:
  replicas: 2
  serviceName: db
  selector: {matchLabels: {app: db}}
  template:
    metadata: {labels: {app: db}}
    spec:
      containers: [{name: pg, image: "postgres:17"}]
`

// TestKubectlSchedulingKinds applies the kinds kube-scheduler reads with
// the real kubectl, then checks kubectl get's columns for each, kubectl
// scale on a replica set, and a refusal that stores nothing.
func TestKubectlSchedulingKinds(t *testing.T) {
	ts := newTestServer(t, clock.Real{}, nil)
	k := newKubectl(t, ts.url)
	out := k.ok(schedulingManifest, "apply", "-f", "-")
	for _, want := range []string{"storageclass.storage.k8s.io/fast created", "persistentvolume/pv0 created", "persistentvolumeclaim/data created",
		"poddisruptionbudget.policy/web created", "replicaset.apps/web created", "statefulset.apps/db created"} {
		assert.Contains(t, out, want)
	}

	t.Run("get", func(t *testing.T) {
		rows := columns(k.ok("", "get", "pv,pvc,sc,pdb,rs,sts"))
		var tables [][][]string
		for _, r := range rows {
			if len(r) == 0 {
				continue
			}
			if r[0] == "NAME" {
				tables = append(tables, nil)
			}
			tables[len(tables)-1] = append(tables[len(tables)-1], r)
		}
		require.Len(t, tables, 6, "%v", rows)
		assert.Equal(t, []string{"NAME", "CAPACITY", "ACCESS", "MODES", "RECLAIM", "POLICY", "STATUS", "CLAIM", "STORAGECLASS", "VOLUMEATTRIBUTESCLASS", "REASON", "AGE"}, tables[0][0])
		assert.Equal(t, []string{"persistentvolume/pv0", "10Gi", "RWO,ROX", "Retain", "Pending", "fast", "<unset>"}, tables[0][1][:7])
		assert.Equal(t, []string{"NAME", "STATUS", "VOLUME", "CAPACITY", "ACCESS", "MODES", "STORAGECLASS", "VOLUMEATTRIBUTESCLASS", "AGE"}, tables[1][0])
		assert.Equal(t, []string{"persistentvolumeclaim/data", "Pending", "fast", "<unset>"}, tables[1][1][:4])
		assert.Equal(t, []string{"NAME", "PROVISIONER", "RECLAIMPOLICY", "VOLUMEBINDINGMODE", "ALLOWVOLUMEEXPANSION", "AGE"}, tables[2][0])
		assert.Equal(t, []string{"storageclass.storage.k8s.io/fast", "(default)", "ebs.csi.aws.com", "Delete", "WaitForFirstConsumer", "false"}, tables[2][1][:6])
		assert.Equal(t, []string{"NAME", "MIN", "AVAILABLE", "MAX", "UNAVAILABLE", "ALLOWED", "DISRUPTIONS", "AGE"}, tables[3][0])
		assert.Equal(t, []string{"poddisruptionbudget.policy/web", "N/A", "1", "0"}, tables[3][1][:4])
		assert.Equal(t, []string{"NAME", "DESIRED", "CURRENT", "READY", "AGE"}, tables[4][0])
		assert.Equal(t, []string{"replicaset.apps/web", "3", "0", "0"}, tables[4][1][:4])
		assert.Equal(t, []string{"NAME", "READY", "AGE"}, tables[5][0])
		assert.Equal(t, []string{"statefulset.apps/db", "0/2"}, tables[5][1][:2])
	})
	t.Run("get rs -o wide", func(t *testing.T) {
		rows := columns(k.ok("", "get", "rs", "-o", "wide"))
		require.Len(t, rows, 2)
		assert.Equal(t, []string{"NAME", "DESIRED", "CURRENT", "READY", "AGE", "CONTAINERS", "IMAGES", "SELECTOR"}, rows[0])
		assert.Equal(t, []string{"nginx", "nginx:1.27", "app=web"}, rows[1][len(rows[1])-3:])
	})
	t.Run("scale", func(t *testing.T) {
		assert.Equal(t, "replicaset.apps/web scaled\n", k.ok("", "scale", "rs", "web", "--replicas=5"))
		assert.Equal(t, "statefulset.apps/db scaled\n", k.ok("", "scale", "sts", "db", "--replicas=1"))
		assert.Equal(t, "5", k.ok("", "get", "rs", "web", "-o", "jsonpath={.spec.replicas}"))
		assert.Equal(t, "1", k.ok("", "get", "sts", "db", "-o", "jsonpath={.spec.replicas}"))
	})
	t.Run("get all", func(t *testing.T) {
		out := k.ok("", "get", "all")
		assert.Contains(t, out, "replicaset.apps/web")
		assert.Contains(t, out, "statefulset.apps/db")
	})
	t.Run("a refusal stores nothing", func(t *testing.T) {
		rev := ts.srv.Store().Rev()
		errOut := k.fails("apiVersion: v1\nkind: PersistentVolumeClaim\nmetadata: {name: nosize}\nspec: {accessModes: [ReadWriteOnce]}\n", "create", "-f", "-")
		assert.Contains(t, errOut, `PersistentVolumeClaim "nosize" is invalid: spec.resources[storage]: Required value`)
		assert.Equal(t, rev, ts.srv.Store().Rev())
	})
	t.Run("describe", func(t *testing.T) {
		out := k.ok("", "describe", "pvc", "data")
		assert.Contains(t, out, "StorageClass:")
		assert.Contains(t, out, "fast")
		assert.Contains(t, out, "Access Modes:")
	})
}
