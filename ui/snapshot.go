package ui

import (
	"cmp"
	"context"
	"net/http"
	"slices"
	"strconv"
	"time"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/api/apierrors"
	"github.com/miniplane/miniplane/client"
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
	Nodes                  []NodeView     `json:"nodes"`
	Pods                   PodCounts      `json:"pods"`
	ReplicationControllers []RCView       `json:"replicationControllers"`
	Services               []ServiceView  `json:"services"`
	Lease                  *LeaseView     `json:"lease,omitempty"`
	Instances              []InstanceView `json:"instances"`
}

// PodCounts counts pods by what the page colours them by.
type PodCounts struct {
	Total       int `json:"total"`
	Ready       int `json:"ready"`
	Running     int `json:"running"` // running but not ready
	Pending     int `json:"pending"`
	Terminating int `json:"terminating"`
	Done        int `json:"done"` // Succeeded or Failed
}

// Pod states, one letter each in NodeView.Grid.
const (
	stateReady       = 'R'
	stateRunning     = 'r'
	statePending     = 'P'
	stateTerminating = 'T'
	stateDone        = 'D'
)

// NodeView is one node and the pods bound to it.
type NodeView struct {
	Name  string    `json:"name"`
	Ready bool      `json:"ready"`
	Pods  PodCounts `json:"counts"`
	// Grid has one letter per pod, in name order: R ready, r running not
	// ready, P pending, T terminating, D done (see podState).
	Grid string `json:"grid"`
	// Listed are the first maxListedPods pods by name, with Grid's order.
	Listed []PodView `json:"listed"`
}

// PodView is one pod.
type PodView struct {
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
	Phase     string `json:"phase"`
	Ready     bool   `json:"ready"`
	State     string `json:"state"`
	IP        string `json:"ip,omitempty"`
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
}

// ServiceView is one service with its endpoints.
type ServiceView struct {
	Namespace string        `json:"namespace"`
	Name      string        `json:"name"`
	ClusterIP string        `json:"clusterIP,omitempty"`
	Ready     []AddressView `json:"ready"`
	NotReady  []AddressView `json:"notReady"`
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
	nodes, err := list(client.Nodes)
	if err != nil {
		return nil, err
	}
	pods, err := list(client.Pods)
	if err != nil {
		return nil, err
	}
	s.Nodes, s.Pods = nodeViews(nodes, pods)
	rcs, err := list(client.ReplicationControllers)
	if err != nil {
		return nil, err
	}
	for _, o := range rcs {
		s.ReplicationControllers = append(s.ReplicationControllers, rcView(o.(*api.ReplicationController)))
	}
	svcs, err := list(client.Services)
	if err != nil {
		return nil, err
	}
	eps, err := list(client.Endpoints)
	if err != nil {
		return nil, err
	}
	s.Services = serviceViews(svcs, eps)
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
	if s.ReplicationControllers == nil {
		s.ReplicationControllers = []RCView{}
	}
	return s, nil
}

// oldestNow is the oldest revision kept, read again after a list found its
// revision compacted meanwhile.
func (h *Handler) oldestNow() int64 {
	oldest, _ := h.window()
	return oldest
}

// podState is a pod's letter in a node's grid.
func podState(p *api.Pod) rune {
	switch {
	case p.Metadata.DeletionTimestamp != nil:
		return stateTerminating
	case p.Status.Phase == api.PodSucceeded || p.Status.Phase == api.PodFailed:
		return stateDone
	case api.IsPodReady(p):
		return stateReady
	case p.Status.Phase == api.PodRunning:
		return stateRunning
	}
	return statePending
}

// count adds one pod in state to c.
func (c *PodCounts) count(state rune) {
	c.Total++
	switch state {
	case stateReady:
		c.Ready++
	case stateRunning:
		c.Running++
	case statePending:
		c.Pending++
	case stateTerminating:
		c.Terminating++
	case stateDone:
		c.Done++
	}
}

// nodeViews groups pods (in key order, so by namespace and name) under
// their nodes; pods on no node, or on a node that does not exist, go
// under a last entry named "".
func nodeViews(nodes, pods []api.Object) ([]NodeView, PodCounts) {
	views := make([]NodeView, 0, len(nodes)+1)
	index := make(map[string]int, len(nodes)+1)
	for _, o := range nodes {
		n := o.(*api.Node)
		index[n.Metadata.Name] = len(views)
		views = append(views, NodeView{Name: n.Metadata.Name, Ready: nodeReady(n), Listed: []PodView{}})
	}
	grids := make([][]byte, len(views)+1)
	var total PodCounts
	for _, o := range pods {
		p := o.(*api.Pod)
		i, ok := index[p.Spec.NodeName]
		if !ok {
			i, ok = index[""]
			if !ok {
				i = len(views)
				index[""] = i
				views = append(views, NodeView{Listed: []PodView{}})
			}
		}
		state := podState(p)
		v := &views[i]
		v.Pods.count(state)
		total.count(state)
		if i >= len(grids) {
			grids = append(grids, nil)
		}
		grids[i] = append(grids[i], byte(state))
		if len(v.Listed) < maxListedPods {
			v.Listed = append(v.Listed, PodView{
				Namespace: p.Metadata.Namespace, Name: p.Metadata.Name, Phase: string(p.Status.Phase),
				Ready: api.IsPodReady(p), State: string(state), IP: p.Status.PodIP,
			})
		}
	}
	for i := range views {
		views[i].Grid = string(grids[i])
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

func rcView(rc *api.ReplicationController) RCView {
	desired := int32(1)
	if rc.Spec.Replicas != nil {
		desired = *rc.Spec.Replicas
	}
	return RCView{
		Namespace: rc.Metadata.Namespace, Name: rc.Metadata.Name, Desired: desired,
		Current: rc.Status.Replicas, Ready: rc.Status.ReadyReplicas,
		Generation: rc.Metadata.Generation, Observed: rc.Status.ObservedGeneration,
	}
}

// serviceViews pairs each service with its Endpoints of the same name.
func serviceViews(svcs, eps []api.Object) []ServiceView {
	byKey := make(map[string]*api.Endpoints, len(eps))
	for _, o := range eps {
		e := o.(*api.Endpoints)
		byKey[api.KeyOf(&e.Metadata)] = e
	}
	out := []ServiceView{}
	for _, o := range svcs {
		svc := o.(*api.Service)
		v := ServiceView{Namespace: svc.Metadata.Namespace, Name: svc.Metadata.Name, ClusterIP: svc.Spec.ClusterIP, Ready: []AddressView{}, NotReady: []AddressView{}}
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
