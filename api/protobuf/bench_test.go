package protobuf

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/miniplane/miniplane/api"
)

// The benchmarks encode and decode package api's pod fixture (a running pod of one
// container with probes, resources, conditions and a container status), beside
// encoding/json on the same pod: JSON is what miniplane served before protobuf.

func benchPod(b *testing.B) *api.Pod {
	var pod api.Pod
	decodeFixture(b, "pod.json", &pod)
	return &pod
}

func BenchmarkMarshalPod(b *testing.B) {
	pod := benchPod(b)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Marshal(pod); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkMarshalObjectPod(b *testing.B) {
	pod := benchPod(b)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := MarshalObject("v1", "Pod", pod); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkUnmarshalPod(b *testing.B) {
	data, err := Marshal(benchPod(b))
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		var pod api.Pod
		if err := Unmarshal(data, &pod); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkJSONMarshalPod(b *testing.B) {
	pod := benchPod(b)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := json.Marshal(pod); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkJSONUnmarshalPod(b *testing.B) {
	data, err := json.Marshal(benchPod(b))
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		var pod api.Pod
		if err := json.Unmarshal(data, &pod); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkMarshalPodList measures a list response, where every pod's length is written
// after the pod and most pods are moved up by a byte or two to make room for it.
func BenchmarkMarshalPodList(b *testing.B) {
	for _, n := range []int{100, 10000} {
		list := &api.PodList{Items: make([]api.Pod, n)}
		pod := benchPod(b)
		for i := range list.Items {
			list.Items[i] = *pod
			list.Items[i].Metadata.Name = fmt.Sprintf("web-%d", i)
		}
		b.Run(fmt.Sprintf("pods=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Marshal(list); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(fmt.Sprintf("pods=%d/json", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := json.Marshal(list); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
