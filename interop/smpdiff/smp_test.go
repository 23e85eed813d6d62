package smpdiff

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/strategicpatch"

	"github.com/miniplane/miniplane/apiserver/patch"
)

// TestStrategicMergePatchMatchesApimachinery applies each patch with both
// implementations and compares the results, so the order a keyed or primitive list ends
// up in is Kubernetes' order and not one miniplane chose.
func TestStrategicMergePatchMatchesApimachinery(t *testing.T) {
	const twoContainers = `{"spec":{"containers":[{"name":"a","image":"1"},{"name":"b","image":"2"}]}}`
	tests := []struct {
		name     string
		kind     string
		original string
		patch    string
	}{
		{
			name:     "a new serviceaccount secret",
			kind:     "ServiceAccount",
			original: `{"secrets":[{"name":"s1"},{"name":"s2"}]}`,
			patch:    `{"secrets":[{"name":"s3"}]}`,
		},
		{
			name:     "a new container",
			kind:     "Pod",
			original: twoContainers,
			patch:    `{"spec":{"containers":[{"name":"c","image":"3"}]}}`,
		},
		{
			name:     "a changed container and a new one after it",
			kind:     "Pod",
			original: `{"spec":{"containers":[{"name":"a"},{"name":"b"},{"name":"c"}]}}`,
			patch:    `{"spec":{"containers":[{"name":"b","image":"x"},{"name":"d"}]}}`,
		},
		{
			name:     "a new container before a changed one",
			kind:     "Pod",
			original: `{"spec":{"containers":[{"name":"a"},{"name":"b"},{"name":"c"}]}}`,
			patch:    `{"spec":{"containers":[{"name":"d"},{"name":"c","image":"x"},{"name":"a","image":"y"}]}}`,
		},
		{
			name:     "a new env var in an existing container",
			kind:     "Pod",
			original: `{"spec":{"containers":[{"name":"a","env":[{"name":"X","value":"1"},{"name":"Y","value":"2"}]}]}}`,
			patch:    `{"spec":{"containers":[{"name":"a","env":[{"name":"Z","value":"3"}]}]}}`,
		},
		{
			name:     "a new key with $setElementOrder at the end",
			kind:     "Pod",
			original: twoContainers,
			patch:    `{"spec":{"$setElementOrder/containers":[{"name":"a"},{"name":"b"},{"name":"c"}],"containers":[{"name":"c","image":"3"}]}}`,
		},
		{
			name:     "a new key with $setElementOrder in the middle",
			kind:     "Pod",
			original: twoContainers,
			patch:    `{"spec":{"$setElementOrder/containers":[{"name":"a"},{"name":"c"},{"name":"b"}],"containers":[{"name":"c","image":"3"}]}}`,
		},
		{
			name:     "$setElementOrder reorders, with an element only the server has",
			kind:     "Pod",
			original: `{"spec":{"containers":[{"name":"a"},{"name":"server"},{"name":"b"},{"name":"c"}]}}`,
			patch:    `{"spec":{"$setElementOrder/containers":[{"name":"c"},{"name":"d"},{"name":"a"},{"name":"b"}],"containers":[{"name":"d","image":"new"}]}}`,
		},
		{
			name:     "$setElementOrder alone",
			kind:     "Pod",
			original: twoContainers,
			patch:    `{"spec":{"$setElementOrder/containers":[{"name":"b"},{"name":"a"}]}}`,
		},
		{
			name:     "$patch: delete of a keyed element",
			kind:     "Pod",
			original: `{"spec":{"containers":[{"name":"a"},{"name":"b"},{"name":"c"}]}}`,
			patch:    `{"spec":{"containers":[{"name":"b","$patch":"delete"}]}}`,
		},
		{
			name:     "$patch: delete with a new element",
			kind:     "ServiceAccount",
			original: `{"secrets":[{"name":"s1"},{"name":"s2"},{"name":"s3"}]}`,
			patch:    `{"secrets":[{"name":"s4"},{"name":"s1","$patch":"delete"}]}`,
		},
		{
			name:     "$patch: delete and a new element with $setElementOrder (kubectl apply)",
			kind:     "Pod",
			original: `{"spec":{"containers":[{"name":"a"},{"name":"b"},{"name":"c"}]}}`,
			patch:    `{"spec":{"$setElementOrder/containers":[{"name":"b"},{"name":"c"},{"name":"d"}],"containers":[{"name":"d"},{"name":"a","$patch":"delete"}]}}`,
		},
		{
			name:     "env: delete one, change one, add one, with $setElementOrder",
			kind:     "Pod",
			original: `{"spec":{"containers":[{"name":"a","env":[{"name":"A","value":"1"},{"name":"B","value":"2"}]}]}}`,
			patch:    `{"spec":{"containers":[{"name":"a","$setElementOrder/env":[{"name":"C"},{"name":"B"}],"env":[{"name":"C","value":"3"},{"name":"B","value":"4"},{"name":"A","$patch":"delete"}]}]}}`,
		},
		{
			name:     "$patch: replace of a keyed list",
			kind:     "Pod",
			original: twoContainers,
			patch:    `{"spec":{"containers":[{"name":"z"},{"$patch":"replace"}]}}`,
		},
		{
			name:     "a new finalizer",
			kind:     "Pod",
			original: `{"metadata":{"finalizers":["x","y"]}}`,
			patch:    `{"metadata":{"finalizers":["z"]}}`,
		},
		{
			name:     "finalizers, an old one and a new one",
			kind:     "Pod",
			original: `{"metadata":{"finalizers":["x","y","w"]}}`,
			patch:    `{"metadata":{"finalizers":["y","z"]}}`,
		},
		{
			name:     "$deleteFromPrimitiveList",
			kind:     "Pod",
			original: `{"metadata":{"finalizers":["x","y","z"]}}`,
			patch:    `{"metadata":{"$deleteFromPrimitiveList/finalizers":["y"]}}`,
		},
		{
			name:     "$deleteFromPrimitiveList with a new one and $setElementOrder",
			kind:     "Pod",
			original: `{"metadata":{"finalizers":["x","y","z"]}}`,
			patch:    `{"metadata":{"$setElementOrder/finalizers":["z","w","x"],"$deleteFromPrimitiveList/finalizers":["y"],"finalizers":["w"]}}`,
		},
		{
			name:     "$setElementOrder of finalizers keeps the server's own",
			kind:     "Pod",
			original: `{"metadata":{"finalizers":["x","y","z"]}}`,
			patch:    `{"metadata":{"$setElementOrder/finalizers":["z","x"]}}`,
		},
		{
			name:     "$setElementOrder of args, a list without a strategy",
			kind:     "Pod",
			original: `{"spec":{"containers":[{"name":"a","args":["1","2"]}]}}`,
			patch:    `{"spec":{"containers":[{"name":"a","$setElementOrder/args":["2","1"]}]}}`,
		},
		{
			name:     "$setElementOrder naming an element neither list has",
			kind:     "Pod",
			original: `{"spec":{"containers":[{"name":"a"},{"name":"b"},{"name":"c"}]}}`,
			patch:    `{"spec":{"$setElementOrder/containers":[{"name":"c"},{"name":"x"},{"name":"a"}]}}`,
		},
		{
			name:     "retainKeys switches a volume's source",
			kind:     "Pod",
			original: `{"spec":{"volumes":[{"name":"v","emptyDir":{}}]}}`,
			patch:    `{"spec":{"volumes":[{"name":"v","$retainKeys":["name","hostPath"],"hostPath":{"path":"/x"}}]}}`,
		},
		{
			name:     "retainKeys with a new volume",
			kind:     "Pod",
			original: `{"spec":{"volumes":[{"name":"v","emptyDir":{}},{"name":"w","emptyDir":{}}]}}`,
			patch:    `{"spec":{"volumes":[{"name":"u","configMap":{"name":"c"}},{"name":"w","$retainKeys":["name","secret"],"secret":{"secretName":"s"}}]}}`,
		},
		{
			name:     "ports by containerPort, a new one",
			kind:     "Pod",
			original: `{"spec":{"containers":[{"name":"a","ports":[{"containerPort":80},{"containerPort":443}]}]}}`,
			patch:    `{"spec":{"containers":[{"name":"a","ports":[{"containerPort":8080}]}]}}`,
		},
		{
			// Not with directives inside the new element: strategicpatch copies a new
			// element verbatim, directives and all, where miniplane merges it into an
			// empty object and so carries them out.
			name:     "a new container with an env list",
			kind:     "Pod",
			original: `{"spec":{"nodeName":"n1","containers":[{"name":"web","image":"nginx:1.25","ports":[{"containerPort":80}]}]}}`,
			patch:    `{"spec":{"containers":[{"name":"log","image":"busybox","env":[{"name":"X","value":"1"}]}]}}`,
		},
		{
			name:     "a changed initContainer and a new volume",
			kind:     "Pod",
			original: `{"spec":{"initContainers":[{"name":"i","image":"1"}],"volumes":[{"name":"v1"}]}}`,
			patch:    `{"spec":{"initContainers":[{"name":"i","image":"2"}],"volumes":[{"name":"v2"}]}}`,
		},
		{
			name:     "service ports, a changed one and a new one",
			kind:     "Service",
			original: `{"spec":{"clusterIP":"10.0.0.9","ports":[{"port":80,"targetPort":8080},{"port":443}]}}`,
			patch:    `{"spec":{"ports":[{"port":80,"targetPort":9090},{"port":81}]}}`,
		},
		{
			name:     "node addresses and conditions by type, podCIDRs as a set",
			kind:     "Node",
			original: `{"spec":{"podCIDRs":["10.1.0.0/24"]},"status":{"addresses":[{"type":"InternalIP","address":"1.1.1.1"}],"conditions":[{"type":"Ready","status":"False"}]}}`,
			patch:    `{"spec":{"podCIDRs":["10.1.0.0/24","fd00::/64"]},"status":{"addresses":[{"type":"Hostname","address":"n1"}],"conditions":[{"type":"Ready","status":"True"}]}}`,
		},
		{
			name:     "$deleteFromPrimitiveList and an addition",
			kind:     "Pod",
			original: `{"metadata":{"finalizers":["a","b"]}}`,
			patch:    `{"metadata":{"$deleteFromPrimitiveList/finalizers":["a"],"finalizers":["d"]}}`,
		},
		{
			name:     "a lease's finalizers",
			kind:     "Lease",
			original: `{"metadata":{"finalizers":["a"]},"spec":{"holderIdentity":"x"}}`,
			patch:    `{"metadata":{"finalizers":["b"]},"spec":{"holderIdentity":"y"}}`,
		},
		{
			name:     "kubectl apply removing a container, a port and an env var",
			kind:     "ReplicationController",
			original: `{"metadata":{"labels":{"app":"frontend"},"annotations":{"k":"old"}},"spec":{"template":{"spec":{"containers":[{"name":"php","image":"php","env":[{"name":"A","value":"1"},{"name":"B","value":"2"}],"ports":[{"containerPort":80},{"containerPort":8080}]},{"name":"sidecar","image":"busybox"}]}}}}`,
			patch:    `{"metadata":{"labels":null,"annotations":{"k":"new"}},"spec":{"template":{"spec":{"$setElementOrder/containers":[{"name":"php"}],"containers":[{"name":"php","$setElementOrder/env":[{"name":"B"}],"$setElementOrder/ports":[{"containerPort":8080}],"env":[{"name":"B","value":"3"},{"$patch":"delete","name":"A"}],"ports":[{"containerPort":8080},{"$patch":"delete","containerPort":80}]},{"$patch":"delete","name":"sidecar"}]}}}}`,
		},
		{
			name:     "kubectl rollout undo of a daemon set: a revision's data replaces the template",
			kind:     "DaemonSet",
			original: `{"metadata":{"name":"agent"},"spec":{"minReadySeconds":5,"template":{"metadata":{"labels":{"app":"agent"},"annotations":{"a":"1"}},"spec":{"containers":[{"name":"agent","image":"fluentd:2","env":[{"name":"X","value":"1"}]},{"name":"sidecar","image":"s"}]}}}}`,
			patch:    `{"spec":{"template":{"$patch":"replace","metadata":{"labels":{"app":"agent"}},"spec":{"containers":[{"image":"fluentd:1","name":"agent"}]}}}}`,
		},
	}
	structs := map[string]any{
		"DaemonSet":             &appsv1.DaemonSet{},
		"Pod":                   &corev1.Pod{},
		"ServiceAccount":        &corev1.ServiceAccount{},
		"Service":               &corev1.Service{},
		"Node":                  &corev1.Node{},
		"ReplicationController": &corev1.ReplicationController{},
		"Lease":                 &coordinationv1.Lease{},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			want, err := strategicpatch.StrategicMergePatch([]byte(tt.original), []byte(tt.patch), structs[tt.kind])
			require.NoError(t, err, "apimachinery")
			got, err := patch.Apply(patch.StrategicMergePatchType, tt.kind, []byte(tt.original), []byte(tt.patch))
			require.NoError(t, err, "miniplane")
			assert.JSONEq(t, string(want), string(got))
			assert.Equal(t, order(t, want), order(t, got), "list order")
		})
	}
}

// order returns doc re-encoded with sorted keys, so two documents compare equal exactly
// when their lists hold the same elements in the same order.
func order(t *testing.T, doc []byte) string {
	var v any
	require.NoError(t, json.Unmarshal(doc, &v))
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return string(b)
}

// TestStrategicMergePatchRefusesWhatApimachineryRefuses feeds patches whose list
// disagrees with its $setElementOrder to both: each must refuse them (kube-apiserver
// answers strategicpatch's plain error with a 500, miniplane with a 400 naming the list).
func TestStrategicMergePatchRefusesWhatApimachineryRefuses(t *testing.T) {
	tests := []struct {
		name     string
		original string
		patch    string
	}{
		{
			name:     "a patch element the order does not name",
			original: `{"spec":{"containers":[{"name":"a"},{"name":"b"}]}}`,
			patch:    `{"spec":{"$setElementOrder/containers":[{"name":"a"}],"containers":[{"name":"c"}]}}`,
		},
		{
			name:     "patch elements in another order",
			original: `{"spec":{"containers":[{"name":"a"},{"name":"b"}]}}`,
			patch:    `{"spec":{"$setElementOrder/containers":[{"name":"b"},{"name":"a"}],"containers":[{"name":"a","image":"1"},{"name":"b","image":"2"}]}}`,
		},
		{
			name:     "a finalizer the order does not name",
			original: `{"metadata":{"finalizers":["x","y"]}}`,
			patch:    `{"metadata":{"$setElementOrder/finalizers":["x"],"finalizers":["q"]}}`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := strategicpatch.StrategicMergePatch([]byte(tt.original), []byte(tt.patch), &corev1.Pod{})
			require.Error(t, err, "apimachinery")
			_, err = patch.Apply(patch.StrategicMergePatchType, "Pod", []byte(tt.original), []byte(tt.patch))
			var perr *patch.Error
			require.ErrorAs(t, err, &perr, "miniplane")
			assert.Equal(t, patch.ReasonBadRequest, perr.Reason)
			assert.Contains(t, perr.Field, "$setElementOrder/")
		})
	}
}
