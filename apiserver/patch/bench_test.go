package patch

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/miniplane/miniplane/api"
)

// BenchmarkStrategicMergePatchPod applies kubectl apply's image-change patch to a pod
// with two containers, ports, env and status: decode, merge, encode.
func BenchmarkStrategicMergePatchPod(b *testing.B) {
	original := []byte(`{"apiVersion":"v1","kind":"Pod","metadata":{"name":"web","namespace":"default","uid":"u","resourceVersion":"42",
	 "labels":{"app":"web","tier":"frontend"},"annotations":{"kubectl.kubernetes.io/last-applied-configuration":"{\"a\":1}\n"}},
	 "spec":{"nodeName":"n1","restartPolicy":"Always","containers":[
	  {"name":"web","image":"nginx:1.25","ports":[{"containerPort":80,"protocol":"TCP"},{"containerPort":443,"protocol":"TCP"}],
	   "env":[{"name":"A","value":"1"},{"name":"B","value":"2"},{"name":"C","value":"3"}]},
	  {"name":"log","image":"busybox","args":["tail","-f","/var/log/x"]}]},
	 "status":{"phase":"Running","podIP":"10.244.0.5","conditions":[{"type":"PodScheduled","status":"True"},{"type":"Ready","status":"True"}]}}`)
	patchBody := []byte(`{"metadata":{"annotations":{"kubectl.kubernetes.io/last-applied-configuration":"{\"a\":2}\n"}},
	 "spec":{"$setElementOrder/containers":[{"name":"web"},{"name":"log"}],
	  "containers":[{"name":"web","image":"nginx:1.27","$setElementOrder/env":[{"name":"A"},{"name":"C"}],"env":[{"name":"B","$patch":"delete"}]}]}}`)
	b.ReportAllocs()
	b.SetBytes(int64(len(original)))
	for b.Loop() {
		if _, err := Apply(StrategicMergePatchType, "Pod", original, patchBody); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkMergePatchScale is kubectl scale's patch of a Scale.
func BenchmarkMergePatchScale(b *testing.B) {
	original := []byte(`{"kind":"Scale","apiVersion":"autoscaling/v1","metadata":{"name":"frontend","namespace":"default","uid":"u","resourceVersion":"119"},"spec":{"replicas":3},"status":{"replicas":3,"selector":"app=frontend"}}`)
	patchBody := []byte(`{"spec":{"replicas":5}}`)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Apply(MergePatchType, "Scale", original, patchBody); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkServerSideApplyRC re-applies kubectl's configuration of an RC that another
// manager has scaled: field sets, the conflict check, the merge and managedFields.
func BenchmarkServerSideApplyRC(b *testing.B) {
	live, err := ServerSideApply("ReplicationController", nil, []byte(rcApplied), "kubectl", false, t0)
	if err != nil {
		b.Fatal(err)
	}
	scaled, err := Apply(MergePatchType, "", live, []byte(`{"spec":{"replicas":5}}`))
	if err != nil {
		b.Fatal(err)
	}
	if live, err = TrackUpdate("ReplicationController", live, scaled, "kubectl-scale", t1); err != nil {
		b.Fatal(err)
	}
	applied := []byte(`{"apiVersion":"v1","kind":"ReplicationController",
	 "metadata":{"name":"frontend","namespace":"default","labels":{"app":"frontend"}},
	 "spec":{"selector":{"app":"frontend"},"template":{"metadata":{"labels":{"app":"frontend"}},
	  "spec":{"containers":[{"name":"php","image":"php:8.4-apache","ports":[{"containerPort":80}]}]}}}}`)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ServerSideApply("ReplicationController", live, applied, "kubectl", false, t2); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkTrackUpdatePod records a status write of a pod.
func BenchmarkTrackUpdatePod(b *testing.B) {
	newObj, err := Apply(MergePatchType, "", []byte(podWeb), []byte(`{"status":{"podIP":"10.0.0.7","conditions":[{"type":"PodScheduled","status":"True"},{"type":"Ready","status":"True"}]}}`))
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := TrackSubresourceUpdate("Pod", "status", []byte(podWeb), newObj, "nodesim", t1); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkTrackCreatePod is the managedFields of a stock client's pod create, from the
// typed pod ("typed") and through its JSON ("json", what the HTTP front did before).
func BenchmarkTrackCreatePod(b *testing.B) {
	pod := &api.Pod{
		TypeMeta: api.TypeMeta{APIVersion: "v1", Kind: "Pod"},
		Metadata: api.ObjectMeta{Namespace: "ns", Name: "pod-1", Labels: map[string]string{"app": "web"}},
		Spec: api.PodSpec{Containers: []api.Container{{Name: "app", Image: "nginx:1.27",
			Ports: []api.ContainerPort{{ContainerPort: 80}}}}},
	}
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	b.Run("typed-client-go", func(b *testing.B) {
		// The pod as client-go's JSON sends it: empty resources and status.
		var sent api.Pod
		if err := json.Unmarshal([]byte(`{"kind":"Pod","apiVersion":"v1","metadata":{"name":"bench-00001","creationTimestamp":null,
		 "labels":{"app":"createbench"}},"spec":{"containers":[{"name":"pause","image":"registry.k8s.io/pause:3.10",
		 "ports":[{"containerPort":8080,"protocol":"TCP"}],"resources":{}}]},"status":{}}`), &sent); err != nil {
			b.Fatal(err)
		}
		var tr FieldTracker
		b.ReportAllocs()
		for b.Loop() {
			if _, err := tr.TrackCreate("Pod", &sent, "createbench", now); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("typed", func(b *testing.B) {
		var tr FieldTracker
		b.ReportAllocs()
		for b.Loop() {
			if _, err := tr.TrackCreate("Pod", pod, "client-go", now); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("json", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			raw, err := json.Marshal(pod)
			if err != nil {
				b.Fatal(err)
			}
			if _, err := TrackCreate("Pod", raw, "client-go", now); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkTrackUpdateTypedPod is the managedFields of a PUT that changes a pod's image,
// from the typed objects ("typed") and through their JSON ("json", as before).
func BenchmarkTrackUpdateTypedPod(b *testing.B) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	old := &api.Pod{
		TypeMeta: api.TypeMeta{APIVersion: "v1", Kind: "Pod"},
		Metadata: api.ObjectMeta{Namespace: "ns", Name: "pod-1", Labels: map[string]string{"app": "web"}},
		Spec: api.PodSpec{Containers: []api.Container{{Name: "app", Image: "nginx:1.27",
			Ports: []api.ContainerPort{{ContainerPort: 80}}}}},
	}
	var tr FieldTracker
	entries, err := tr.TrackCreate("Pod", old, "client-go", now)
	if err != nil {
		b.Fatal(err)
	}
	old.Metadata.ManagedFields = entries
	obj := old.DeepCopy()
	obj.Spec.Containers[0].Image = "nginx:1.28"
	b.Run("typed", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := tr.TrackUpdate("Pod", old, obj, "kubectl", now); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("json", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			oldJSON, _ := json.Marshal(old)
			newJSON, _ := json.Marshal(obj)
			tracked, err := TrackUpdate("Pod", oldJSON, newJSON, "kubectl", now)
			if err != nil {
				b.Fatal(err)
			}
			var out api.Pod
			if err := json.Unmarshal(tracked, &out); err != nil {
				b.Fatal(err)
			}
		}
	})
}
