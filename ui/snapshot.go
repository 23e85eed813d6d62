package ui

import (
	"cmp"
	"context"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/api/apierrors"
	"github.com/miniplane/miniplane/client"
	"github.com/miniplane/miniplane/controllers/endpointslice"
)

// maxListedPods is how many pods a node lists by name in a snapshot; past
// it the page shows the node's counts and its grid only, so that 10,000
// pods cost a few kilobytes of JSON and no DOM rows.
const maxListedPods = 50

// Snapshot is the cluster at one revision, as the page draws it.
type Snapshot struct {
	// Revision is the revision shown; Oldest and Current bound the
	// history window when it was read.
	Revision int64 `json:"revision"`
	Oldest   int64 `json:"oldest"`
	Current  int64 `json:"current"`
	// Nodes are sorted by name; pods bound to no node are under a node
	// named "" (unscheduled), last.
	Nodes []NodeView `json:"nodes"`
	Pods  PodCounts  `json:"pods"`
	// Workloads, each with its pods (by their controller
	// ownerReference): Deployments with their ReplicaSets, newest
	// first; the ReplicaSets no Deployment controls; replication
	// controllers.
	Deployments            []DeploymentView `json:"deployments"`
	ReplicaSets            []ReplicaSetView `json:"replicaSets"`
	ReplicationControllers []RCView         `json:"replicationControllers"`
	Services               []ServiceView    `json:"services"`
	Lease                  *LeaseView       `json:"lease,omitempty"`
	Instances              []InstanceView   `json:"instances"`
	// Custom are the custom kinds served now (Config.CustomKinds), each
	// with its objects at the revision and their owner links; a kind
	// whose definition is gone now is not shown at an older revision.
	Custom []CustomKindView `json:"custom"`
}

// PodCounts counts pods as `kubectl get pods` shows them.
type PodCounts struct {
	Total int `json:"total"`
	// Ready counts the pods whose Ready condition is True (kubectl's
	// READY column reads n/n).
	Ready int `json:"ready"`
	// Status counts the pods by kubectl's STATUS column
	// (api.PodStatusReason): Running, Pending, ContainerCreating,
	// Completed, Error, CrashLoopBackOff, ImagePullBackOff, Terminating, ...
	Status map[string]int `json:"status"`
}

// Pod states, one letter each in a PodGroup's Grid: the colour a pod is
// drawn in.
const (
	stateReady       = 'R' // running and ready
	stateRunning     = 'r' // running, not ready
	statePending     = 'P' // not running yet, on its way (Pending, ContainerCreating, Init:0/1)
	stateFailing     = 'F' // stuck or failed: CrashLoopBackOff, ImagePullBackOff, Error, ...
	stateTerminating = 'T'
	stateDone        = 'D' // Succeeded: Completed
)

// PodGroup is pods drawn together: a node's, or a workload's.
type PodGroup struct {
	Counts PodCounts `json:"counts"`
	// Grid has one letter per pod, in name order (see the state
	// constants: R ready, r running, P pending, F failing, T terminating,
	// D done).
	Grid string `json:"grid"`
	// Listed are the first maxListedPods pods by name, in Grid's order.
	Listed []PodView `json:"listed"`
}

// NodeView is one node and the pods bound to it.
type NodeView struct {
	Name  string `json:"name"`
	Ready bool   `json:"ready"`
	PodGroup
}

// PodView is one pod, with the columns of `kubectl get pods -o wide`
// that fit.
type PodView struct {
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
	Phase     string `json:"phase"`
	// Status is kubectl's STATUS column.
	Status   string `json:"status"`
	Ready    bool   `json:"ready"`
	Restarts int64  `json:"restarts,omitempty"`
	State    string `json:"state"`
	IP       string `json:"ip,omitempty"`
	Node     string `json:"node,omitempty"`
}

// RCView is one replication controller.
type RCView struct {
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
	Desired   int32  `json:"desired"`
	Current   int32  `json:"current"`
	Ready     int32  `json:"ready"`
	// Generation and Observed say whether the controller has seen the
	// latest spec.
	Generation int64 `json:"generation"`
	Observed   int64 `json:"observed"`
	// Images are the template's containers' images.
	Images []string `json:"images"`
	// Pods are the pods it controls.
	Pods PodGroup `json:"pods"`
}

// ServiceView is one service with its endpoints: the Endpoints' addresses,
// and beside them the EndpointSlices that carry the same backends today
// (kube-proxy reads the slices).
type ServiceView struct {
	Namespace string        `json:"namespace"`
	Name      string        `json:"name"`
	ClusterIP string        `json:"clusterIP,omitempty"`
	Ready     []AddressView `json:"ready"`
	NotReady  []AddressView `json:"notReady"`
	Slices    []SliceView   `json:"slices"`
}

// SliceView is one EndpointSlice of a service: its name, who keeps it (the
// endpointslice.kubernetes.io/managed-by label) and its endpoints counted
// by their conditions.
type SliceView struct {
	Name        string `json:"name"`
	ManagedBy   string `json:"managedBy,omitempty"`
	Endpoints   int    `json:"endpoints"`
	Ready       int    `json:"ready"`
	Serving     int    `json:"serving"`
	Terminating int    `json:"terminating"`
}

// AddressView is one endpoint address and the pod behind it.
type AddressView struct {
	IP  string `json:"ip"`
	Pod string `json:"pod,omitempty"`
}

// LeaseView is the leader-election Lease.
type LeaseView struct {
	Namespace   string    `json:"namespace"`
	Name        string    `json:"name"`
	Holder      string    `json:"holder"`
	Transitions int32     `json:"transitions"`
	RenewTime   time.Time `json:"renewTime,omitzero"`
	AcquireTime time.Time `json:"acquireTime,omitzero"`
	Revision    int64     `json:"revision"`
}

// InstanceView is one controller-manager instance and its queues, now:
// queues have no history, so a past snapshot shows the present ones.
type InstanceView struct {
	Identity string      `json:"identity"`
	Leading  bool        `json:"leading"`
	Queues   []QueueView `json:"queues"`
}

// QueueView is one controller's workqueue.
type QueueView struct {
	Name     string `json:"name"`
	Depth    int    `json:"depth"`
	InFlight int    `json:"inFlight"`
	Retries  uint64 `json:"retries"`
	Adds     uint64 `json:"adds"`
}

func (h *Handler) serveSnapshot(w http.ResponseWriter, r *http.Request) {
	rev, err := revisionParam(r, "revision")
	if err == nil {
		var s *Snapshot
		if s, err = h.Snapshot(r.Context(), rev); err == nil {
			writeJSON(w, s)
			return
		}
	}
	writeError(w, err)
}

// Snapshot reads the cluster at revision rev (0: the latest) with the API
// server's exact-revision lists. A revision that has left the history
// window is a 410 Gone saying so.
func (h *Handler) Snapshot(ctx context.Context, rev int64) (*Snapshot, error) {
	oldest, current := h.window()
	if rev == 0 {
		rev = current
	}
	if err := h.checkRevision(rev); err != nil {
		return nil, err
	}
	at := client.ListOptions{ResourceVersion: strconv.FormatInt(rev, 10), ResourceVersionMatch: client.MatchExact}
	list := func(resource string) ([]api.Object, error) {
		l, err := h.cfg.Lister.List(ctx, resource, "", at)
		if err != nil {
			if apierrors.IsGone(err) {
				return nil, compacted(rev, h.oldestNow())
			}
			return nil, err
		}
		return l.Items, nil
	}
	s := &Snapshot{Revision: rev, Oldest: oldest, Current: current}
	var err error
	var objs [5][]api.Object
	for i, resource := range []string{client.Nodes, client.Pods, client.Deployments, client.ReplicaSets, client.ReplicationControllers} {
		if objs[i], err = list(resource); err != nil {
			return nil, err
		}
	}
	nodes, pods, deployments, replicaSets, rcs := objs[0], objs[1], objs[2], objs[3], objs[4]
	read := readPods(pods)
	s.Nodes, s.Pods = nodeViews(nodes, read)
	s.Deployments, s.ReplicaSets, s.ReplicationControllers = workloadViews(deployments, replicaSets, rcs, read)
	svcs, err := list(client.Services)
	if err != nil {
		return nil, err
	}
	eps, err := list(client.Endpoints)
	if err != nil {
		return nil, err
	}
	slicesList, err := list(client.EndpointSlices)
	if err != nil {
		return nil, err
	}
	s.Services = serviceViews(svcs, eps, slicesList)
	leases, err := list(client.Leases)
	if err != nil {
		return nil, err
	}
	for _, o := range leases {
		l := o.(*api.Lease)
		if l.Metadata.Namespace == h.cfg.LeaseNamespace && l.Metadata.Name == h.cfg.LeaseName {
			s.Lease = leaseView(l)
		}
	}
	if s.Custom, err = h.customAt(list); err != nil {
		return nil, err
	}
	if h.cfg.Instances != nil {
		for _, in := range h.cfg.Instances() {
			v := InstanceView{Identity: in.Identity, Leading: in.Leading, Queues: []QueueView{}}
			for _, q := range in.Queues {
				v.Queues = append(v.Queues, QueueView{Name: q.Name, Depth: q.Depth, InFlight: q.InFlight, Retries: q.Retries, Adds: q.Adds})
			}
			s.Instances = append(s.Instances, v)
		}
	}
	if s.Instances == nil {
		s.Instances = []InstanceView{}
	}
	return s, nil
}

// oldestNow is the oldest revision kept, read again after a list found its
// revision compacted meanwhile.
func (h *Handler) oldestNow() int64 {
	oldest, _ := h.window()
	return oldest
}

// podInfo is one pod as read once for every group it is drawn in.
type podInfo struct {
	pod *api.Pod
	// status is kubectl's STATUS; state the pod's letter in a grid.
	status string
	state  rune
	ready  bool
}

// readPods reads each pod's status and state once.
func readPods(pods []api.Object) []podInfo {
	out := make([]podInfo, len(pods))
	for i, o := range pods {
		p := o.(*api.Pod)
		status := api.PodStatusReason(p)
		out[i] = podInfo{pod: p, status: status, state: podState(p, status), ready: api.IsPodReady(p)}
	}
	return out
}

// view is the pod as the page lists it.
func (p *podInfo) view() PodView {
	_, _, restarts := api.PodReadiness(p.pod)
	return PodView{
		Namespace: p.pod.Metadata.Namespace, Name: p.pod.Metadata.Name, Phase: string(p.pod.Status.Phase),
		Status: p.status, Ready: p.ready, Restarts: restarts, State: string(p.state),
		IP: p.pod.Status.PodIP, Node: p.pod.Spec.NodeName,
	}
}

// podState is a pod's colour: terminating, done (Succeeded) or failing
// (Failed, or a STATUS that says a container is stuck), else ready,
// running or pending by its phase and readiness.
func podState(p *api.Pod, status string) rune {
	switch {
	case p.Metadata.DeletionTimestamp != nil:
		return stateTerminating
	case p.Status.Phase == api.PodSucceeded:
		return stateDone
	case p.Status.Phase == api.PodFailed || !onItsWay(status):
		return stateFailing
	case api.IsPodReady(p):
		return stateReady
	case p.Status.Phase == api.PodRunning:
		return stateRunning
	}
	return statePending
}

// onItsWay says whether a STATUS is one a healthy pod shows on its way to
// running or while it runs; any other (CrashLoopBackOff, ErrImagePull,
// ImagePullBackOff, Error, OOMKilled, Init:Error, ...) means it is stuck.
func onItsWay(status string) bool {
	switch status {
	case string(api.PodPending), string(api.PodRunning), "ContainerCreating", "PodInitializing", "NotReady", "Completed":
		return true
	}
	n, ok := strings.CutPrefix(status, "Init:")
	return ok && n != "" && n[0] >= '0' && n[0] <= '9' // Init:1/2
}

// add counts one pod in c.
func (c *PodCounts) add(p *podInfo) {
	c.Total++
	if p.ready {
		c.Ready++
	}
	c.Status[p.status]++
}

// groupBuilder gathers a PodGroup from pods added in name order.
type groupBuilder struct {
	group PodGroup
	grid  []byte
}

func newGroup() *groupBuilder {
	return &groupBuilder{group: PodGroup{Counts: PodCounts{Status: map[string]int{}}, Listed: []PodView{}}}
}

func (b *groupBuilder) add(p *podInfo) {
	b.group.Counts.add(p)
	b.grid = append(b.grid, byte(p.state))
	if len(b.group.Listed) < maxListedPods {
		b.group.Listed = append(b.group.Listed, p.view())
	}
}

func (b *groupBuilder) done() PodGroup {
	b.group.Grid = string(b.grid)
	return b.group
}

// nodeViews groups pods (in key order, so by namespace and name) under
// their nodes; pods on no node, or on a node that does not exist, go
// under a last entry named "". It returns the nodes and the counts of
// every pod.
func nodeViews(nodes []api.Object, pods []podInfo) ([]NodeView, PodCounts) {
	views := make([]NodeView, 0, len(nodes)+1)
	groups := make([]*groupBuilder, 0, len(nodes)+1)
	index := make(map[string]int, len(nodes)+1)
	for _, o := range nodes {
		n := o.(*api.Node)
		index[n.Metadata.Name] = len(views)
		views = append(views, NodeView{Name: n.Metadata.Name, Ready: nodeReady(n)})
		groups = append(groups, newGroup())
	}
	total := PodCounts{Status: map[string]int{}}
	for i := range pods {
		p := &pods[i]
		at, ok := index[p.pod.Spec.NodeName]
		if !ok {
			if at, ok = index[""]; !ok {
				at = len(views)
				index[""] = at
				views = append(views, NodeView{})
				groups = append(groups, newGroup())
			}
		}
		groups[at].add(p)
		total.add(p)
	}
	for i := range views {
		views[i].PodGroup = groups[i].done()
	}
	return views, total
}

func nodeReady(n *api.Node) bool {
	for _, c := range n.Status.Conditions {
		if c.Type == api.NodeReady {
			return c.Status == api.ConditionTrue
		}
	}
	return false
}

// serviceViews pairs each service with its Endpoints of the same name.
func serviceViews(svcs, eps, endpointSlices []api.Object) []ServiceView {
	byKey := make(map[string]*api.Endpoints, len(eps))
	for _, o := range eps {
		e := o.(*api.Endpoints)
		byKey[api.KeyOf(&e.Metadata)] = e
	}
	slicesOf := map[string][]SliceView{} // service key → its slices, in name order (the list's)
	for _, o := range endpointSlices {
		es := o.(*api.EndpointSlice)
		svc := es.Metadata.Labels[endpointslice.LabelServiceName]
		if svc == "" {
			continue
		}
		slicesOf[es.Metadata.Namespace+"/"+svc] = append(slicesOf[es.Metadata.Namespace+"/"+svc], sliceView(es))
	}
	out := []ServiceView{}
	for _, o := range svcs {
		svc := o.(*api.Service)
		v := ServiceView{Namespace: svc.Metadata.Namespace, Name: svc.Metadata.Name, ClusterIP: svc.Spec.ClusterIP, Ready: []AddressView{}, NotReady: []AddressView{},
			Slices: slicesOf[api.KeyOf(&svc.Metadata)]}
		if v.Slices == nil {
			v.Slices = []SliceView{}
		}
		if e := byKey[api.KeyOf(&svc.Metadata)]; e != nil {
			for _, sub := range e.Subsets {
				v.Ready = appendAddresses(v.Ready, sub.Addresses)
				v.NotReady = appendAddresses(v.NotReady, sub.NotReadyAddresses)
			}
		}
		slices.SortFunc(v.Ready, func(a, b AddressView) int { return cmp.Compare(a.IP, b.IP) })
		slices.SortFunc(v.NotReady, func(a, b AddressView) int { return cmp.Compare(a.IP, b.IP) })
		out = append(out, v)
	}
	return out
}

// sliceView counts a slice's endpoints by their conditions; a condition
// left unset counts as true for ready and serving, as consumers read it.
func sliceView(es *api.EndpointSlice) SliceView {
	v := SliceView{Name: es.Metadata.Name, ManagedBy: es.Metadata.Labels[endpointslice.LabelManagedBy], Endpoints: len(es.Endpoints)}
	for _, e := range es.Endpoints {
		c := e.Conditions
		if c.Ready == nil || *c.Ready {
			v.Ready++
		}
		if c.Serving == nil || *c.Serving {
			v.Serving++
		}
		if c.Terminating != nil && *c.Terminating {
			v.Terminating++
		}
	}
	return v
}

func appendAddresses(dst []AddressView, addrs []api.EndpointAddress) []AddressView {
	for _, a := range addrs {
		v := AddressView{IP: a.IP}
		if a.TargetRef != nil {
			v.Pod = a.TargetRef.Name
		}
		dst = append(dst, v)
	}
	return dst
}

func leaseView(l *api.Lease) *LeaseView {
	v := &LeaseView{Namespace: l.Metadata.Namespace, Name: l.Metadata.Name}
	v.Revision, _ = strconv.ParseInt(l.Metadata.ResourceVersion, 10, 64)
	if l.Spec.HolderIdentity != nil {
		v.Holder = *l.Spec.HolderIdentity
	}
	if l.Spec.LeaseTransitions != nil {
		v.Transitions = *l.Spec.LeaseTransitions
	}
	if l.Spec.RenewTime != nil {
		v.RenewTime = l.Spec.RenewTime.Time
	}
	if l.Spec.AcquireTime != nil {
		v.AcquireTime = l.Spec.AcquireTime.Time
	}
	return v
}
