package ui

import (
	"fmt"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/miniplane/miniplane/api"
)

func TestSnapshotShowsTheClusterAtARevision(t *testing.T) {
	c := newCluster(t, 0)
	c.node("node-0")
	c.node("node-1")
	rc := c.rc("web", 3)
	c.podFor(rc, "web-a", "node-0", true)
	c.podFor(rc, "web-b", "node-1", true)
	c.podFor(rc, "web-c", "node-1", false)
	svc := &api.Service{Metadata: api.ObjectMeta{Name: "web", Namespace: "default"}}
	svc.Spec.Selector = map[string]string{"app": "web"}
	svc.Spec.Ports = []api.ServicePort{{Port: 80}}
	_, err := c.srv.Create(as("kubectl"), svc)
	require.NoError(t, err)
	ep := &api.Endpoints{Metadata: api.ObjectMeta{Name: "web", Namespace: "default"}, Subsets: []api.EndpointSubset{{
		Addresses:         []api.EndpointAddress{{IP: "10.0.0.2", TargetRef: &api.ObjectReference{Name: "web-b"}}, {IP: "10.0.0.1", TargetRef: &api.ObjectReference{Name: "web-a"}}},
		NotReadyAddresses: []api.EndpointAddress{{IP: "10.0.0.3", TargetRef: &api.ObjectReference{Name: "web-c"}}},
		Ports:             []api.EndpointPort{{Port: 80}},
	}}}
	_, err = c.srv.Create(as("endpoint"), ep)
	require.NoError(t, err)
	yes, no := true, false
	_, err = c.srv.Create(as("endpointslice-controller"), &api.EndpointSlice{
		Metadata: api.ObjectMeta{Name: "web-x7k2p", Namespace: "default", Labels: map[string]string{
			"kubernetes.io/service-name": "web", "endpointslice.kubernetes.io/managed-by": "endpointslice-controller.k8s.io"}},
		AddressType: api.AddressTypeIPv4,
		Endpoints: []api.Endpoint{
			{Addresses: []string{"10.0.0.1"}, Conditions: api.EndpointConditions{Ready: &yes, Serving: &yes, Terminating: &no}},
			{Addresses: []string{"10.0.0.2"}, Conditions: api.EndpointConditions{Ready: &yes, Serving: &yes, Terminating: &no}},
			{Addresses: []string{"10.0.0.3"}, Conditions: api.EndpointConditions{Ready: &no, Serving: &yes, Terminating: &yes}},
		},
	})
	require.NoError(t, err)
	holder := "cm-1"
	transitions := int32(2)
	_, err = c.srv.Create(as("cm-1"), &api.Lease{Metadata: api.ObjectMeta{Name: "kube-controller-manager", Namespace: "kube-system"},
		Spec: api.LeaseSpec{HolderIdentity: &holder, LeaseTransitions: &transitions}})
	if err != nil { // the namespace may not exist on a server without system namespaces
		_, nerr := c.srv.Create(as("kubectl"), &api.Namespace{Metadata: api.ObjectMeta{Name: "kube-system"}})
		require.NoError(t, nerr)
		_, err = c.srv.Create(as("cm-1"), &api.Lease{Metadata: api.ObjectMeta{Name: "kube-controller-manager", Namespace: "kube-system"},
			Spec: api.LeaseSpec{HolderIdentity: &holder, LeaseTransitions: &transitions}})
	}
	require.NoError(t, err)
	three := c.rev()
	c.scale("web", 5)
	c.podFor(rc, "web-d", "node-0", true)
	c.podFor(rc, "web-e", "", false)

	var now Snapshot
	require.Equal(t, http.StatusOK, c.get("/ui/api/snapshot", &now))
	assert.Equal(t, c.rev(), now.Revision)
	assert.Equal(t, c.rev(), now.Current)
	assert.Equal(t, int64(1), now.Oldest)
	assert.Equal(t, PodCounts{Total: 5, Ready: 3, Status: map[string]int{"Running": 4, "Pending": 1}}, now.Pods, "counted as kubectl prints STATUS: a running pod not ready is Running")
	require.Len(t, now.Nodes, 3, "two nodes and the unscheduled pods")
	assert.Equal(t, "node-0", now.Nodes[0].Name)
	assert.True(t, now.Nodes[0].Ready)
	assert.Equal(t, "RR", now.Nodes[0].Grid)
	assert.Equal(t, "Rr", now.Nodes[1].Grid)
	assert.Equal(t, "", now.Nodes[2].Name)
	assert.Equal(t, "P", now.Nodes[2].Grid)
	require.Len(t, now.ReplicationControllers, 1)
	web := now.ReplicationControllers[0]
	assert.Equal(t, RCView{Namespace: "default", Name: "web", Desired: 5, Generation: 2, Images: []string{"nginx"}}, RCView{
		Namespace: web.Namespace, Name: web.Name, Desired: web.Desired, Generation: web.Generation, Images: web.Images})
	assert.Equal(t, "RRrRP", web.Pods.Grid, "its pods, by name")
	assert.Equal(t, 5, web.Pods.Counts.Total)
	require.Len(t, now.Services, 1)
	assert.Equal(t, []AddressView{{IP: "10.0.0.1", Pod: "web-a"}, {IP: "10.0.0.2", Pod: "web-b"}}, now.Services[0].Ready)
	assert.Equal(t, []AddressView{{IP: "10.0.0.3", Pod: "web-c"}}, now.Services[0].NotReady)
	assert.Equal(t, []SliceView{{Name: "web-x7k2p", ManagedBy: "endpointslice-controller.k8s.io", Endpoints: 3, Ready: 2, Serving: 3, Terminating: 1}},
		now.Services[0].Slices, "the service's EndpointSlice beside its Endpoints, counted by condition")
	require.NotNil(t, now.Lease)
	assert.Equal(t, "cm-1", now.Lease.Holder)
	assert.Equal(t, int32(2), now.Lease.Transitions)
	assert.Equal(t, []InstanceView{
		{Identity: "cm-1", Leading: true, Queues: []QueueView{{Name: "replicationcontroller", Depth: 2, InFlight: 1, Retries: 3}}},
		{Identity: "nodesim", Leading: true, Queues: []QueueView{{Name: "nodesim", Depth: 1}}},
		{Identity: "scheduler", Leading: true, Queues: []QueueView{{Name: "scheduler"}}},
		{Identity: "nodelifecycle", Leading: true, Queues: []QueueView{{Name: "nodelifecycle", Retries: 1}}},
	}, now.Instances, "every controller's queue: the instances', then the kubelets', the scheduler's and the node lifecycle's")

	var then Snapshot
	require.Equal(t, http.StatusOK, c.get(fmt.Sprintf("/ui/api/snapshot?revision=%d", three), &then))
	assert.Equal(t, three, then.Revision)
	assert.Equal(t, c.rev(), then.Current)
	assert.Equal(t, 3, then.Pods.Total, "the past: three pods")
	assert.Equal(t, int32(3), then.ReplicationControllers[0].Desired)
}

func TestSnapshotOfACompactedRevisionSaysSoPlainly(t *testing.T) {
	c := newCluster(t, 0)
	c.node("node-0")
	rc := c.rc("web", 1)
	c.podFor(rc, "web-a", "node-0", true)
	require.NoError(t, c.srv.Compact(c.rev()-1))
	oldest := c.rev() - 1

	var st api.Status
	require.Equal(t, http.StatusGone, c.get("/ui/api/snapshot?revision=2", &st))
	assert.Equal(t, fmt.Sprintf("revision 2 has been compacted; the oldest kept is %d", oldest), st.Message)
	assert.Equal(t, api.StatusReasonGone, st.Reason)
	assert.Equal(t, "Status", st.Kind)

	var s Snapshot
	require.Equal(t, http.StatusOK, c.get(fmt.Sprintf("/ui/api/snapshot?revision=%d", oldest), &s))
	assert.Equal(t, oldest, s.Oldest)
}

func TestBadRequestsGetAStatus(t *testing.T) {
	c := newCluster(t, 0)
	c.node("node-0")
	for _, tt := range []struct {
		name, path string
		code       int
		message    string
	}{
		{"revision not a number", "/ui/api/snapshot?revision=abc", 400, `revision must be a revision, a positive integer; got "abc"`},
		{"revision zero", "/ui/api/snapshot?revision=0", 400, `revision must be a revision, a positive integer; got "0"`},
		{"revision in the future", "/ui/api/snapshot?revision=999", 400, fmt.Sprintf("revision 999 has not been written yet; the current is %d", c.rev())},
		{"limit too large", "/ui/api/timeline?limit=5000", 400, `limit must be between 1 and 1000; got "5000"`},
		{"before not a number", "/ui/api/timeline?before=x", 400, `before must be a revision, a positive integer; got "x"`},
		{"diff backwards", "/ui/api/diff?from=3&to=2", 400, "diff needs revisions from and to with from <= to; got from=3 to=2"},
		{"diff without to", "/ui/api/diff?from=3", 400, "diff needs revisions from and to with from <= to; got from=3 to=0"},
		{"unknown endpoint", "/ui/api/nodes", 404, `ui "/ui/api/nodes" not found`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var st api.Status
			assert.Equal(t, tt.code, c.get(tt.path, &st))
			assert.Equal(t, tt.message, st.Message)
			assert.EqualValues(t, tt.code, st.Code)
		})
	}
}
