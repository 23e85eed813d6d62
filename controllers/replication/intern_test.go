package replication

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/miniplane/miniplane/api"
)

func TestPodIndexFunc(t *testing.T) {
	yes, no := true, false
	pod := func(ns string, refs ...api.OwnerReference) *api.Pod {
		return &api.Pod{Metadata: api.ObjectMeta{Namespace: ns, Name: "p", OwnerReferences: refs}}
	}
	tests := []struct {
		name string
		pod  *api.Pod
		want []string
	}{
		{"orphan", pod("ns"), []string{"ns/"}},
		{"plain owner only: an orphan", pod("ns", api.OwnerReference{UID: "u1", Controller: &no}), []string{"ns/"}},
		{"controller", pod("ns", api.OwnerReference{UID: "u0"}, api.OwnerReference{UID: "u1", Controller: &yes}), []string{"u1"}},
		{"controller without a UID", pod("ns", api.OwnerReference{Controller: &yes}), []string{""}},
	}
	var values indexValues
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := values.podIndexFunc(tt.pod)
			assert.Equal(t, tt.want, got)
			assert.Equal(t, 1, cap(got), "an append to the shared list copies it")
			again := values.podIndexFunc(tt.pod.DeepCopy())
			assert.Same(t, &got[0], &again[0], "pods filed alike share one list")
		})
	}
	for i := range maxInterned + 1 {
		values.get(indexValueOf{uid: api.UID(fmt.Sprint(i))})
	}
	assert.LessOrEqual(t, len(values.lists), maxInterned)
}

func TestKeyTable(t *testing.T) {
	var keys keyTable
	meta := func(ns, name string, uid api.UID) *api.ObjectMeta {
		return &api.ObjectMeta{Namespace: ns, Name: name, UID: uid}
	}
	tests := []struct {
		name string
		meta *api.ObjectMeta
		want string
	}{
		{"namespaced", meta("default", "web", "u1"), "default/web"},
		{"the same again", meta("default", "web", "u1"), "default/web"},
		{"the UID under another name", meta("default", "db", "u1"), "default/db"},
		{"in another namespace", meta("other", "db", "u1"), "other/db"},
		{"a name that holds the namespace's prefix", meta("other", "other", "u1"), "other/other"},
		{"cluster-scoped", meta("", "web", "u2"), "web"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, keys.keyOf(tt.meta))
			assert.Equal(t, api.KeyOf(tt.meta), keys.keyOf(tt.meta))
		})
	}
	for i := range maxInterned + 1 {
		keys.keyOf(meta("ns", fmt.Sprint(i), api.UID(fmt.Sprint(i))))
	}
	assert.LessOrEqual(t, len(keys.keys), maxInterned)
}
