package garbagecollector

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/client"
	"github.com/miniplane/miniplane/internal/testenv"
)

func owner(uid api.UID, s OwnerState) Owner {
	return Owner{Ref: api.OwnerReference{APIVersion: "v1", Kind: "ReplicationController", Name: string(uid), UID: uid}, State: s}
}

func TestDecideDependent(t *testing.T) {
	for _, tc := range []struct {
		name      string
		owners    []Owner
		dependent Dependent
		want      Action
	}{
		{name: "no owners: not garbage", want: Action{Verb: Keep}},
		{name: "owner present", owners: []Owner{owner("a", OwnerPresent)}, want: Action{Verb: Keep}},
		{name: "owner of an unknown kind counts as present", owners: []Owner{owner("a", OwnerUnknown)}, want: Action{Verb: Keep}},
		{name: "only owner absent: background delete", owners: []Owner{owner("a", OwnerAbsent)},
			want: Action{Verb: Delete, Policy: api.DeletePropagationBackground}},
		{name: "all owners absent", owners: []Owner{owner("a", OwnerAbsent), owner("b", OwnerAbsent)},
			want: Action{Verb: Delete, Policy: api.DeletePropagationBackground}},
		{name: "one of two owners absent: remove only its reference",
			owners: []Owner{owner("a", OwnerAbsent), owner("b", OwnerPresent)},
			want:   Action{Verb: RemoveRefs, RemoveUIDs: []api.UID{"a"}}},
		{name: "absent and waiting owners beside a present one are all removed",
			owners: []Owner{owner("a", OwnerWaiting), owner("b", OwnerPresent), owner("c", OwnerAbsent)},
			want:   Action{Verb: RemoveRefs, RemoveUIDs: []api.UID{"a", "c"}}},
		{name: "unknown owner keeps the object, absent one is removed",
			owners: []Owner{owner("a", OwnerUnknown), owner("b", OwnerAbsent)},
			want:   Action{Verb: RemoveRefs, RemoveUIDs: []api.UID{"b"}}},
		{name: "owner waiting, leaf dependent: background delete",
			owners: []Owner{owner("a", OwnerWaiting)},
			want:   Action{Verb: Delete, Policy: api.DeletePropagationBackground}},
		{name: "owner waiting, dependent with dependents: foreground delete",
			owners: []Owner{owner("a", OwnerWaiting)}, dependent: Dependent{HasDependents: true},
			want: Action{Verb: Delete, Policy: api.DeletePropagationForeground}},
		{name: "owner waiting and a dependent waiting too (cycle?): unblock, then foreground",
			owners: []Owner{owner("a", OwnerWaiting)}, dependent: Dependent{HasDependents: true, DependentDeletingDependents: true},
			want: Action{Verb: Delete, Policy: api.DeletePropagationForeground, Unblock: true}},
		{name: "waiting and absent owners, dependent with dependents: foreground",
			owners: []Owner{owner("a", OwnerAbsent), owner("b", OwnerWaiting)}, dependent: Dependent{HasDependents: true},
			want: Action{Verb: Delete, Policy: api.DeletePropagationForeground}},
		{name: "owners absent, dependent with dependents but none waiting: background",
			owners: []Owner{owner("a", OwnerAbsent)}, dependent: Dependent{HasDependents: true, DependentDeletingDependents: true},
			want: Action{Verb: Delete, Policy: api.DeletePropagationBackground}},
		{name: "dependent's own orphan finalizer is kept",
			owners: []Owner{owner("a", OwnerAbsent)}, dependent: Dependent{Finalizers: []string{api.FinalizerOrphanDependents}},
			want: Action{Verb: Delete, Policy: api.DeletePropagationOrphan}},
		{name: "dependent's own foreground finalizer is kept",
			owners: []Owner{owner("a", OwnerAbsent)}, dependent: Dependent{Finalizers: []string{"example.com/x", api.FinalizerDeleteDependents}},
			want: Action{Verb: Delete, Policy: api.DeletePropagationForeground}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, DecideDependent(tc.owners, tc.dependent))
		})
	}
}

func TestStateOf(t *testing.T) {
	ts := api.NewTime(testenv.Epoch())
	ref := api.OwnerReference{Kind: "ReplicationController", Name: "web", UID: "u1"}
	rc := func(uid api.UID, deleting bool, finalizers ...string) api.Object {
		o := &api.ReplicationController{Metadata: api.ObjectMeta{Name: "web", UID: uid, Finalizers: finalizers}}
		if deleting {
			o.Metadata.DeletionTimestamp = &ts
		}
		return o
	}
	for _, tc := range []struct {
		name string
		obj  api.Object
		want OwnerState
	}{
		{"not found", nil, OwnerAbsent},
		{"same name, another UID: recreated", rc("u2", false), OwnerAbsent},
		{"present", rc("u1", false), OwnerPresent},
		{"being deleted in the background still present", rc("u1", true, "example.com/x"), OwnerPresent},
		{"being deleted with orphan", rc("u1", true, api.FinalizerOrphanDependents), OwnerPresent},
		{"being deleted in the foreground: waiting", rc("u1", true, api.FinalizerDeleteDependents), OwnerWaiting},
		{"foreground finalizer without deletion is not waiting", rc("u1", false, api.FinalizerDeleteDependents), OwnerPresent},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, StateOf(ref, tc.obj))
		})
	}
}

func TestWithoutOwners(t *testing.T) {
	a := api.OwnerReference{Name: "a", UID: "a"}
	b := api.OwnerReference{Name: "b", UID: "b"}
	for _, tc := range []struct {
		name        string
		refs        []api.OwnerReference
		uids        []api.UID
		want        []api.OwnerReference
		wantChanged bool
	}{
		{"remove one of two", []api.OwnerReference{a, b}, []api.UID{"a"}, []api.OwnerReference{b}, true},
		{"remove the last leaves nil", []api.OwnerReference{a}, []api.UID{"a"}, nil, true},
		{"nothing to remove", []api.OwnerReference{a}, []api.UID{"c"}, []api.OwnerReference{a}, false},
		{"nil refs", nil, []api.UID{"a"}, nil, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			orig := append([]api.OwnerReference(nil), tc.refs...)
			got, changed := withoutOwners(tc.refs, tc.uids)
			assert.Equal(t, tc.want, got)
			assert.Equal(t, tc.wantChanged, changed)
			assert.Equal(t, orig, tc.refs, "the input is not changed")
		})
	}
}

func TestWithoutFinalizer(t *testing.T) {
	for _, tc := range []struct {
		name        string
		finalizers  []string
		want        []string
		wantChanged bool
	}{
		{"only one", []string{api.FinalizerOrphanDependents}, nil, true},
		{"others kept", []string{"x", api.FinalizerOrphanDependents, "y"}, []string{"x", "y"}, true},
		{"absent", []string{"x"}, []string{"x"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			orig := append([]string(nil), tc.finalizers...)
			got, changed := withoutFinalizer(tc.finalizers, api.FinalizerOrphanDependents)
			assert.Equal(t, tc.want, got)
			assert.Equal(t, tc.wantChanged, changed)
			assert.Equal(t, orig, tc.finalizers, "the input is not changed")
		})
	}
}

func TestKindOfRef(t *testing.T) {
	for _, tc := range []struct {
		apiVersion, kind string
		wantResource     string
		wantOK           bool
	}{
		{"v1", "ReplicationController", client.ReplicationControllers, true},
		{"v1", "Pod", client.Pods, true},
		{"coordination.k8s.io/v1", "Lease", client.Leases, true},
		{"v1", "Lease", "", false},
		{"apps/v1", "ReplicaSet", client.ReplicaSets, true},
		{"v1", "ReplicaSet", "", false},
		{"apps/v1", "Deployment", client.Deployments, true},
		{"apps/v1", "DaemonSet", client.DaemonSets, true},
		{"apps/v1", "ControllerRevision", client.ControllerRevisions, true},
		{"batch/v1", "Job", client.Jobs, true},
		{"batch/v1", "CronJob", client.CronJobs, true},
		{"autoscaling/v2", "HorizontalPodAutoscaler", client.HorizontalPodAutoscalers, true},
		{"v1", "ComponentStatus", "", false},
		{"apps/v1", "Pod", "", false},
	} {
		t.Run(tc.apiVersion+" "+tc.kind, func(t *testing.T) {
			k, ok := kindOfRef(tc.apiVersion, tc.kind)
			assert.Equal(t, tc.wantOK, ok)
			assert.Equal(t, tc.wantResource, k.resource)
		})
	}
}

func TestUnblocked(t *testing.T) {
	yes, no := true, false
	refs := []api.OwnerReference{{UID: "a", BlockOwnerDeletion: &yes}, {UID: "b"}, {UID: "c", BlockOwnerDeletion: &no}}
	got, changed := unblocked(refs)
	assert.True(t, changed)
	for _, r := range got {
		assert.False(t, blocks(r), "reference %s", r.UID)
	}
	assert.True(t, blocks(refs[0]), "the input is not changed")

	_, changed = unblocked(got)
	assert.False(t, changed, "nothing left to unblock")
}
