package httpapi_test

import (
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/client"
)

type tableJSON struct {
	Kind, APIVersion string
	Metadata         api.ListMeta
	Columns          []struct {
		Name     string `json:"name"`
		Priority int    `json:"priority"`
	} `json:"columnDefinitions"`
	Rows []struct {
		Cells  []any           `json:"cells"`
		Object json.RawMessage `json:"object"`
	} `json:"rows"`
}

// columnNames returns a table's column names, wide ones marked with "+".
func (t tableJSON) columnNames() []string {
	var out []string
	for _, c := range t.Columns {
		if c.Priority > 0 {
			out = append(out, "+"+c.Name)
		} else {
			out = append(out, c.Name)
		}
	}
	return out
}

// TestTables checks the server-side printing of every resource: kubectl's
// columns (priority 1 for -o wide) and the cells a row holds.
func TestTables(t *testing.T) {
	f := newFixture(t, nil)
	ready := true
	objs := []api.Object{
		&api.Service{Metadata: api.ObjectMeta{Namespace: "default", Name: "frontend"}, Spec: api.ServiceSpec{
			Selector: map[string]string{"app": "frontend"}, Ports: []api.ServicePort{{Name: "http", Port: 80}, {Name: "https", Port: 443, NodePort: 30443, Protocol: "TCP"}}, Type: api.ServiceTypeNodePort}},
		&api.Endpoints{Metadata: api.ObjectMeta{Namespace: "default", Name: "frontend"}, Subsets: []api.EndpointSubset{{
			Addresses: []api.EndpointAddress{{IP: "10.244.0.1"}, {IP: "10.244.0.2"}, {IP: "10.244.0.3"}, {IP: "10.244.0.4"}},
			Ports:     []api.EndpointPort{{Port: 80}}}}},
		&api.Lease{Metadata: api.ObjectMeta{Namespace: "kube-system", Name: "lock"}, Spec: api.LeaseSpec{HolderIdentity: ptr("cm-1")}},
		&api.Node{Metadata: api.ObjectMeta{Name: "node-1", Labels: map[string]string{"node-role.kubernetes.io/worker": ""}}, Spec: api.NodeSpec{Unschedulable: true},
			Status: api.NodeStatus{Conditions: []api.NodeCondition{{Type: api.NodeReady, Status: api.ConditionTrue}}, NodeInfo: api.NodeSystemInfo{KubeletVersion: "v1.32.0"},
				Addresses: []api.NodeAddress{{Type: api.NodeInternalIP, Address: "192.168.0.2"}}}},
		&api.Event{Metadata: api.ObjectMeta{Namespace: "default", Name: "web.1"}, InvolvedObject: api.ObjectReference{Kind: "Pod", Name: "web", Namespace: "default"},
			Reason: "Scheduled", Message: "assigned", Type: api.EventTypeNormal, Source: api.EventSource{Component: "scheduler"},
			FirstTimestamp: api.NewTime(epoch), LastTimestamp: api.NewTime(epoch), Count: 2, ReportingController: "scheduler", ReportingInstance: "s"},
	}
	for _, o := range objs {
		_, err := f.srv.Create(ctx, o)
		require.NoError(t, err)
	}
	p, err := client.For[*api.Pod](f.srv).Get(ctx, "default", "web")
	require.NoError(t, err)
	running := p.DeepCopyObject().(*api.Pod)
	running.Status = api.PodStatus{Phase: api.PodRunning, PodIP: "10.244.0.7",
		ContainerStatuses: []api.ContainerStatus{{Name: "app", Ready: ready, RestartCount: 2, State: api.ContainerState{Running: &api.ContainerStateRunning{}}}}}
	_, err = f.srv.UpdateStatus(ctx, running)
	require.NoError(t, err)
	f.clk.Step(3*time.Minute + 10*time.Second)

	tests := []struct {
		path        string
		wantColumns []string
		wantCells   []any
	}{
		{"/api/v1/namespaces/default/pods", []string{"Name", "Ready", "Status", "Restarts", "Age", "+IP", "+Node", "+Nominated Node", "+Readiness Gates"},
			[]any{"web", "1/1", "Running", 2.0, "3m10s", "10.244.0.7", "<none>", "<none>", "<none>"}},
		{"/api/v1/namespaces/default/replicationcontrollers", []string{"Name", "Desired", "Current", "Ready", "Age", "+Containers", "+Images", "+Selector"},
			[]any{"frontend", 2.0, 0.0, 0.0, "3m10s", "php", "php:8.3-apache", "app=frontend"}},
		{"/api/v1/namespaces/default/services", []string{"Name", "Type", "Cluster-IP", "External-IP", "Port(s)", "Age", "+Selector"},
			[]any{"frontend", "NodePort", "10.96.0.1", "<none>", "80:30000/TCP,443:30443/TCP", "3m10s", "app=frontend"}},
		{"/api/v1/namespaces/default/endpoints", []string{"Name", "Endpoints", "Age"},
			[]any{"frontend", "10.244.0.1:80,10.244.0.2:80,10.244.0.3:80 + 1 more...", "3m10s"}},
		{"/apis/coordination.k8s.io/v1/namespaces/kube-system/leases", []string{"Name", "Holder", "Age"}, []any{"lock", "cm-1", "3m10s"}},
		{"/api/v1/nodes", []string{"Name", "Status", "Roles", "Age", "Version", "+Internal-IP", "+External-IP", "+OS-Image", "+Kernel-Version", "+Container-Runtime"},
			[]any{"node-1", "Ready,SchedulingDisabled", "worker", "3m10s", "v1.32.0", "192.168.0.2", "<none>", "<unknown>", "<unknown>", "<unknown>"}},
		{"/api/v1/namespaces/kube-system", []string{"Name", "Status", "Age"}, []any{"kube-system", "Active", "3m10s"}},
		{"/api/v1/namespaces/default/events", []string{"Last Seen", "Type", "Reason", "Object", "+Subobject", "+Source", "Message", "+First Seen", "+Count", "+Name"},
			[]any{"3m10s", "Normal", "Scheduled", "pod/web", "", "scheduler, s", "assigned", "3m10s", 2.0, "web.1"}},
		// The same event through events.k8s.io prints as kube-apiserver prints it: the same.
		{"/apis/events.k8s.io/v1/namespaces/default/events", []string{"Last Seen", "Type", "Reason", "Object", "+Subobject", "+Source", "Message", "+First Seen", "+Count", "+Name"},
			[]any{"3m10s", "Normal", "Scheduled", "pod/web", "", "scheduler, s", "assigned", "3m10s", 2.0, "web.1"}},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			rec := f.do(t, request{path: tt.path, header: map[string]string{"Accept": acceptTable}})
			require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
			tab := decode[tableJSON](t, rec)
			assert.Equal(t, "Table", tab.Kind)
			assert.Equal(t, "meta.k8s.io/v1", tab.APIVersion)
			assert.NotEmpty(t, tab.Metadata.ResourceVersion, "kubectl get -w watches from it")
			assert.Equal(t, tt.wantColumns, tab.columnNames())
			require.Len(t, tab.Rows, 1)
			assert.Equal(t, tt.wantCells, tab.Rows[0].Cells)
			var obj struct {
				Kind     string
				Metadata api.ObjectMeta
			}
			require.NoError(t, json.Unmarshal(tab.Rows[0].Object, &obj))
			assert.Equal(t, "PartialObjectMetadata", obj.Kind)
			assert.NotEmpty(t, obj.Metadata.UID)
		})
	}
}

// TestTableRowObjects checks includeObject: the metadata by default, the
// whole object for --sort-by, nothing for None; and that a single get is
// a one-row table too.
func TestTableRowObjects(t *testing.T) {
	f := newFixture(t, nil)
	tests := []struct {
		query    string
		wantKind string
	}{
		{"", "PartialObjectMetadata"},
		{"?includeObject=Metadata", "PartialObjectMetadata"},
		{"?includeObject=Object", "Pod"},
		{"?includeObject=None", ""},
	}
	for _, tt := range tests {
		for _, path := range []string{"/api/v1/namespaces/default/pods", "/api/v1/namespaces/default/pods/web"} {
			t.Run(path+tt.query, func(t *testing.T) {
				rec := f.do(t, request{path: path + tt.query, header: map[string]string{"Accept": acceptTable}})
				require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
				tab := decode[tableJSON](t, rec)
				require.Len(t, tab.Rows, 1)
				if tt.wantKind == "" {
					assert.Empty(t, tab.Rows[0].Object)
					return
				}
				var tm api.TypeMeta
				require.NoError(t, json.Unmarshal(tab.Rows[0].Object, &tm))
				assert.Equal(t, tt.wantKind, tm.Kind)
			})
		}
	}
	rec := f.do(t, request{path: "/api/v1/namespaces/default/pods", header: map[string]string{"Accept": "application/json;as=Table;v=v1beta1;g=meta.k8s.io"}})
	assert.Equal(t, "meta.k8s.io/v1beta1", decode[tableJSON](t, rec).APIVersion)
}

// TestPodStatusColumn checks the STATUS cell of pods in the states
// kubectl users know.
func TestPodStatusColumn(t *testing.T) {
	now := api.NewTime(epoch)
	tests := []struct {
		name   string
		mutate func(p *api.Pod)
		want   string
	}{
		{"pending", func(p *api.Pod) {}, "Pending"},
		{"waiting", func(p *api.Pod) {
			p.Status.ContainerStatuses = []api.ContainerStatus{{Name: "app", State: api.ContainerState{Waiting: &api.ContainerStateWaiting{Reason: "ContainerCreating"}}}}
		}, "ContainerCreating"},
		{"crashed", func(p *api.Pod) {
			p.Status.Phase = api.PodRunning
			p.Status.ContainerStatuses = []api.ContainerStatus{{Name: "app", State: api.ContainerState{Waiting: &api.ContainerStateWaiting{Reason: "CrashLoopBackOff"}}}}
		}, "CrashLoopBackOff"},
		{"completed", func(p *api.Pod) {
			p.Status.Phase = api.PodSucceeded
			p.Status.ContainerStatuses = []api.ContainerStatus{{Name: "app", State: api.ContainerState{Terminated: &api.ContainerStateTerminated{Reason: "Completed"}}}}
		}, "Completed"},
		{"killed", func(p *api.Pod) {
			p.Status.Phase = api.PodFailed
			p.Status.ContainerStatuses = []api.ContainerStatus{{Name: "app", State: api.ContainerState{Terminated: &api.ContainerStateTerminated{Signal: 9}}}}
		}, "Signal:9"},
		{"status reason", func(p *api.Pod) { p.Status.Phase, p.Status.Reason = api.PodFailed, "Evicted" }, "Evicted"},
		{"terminating", func(p *api.Pod) { p.Metadata.DeletionTimestamp = &now }, "Terminating"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, nil)
			p, err := client.For[*api.Pod](f.srv).Get(ctx, "default", "web")
			require.NoError(t, err)
			c := p.DeepCopyObject().(*api.Pod)
			tt.mutate(c)
			if c.Metadata.DeletionTimestamp != nil {
				_, err = f.srv.Bind(ctx, "default", "web", "node-1")
				require.NoError(t, err)
				_, err = f.srv.Delete(ctx, client.Pods, "default", "web", api.DeleteOptions{})
			} else {
				_, err = f.srv.UpdateStatus(ctx, c)
			}
			require.NoError(t, err)
			rec := f.do(t, request{path: "/api/v1/namespaces/default/pods/web", header: map[string]string{"Accept": acceptTable}})
			tab := decode[tableJSON](t, rec)
			require.Len(t, tab.Rows, 1)
			assert.Equal(t, tt.want, tab.Rows[0].Cells[2])
		})
	}
}
