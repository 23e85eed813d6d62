package patch

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestApplyStrategicMergePatch(t *testing.T) {
	tests := []struct {
		name     string
		kind     string
		original string
		patch    string
		want     string
	}{
		{
			name:     "kubectl apply's image change keeps the container's ports and env",
			kind:     "ReplicationController",
			original: `{"spec":{"replicas":1,"template":{"spec":{"containers":[{"name":"php","image":"php:8.2-apache","ports":[{"containerPort":80}],"env":[{"name":"A","value":"1"}]}]}}}}`,
			patch:    `{"metadata":{"annotations":{"kubectl.kubernetes.io/last-applied-configuration":"{}\n"}},"spec":{"replicas":3,"template":{"spec":{"$setElementOrder/containers":[{"name":"php"}],"containers":[{"image":"php:8.3-apache","name":"php"}]}}}}`,
			want:     `{"metadata":{"annotations":{"kubectl.kubernetes.io/last-applied-configuration":"{}\n"}},"spec":{"replicas":3,"template":{"spec":{"containers":[{"name":"php","image":"php:8.3-apache","ports":[{"containerPort":80}],"env":[{"name":"A","value":"1"}]}]}}}}`,
		},
		{
			name: "kubectl apply removing a container, a port and an env var (rc3 to rc4)",
			kind: "ReplicationController",
			original: `{"metadata":{"labels":{"app":"frontend"},"annotations":{"k":"old"}},"spec":{"template":{"spec":{"containers":[
				{"name":"php","image":"php","env":[{"name":"A","value":"1"},{"name":"B","value":"2"}],"ports":[{"containerPort":80},{"containerPort":8080}]},
				{"name":"sidecar","image":"busybox"}]}}}}`,
			patch: `{"metadata":{"labels":null,"annotations":{"k":"new"}},"spec":{"template":{"spec":{
				"$setElementOrder/containers":[{"name":"php"}],
				"containers":[
				 {"name":"php","$setElementOrder/env":[{"name":"B"}],"$setElementOrder/ports":[{"containerPort":8080}],
				  "env":[{"name":"B","value":"3"},{"$patch":"delete","name":"A"}],
				  "ports":[{"containerPort":8080},{"$patch":"delete","containerPort":80}]},
				 {"$patch":"delete","name":"sidecar"}]}}}}`,
			want: `{"metadata":{"annotations":{"k":"new"}},"spec":{"template":{"spec":{"containers":[
				{"name":"php","image":"php","env":[{"name":"B","value":"3"}],"ports":[{"containerPort":8080}]}]}}}}`,
		},
		{
			name:     "a new container goes first (as strategicpatch puts it), merged free of directives",
			kind:     "Pod",
			original: podWeb,
			patch:    `{"spec":{"containers":[{"name":"log","image":"busybox","$setElementOrder/env":[{"name":"X"}],"env":[{"name":"X","value":"1"},{"name":"Y","$patch":"delete"}]}]}}`,
			want: `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"web","namespace":"default","labels":{"app":"web"}},
				"spec":{"nodeName":"n1","containers":[{"name":"log","image":"busybox","env":[{"name":"X","value":"1"}]},{"name":"web","image":"nginx:1.25","ports":[{"containerPort":80}]}]},
				"status":{"phase":"Running","conditions":[{"type":"PodScheduled","status":"True"},{"type":"Ready","status":"False"}]}}`,
		},
		{
			name:     "$setElementOrder reorders; the server's own element goes by the live order",
			kind:     "Pod",
			original: `{"spec":{"containers":[{"name":"a"},{"name":"server"},{"name":"b"},{"name":"c"}]}}`,
			patch:    `{"spec":{"$setElementOrder/containers":[{"name":"c"},{"name":"d"},{"name":"a"},{"name":"b"}],"containers":[{"name":"d","image":"new"}]}}`,
			want:     `{"spec":{"containers":[{"name":"server"},{"name":"c"},{"name":"d","image":"new"},{"name":"a"},{"name":"b"}]}}`,
		},
		{
			name:     "$setElementOrder alone only reorders",
			kind:     "Pod",
			original: `{"spec":{"containers":[{"name":"a","image":"1"},{"name":"b","image":"2"}]}}`,
			patch:    `{"spec":{"$setElementOrder/containers":[{"name":"b"},{"name":"a"}]}}`,
			want:     `{"spec":{"containers":[{"name":"b","image":"2"},{"name":"a","image":"1"}]}}`,
		},
		{
			name:     "$setElementOrder of a set of primitives",
			kind:     "Pod",
			original: `{"metadata":{"finalizers":["x","y","z"]}}`,
			patch:    `{"metadata":{"$setElementOrder/finalizers":["z","x"]}}`,
			want:     `{"metadata":{"finalizers":["y","z","x"]}}`,
		},
		{
			name:     "$setElementOrder reorders primitives without a strategy too, as strategicpatch does",
			kind:     "Pod",
			original: `{"spec":{"containers":[{"name":"a","args":["1","2"]}]}}`,
			patch:    `{"spec":{"containers":[{"name":"a","$setElementOrder/args":["2","1"]}]}}`,
			want:     `{"spec":{"containers":[{"name":"a","args":["2","1"]}]}}`,
		},
		{
			name:     "$setElementOrder leaves objects without a strategy as the patch made them",
			kind:     "Pod",
			original: `{"spec":{"tolerations":[{"key":"a"},{"key":"b"}]}}`,
			patch:    `{"spec":{"$setElementOrder/tolerations":[{"key":"b"},{"key":"a"}]}}`,
			want:     `{"spec":{"tolerations":[{"key":"a"},{"key":"b"}]}}`,
		},
		{
			name:     "lists without a strategy replace (args, tolerations)",
			kind:     "Pod",
			original: `{"spec":{"tolerations":[{"key":"a"}],"containers":[{"name":"a","args":["1","2"],"command":["x"]}]}}`,
			patch:    `{"spec":{"tolerations":[{"key":"b"}],"containers":[{"name":"a","args":["3"]}]}}`,
			want:     `{"spec":{"tolerations":[{"key":"b"}],"containers":[{"name":"a","args":["3"],"command":["x"]}]}}`,
		},
		{
			name:     "container ports merge by containerPort, volumeMounts by mountPath",
			kind:     "Pod",
			original: `{"spec":{"containers":[{"name":"a","ports":[{"containerPort":80,"name":"http"}],"volumeMounts":[{"mountPath":"/d","name":"data"}]}]}}`,
			patch:    `{"spec":{"containers":[{"name":"a","ports":[{"containerPort":80,"protocol":"TCP"},{"containerPort":443}],"volumeMounts":[{"mountPath":"/d","readOnly":true}]}]}}`,
			want:     `{"spec":{"containers":[{"name":"a","ports":[{"containerPort":80,"name":"http","protocol":"TCP"},{"containerPort":443}],"volumeMounts":[{"mountPath":"/d","name":"data","readOnly":true}]}]}}`,
		},
		{
			name:     "initContainers and volumes merge by name",
			kind:     "Pod",
			original: `{"spec":{"initContainers":[{"name":"i","image":"1"}],"volumes":[{"name":"v1"}]}}`,
			patch:    `{"spec":{"initContainers":[{"name":"i","image":"2"}],"volumes":[{"name":"v2"}]}}`,
			want:     `{"spec":{"initContainers":[{"name":"i","image":"2"}],"volumes":[{"name":"v2"},{"name":"v1"}]}}`,
		},
		{
			name:     "pod status conditions merge by type",
			kind:     "Pod",
			original: podWeb,
			patch:    `{"status":{"conditions":[{"type":"Ready","status":"True"}],"podIPs":[{"ip":"10.0.0.1"}]}}`,
			want: `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"web","namespace":"default","labels":{"app":"web"}},
				"spec":{"nodeName":"n1","containers":[{"name":"web","image":"nginx:1.25","ports":[{"containerPort":80}]}]},
				"status":{"phase":"Running","podIPs":[{"ip":"10.0.0.1"}],"conditions":[{"type":"PodScheduled","status":"True"},{"type":"Ready","status":"True"}]}}`,
		},
		{
			name:     "service ports merge by port",
			kind:     "Service",
			original: `{"spec":{"clusterIP":"10.0.0.9","ports":[{"port":80,"targetPort":8080},{"port":443}]}}`,
			patch:    `{"spec":{"ports":[{"port":80,"targetPort":9090},{"port":81}]}}`,
			want:     `{"spec":{"clusterIP":"10.0.0.9","ports":[{"port":80,"targetPort":9090},{"port":81},{"port":443}]}}`,
		},
		{
			name:     "node addresses and conditions merge by type; podCIDRs as a set",
			kind:     "Node",
			original: `{"spec":{"podCIDRs":["10.1.0.0/24"]},"status":{"addresses":[{"type":"InternalIP","address":"1.1.1.1"}],"conditions":[{"type":"Ready","status":"False"}]}}`,
			patch:    `{"spec":{"podCIDRs":["10.1.0.0/24","fd00::/64"]},"status":{"addresses":[{"type":"Hostname","address":"n1"}],"conditions":[{"type":"Ready","status":"True"}]}}`,
			want:     `{"spec":{"podCIDRs":["10.1.0.0/24","fd00::/64"]},"status":{"addresses":[{"type":"Hostname","address":"n1"},{"type":"InternalIP","address":"1.1.1.1"}],"conditions":[{"type":"Ready","status":"True"}]}}`,
		},
		{
			name:     "RC status conditions merge by type",
			kind:     "ReplicationController",
			original: `{"status":{"replicas":1,"conditions":[{"type":"ReplicaFailure","status":"True"}]}}`,
			patch:    `{"status":{"conditions":[{"type":"ReplicaFailure","status":"False"}]}}`,
			want:     `{"status":{"replicas":1,"conditions":[{"type":"ReplicaFailure","status":"False"}]}}`,
		},
		{
			name:     "endpoints subsets have no strategy and replace",
			kind:     "Endpoints",
			original: `{"subsets":[{"addresses":[{"ip":"1.1.1.1"}]}]}`,
			patch:    `{"subsets":[{"addresses":[{"ip":"2.2.2.2"}]}]}`,
			want:     `{"subsets":[{"addresses":[{"ip":"2.2.2.2"}]}]}`,
		},
		{
			name:     "ownerReferences merge by uid",
			kind:     "Pod",
			original: `{"metadata":{"ownerReferences":[{"uid":"1","name":"a","controller":true},{"uid":"2","name":"b"}]}}`,
			patch:    `{"metadata":{"ownerReferences":[{"uid":"1","controller":null},{"uid":"3","name":"c"},{"uid":"2","$patch":"delete"}]}}`,
			want:     `{"metadata":{"ownerReferences":[{"uid":"1","name":"a"},{"uid":"3","name":"c"}]}}`,
		},
		{
			name:     "finalizers merge as a set",
			kind:     "Pod",
			original: `{"metadata":{"finalizers":["a","b"]}}`,
			patch:    `{"metadata":{"finalizers":["b","c","c"]}}`,
			want:     `{"metadata":{"finalizers":["a","b","c"]}}`,
		},
		{
			name:     "$deleteFromPrimitiveList removes from a set",
			kind:     "Namespace",
			original: `{"metadata":{"finalizers":["a","b","c"]}}`,
			patch:    `{"metadata":{"$deleteFromPrimitiveList/finalizers":["b","zz"]}}`,
			want:     `{"metadata":{"finalizers":["a","c"]}}`,
		},
		{
			name:     "$deleteFromPrimitiveList and additions together",
			kind:     "Pod",
			original: `{"metadata":{"finalizers":["a","b"]}}`,
			patch:    `{"metadata":{"$deleteFromPrimitiveList/finalizers":["a"],"finalizers":["d"]}}`,
			want:     `{"metadata":{"finalizers":["d","b"]}}`,
		},
		{
			name:     "$patch: replace on a map replaces it",
			kind:     "Pod",
			original: `{"metadata":{"labels":{"a":"1","b":"2"}}}`,
			patch:    `{"metadata":{"labels":{"$patch":"replace","c":"3"}}}`,
			want:     `{"metadata":{"labels":{"c":"3"}}}`,
		},
		{
			name:     "$patch: replace in a list replaces the list",
			kind:     "Pod",
			original: `{"spec":{"containers":[{"name":"a","image":"1"},{"name":"b"}]}}`,
			patch:    `{"spec":{"containers":[{"name":"c","image":"3"},{"$patch":"replace"}]}}`,
			want:     `{"spec":{"containers":[{"name":"c","image":"3"}]}}`,
		},
		{
			name:     "$patch: replace in a set replaces the set",
			kind:     "Pod",
			original: `{"metadata":{"finalizers":["a","b"]}}`,
			patch:    `{"metadata":{"finalizers":["c",{"$patch":"replace"}]}}`,
			want:     `{"metadata":{"finalizers":["c"]}}`,
		},
		{
			name:     "$patch: delete on a map empties it",
			kind:     "Pod",
			original: `{"metadata":{"name":"x","annotations":{"a":"1"}}}`,
			patch:    `{"metadata":{"annotations":{"$patch":"delete"}}}`,
			want:     `{"metadata":{"name":"x","annotations":{}}}`,
		},
		{
			name:     "$patch: delete of a key not there is a no-op",
			kind:     "Pod",
			original: `{"spec":{"containers":[{"name":"a"}]}}`,
			patch:    `{"spec":{"containers":[{"name":"b","$patch":"delete"}]}}`,
			want:     `{"spec":{"containers":[{"name":"a"}]}}`,
		},
		{
			name:     "$retainKeys drops the other members of a volume",
			kind:     "Pod",
			original: `{"spec":{"volumes":[{"name":"v","emptyDir":{},"hostPath":{"path":"/x"}}]}}`,
			patch:    `{"spec":{"volumes":[{"name":"v","$retainKeys":["name","configMap"],"configMap":{"name":"cm"}}]}}`,
			want:     `{"spec":{"volumes":[{"name":"v","configMap":{"name":"cm"}}]}}`,
		},
		{
			name:     "null deletes a map key; unknown fields merge as maps",
			kind:     "Pod",
			original: `{"spec":{"nodeSelector":{"a":"1","b":"2"},"affinity":{"x":{"y":1}}}}`,
			patch:    `{"spec":{"nodeSelector":{"a":null},"affinity":{"x":{"z":2}}}}`,
			want:     `{"spec":{"nodeSelector":{"b":"2"},"affinity":{"x":{"y":1,"z":2}}}}`,
		},
		{
			name:     "merge keys compare numbers by value",
			kind:     "Pod",
			original: `{"spec":{"containers":[{"name":"a","ports":[{"containerPort":80}]}]}}`,
			patch:    `{"spec":{"containers":[{"name":"a","ports":[{"containerPort":80.0,"name":"http"}]}]}}`,
			want:     `{"spec":{"containers":[{"name":"a","ports":[{"containerPort":80,"name":"http"}]}]}}`,
		},
		{
			name:     "a list where the original has a map is replaced by the merged patch",
			kind:     "Pod",
			original: `{"spec":{"containers":{"bogus":true}}}`,
			patch:    `{"spec":{"containers":[{"name":"a","$setElementOrder/env":[]}]}}`,
			want:     `{"spec":{"containers":[{"name":"a"}]}}`,
		},
		// The order of a merged list, as strategicpatch's normalizeElementOrder gives it
		// (interop/smpdiff checks these against k8s.io/apimachinery).
		{
			name:     "a new serviceaccount secret goes first",
			kind:     "ServiceAccount",
			original: `{"secrets":[{"name":"s1"},{"name":"s2"}]}`,
			patch:    `{"secrets":[{"name":"s3"}]}`,
			want:     `{"secrets":[{"name":"s3"},{"name":"s1"},{"name":"s2"}]}`,
		},
		{
			name:     "a new element goes right after the patch's element before it",
			kind:     "Pod",
			original: `{"spec":{"containers":[{"name":"a"},{"name":"b"},{"name":"c"}]}}`,
			patch:    `{"spec":{"containers":[{"name":"b","image":"x"},{"name":"d"}]}}`,
			want:     `{"spec":{"containers":[{"name":"a"},{"name":"b","image":"x"},{"name":"d"},{"name":"c"}]}}`,
		},
		{
			name:     "the patch's elements keep the patch's order",
			kind:     "Pod",
			original: `{"spec":{"containers":[{"name":"a"},{"name":"b"},{"name":"c"}]}}`,
			patch:    `{"spec":{"containers":[{"name":"d"},{"name":"c","image":"x"},{"name":"a","image":"y"}]}}`,
			want:     `{"spec":{"containers":[{"name":"d"},{"name":"b"},{"name":"c","image":"x"},{"name":"a","image":"y"}]}}`,
		},
		{
			name:     "a deletion and a new env var",
			kind:     "Pod",
			original: `{"spec":{"containers":[{"name":"a","env":[{"name":"A"},{"name":"B"},{"name":"C"}]}]}}`,
			patch:    `{"spec":{"containers":[{"name":"a","env":[{"name":"D","value":"4"},{"name":"A","$patch":"delete"}]}]}}`,
			want:     `{"spec":{"containers":[{"name":"a","env":[{"name":"D","value":"4"},{"name":"B"},{"name":"C"}]}]}}`,
		},
		{
			name:     "$setElementOrder puts a new element where it says",
			kind:     "Pod",
			original: `{"spec":{"containers":[{"name":"a"},{"name":"b"}]}}`,
			patch:    `{"spec":{"$setElementOrder/containers":[{"name":"a"},{"name":"c"},{"name":"b"}],"containers":[{"name":"c"}]}}`,
			want:     `{"spec":{"containers":[{"name":"a"},{"name":"c"},{"name":"b"}]}}`,
		},
		{
			name:     "a new finalizer goes first, an old one stays",
			kind:     "Pod",
			original: `{"metadata":{"finalizers":["x","y","w"]}}`,
			patch:    `{"metadata":{"finalizers":["y","z"]}}`,
			want:     `{"metadata":{"finalizers":["x","y","z","w"]}}`,
		},
		{
			name:     "the lease, event and scale kinds patch their metadata",
			kind:     "Lease",
			original: `{"metadata":{"finalizers":["a"]},"spec":{"holderIdentity":"x"}}`,
			patch:    `{"metadata":{"finalizers":["b"]},"spec":{"holderIdentity":"y"}}`,
			want:     `{"metadata":{"finalizers":["b","a"]},"spec":{"holderIdentity":"y"}}`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Apply(StrategicMergePatchType, tt.kind, []byte(tt.original), []byte(tt.patch))
			require.NoError(t, err)
			assert.JSONEq(t, tt.want, string(got))
			assert.NotContains(t, string(got), "$", "a directive was stored")
		})
	}
}

func TestApplyStrategicKeepsPortsWhereMergePatchLosesThem(t *testing.T) {
	// The key case: kubectl apply changes a container's image; a strategic merge
	// patch keeps the container's ports, a JSON merge patch of the same body does not.
	patchBody := []byte(`{"spec":{"template":{"spec":{"containers":[{"name":"php","image":"php:8.3-apache"}]}}}}`)
	smp, err := Apply(StrategicMergePatchType, "ReplicationController", []byte(rcFrontend), patchBody)
	require.NoError(t, err)
	assert.Contains(t, string(smp), `"ports":[{"containerPort":80,"protocol":"TCP"},{"containerPort":8080,"protocol":"TCP"}]`)
	assert.Contains(t, string(smp), `"image":"php:8.3-apache"`)
	assert.Contains(t, string(smp), `{"image":"busybox","name":"sidecar"}`)

	merge, err := Apply(MergePatchType, "ReplicationController", []byte(rcFrontend), patchBody)
	require.NoError(t, err)
	assert.NotContains(t, string(merge), `"ports"`)
}

func TestApplyStrategicWholeObjectDirectives(t *testing.T) {
	got, err := Apply(StrategicMergePatchType, "Pod", []byte(podWeb), []byte(`{"$patch":"replace","kind":"Pod","metadata":{"name":"web"}}`))
	require.NoError(t, err)
	assert.JSONEq(t, `{"kind":"Pod","metadata":{"name":"web"}}`, string(got))

	got, err = Apply(StrategicMergePatchType, "Pod", []byte(podWeb), []byte(`{"$patch":"delete"}`))
	require.NoError(t, err)
	assert.JSONEq(t, `{}`, string(got))
}
