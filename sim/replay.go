package sim

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"
)

// TraceLine is one line of a trace file, parsed: the fields of Event as
// the trace writes them.
type TraceLine struct {
	Step      int             `json:"step"`
	T         string          `json:"t"`
	Actor     string          `json:"actor"`
	Kind      string          `json:"kind"`
	Key       string          `json:"key,omitempty"`
	Target    string          `json:"target,omitempty"`
	Rev       int64           `json:"rev"`
	Outcome   string          `json:"outcome,omitempty"`
	Queue     *int            `json:"queue,omitempty"`
	Fault     bool            `json:"fault,omitempty"`
	Invariant string          `json:"invariant,omitempty"`
	Objects   []string        `json:"objects,omitempty"`
	Obj       json.RawMessage `json:"obj,omitempty"`
	Folded    int             `json:"folded,omitempty"`
	Detail    string          `json:"detail,omitempty"`
}

// ObjectRef names an object: its kind, namespace and name.
type ObjectRef struct {
	Kind      string `json:"kind"`
	Namespace string `json:"namespace,omitempty"`
	Name      string `json:"name"`
}

// Cause is why a controller wrote: the sync it made the write in.
type Cause struct {
	// Controller is the controller that wrote ("m0/replicationcontroller").
	Controller string `json:"controller"`
	// Key is the key it was syncing, with its kind.
	Key string `json:"key"`
	// Reconcile counts that controller's syncs of Key so far, this one
	// included.
	Reconcile int `json:"reconcile"`
	// TriggerRevision is the revision of the last write, before the
	// sync, to the object Key names or to an object it owns (0 if none).
	TriggerRevision int64 `json:"triggerRevision"`
}

// Row is one timeline row of the replay, one per trace line: the shape
// of the live view's rows, plus what only a trace has (the step, the
// fault mark, the invariant of a violation).
type Row struct {
	Revision int64      `json:"revision"`
	Time     string     `json:"time"`
	Step     int        `json:"step"`
	Verb     string     `json:"verb"`
	Object   *ObjectRef `json:"object,omitempty"`
	Target   string     `json:"target,omitempty"`
	Actor    string     `json:"actor"`
	// Diff lists, for a write, what changed in the object's traced state
	// ("phase: Pending → Running"); a create lists every field.
	Diff      []string `json:"diff,omitempty"`
	Cause     *Cause   `json:"cause,omitempty"`
	Outcome   string   `json:"outcome,omitempty"`
	Fault     bool     `json:"fault,omitempty"`
	Invariant string   `json:"invariant,omitempty"`
	Objects   []string `json:"objects,omitempty"`
	Detail    string   `json:"detail,omitempty"`
	// State is the index in Replay.States of the cluster after this line.
	State int `json:"state"`
}

// PodView is a pod in a cluster snapshot.
type PodView struct {
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
	Phase     string `json:"phase"`
	Ready     bool   `json:"ready"`
	Deleting  bool   `json:"deleting,omitempty"`
	Owner     string `json:"owner,omitempty"`
}

// NodeView is a node and the pods bound to it.
type NodeView struct {
	Name  string    `json:"name"`
	Ready bool      `json:"ready"`
	Pods  []PodView `json:"pods"`
}

// RCView is a replication controller's counts.
type RCView struct {
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
	Desired   int32  `json:"desired"`
	Current   int32  `json:"current"`
	Ready     int32  `json:"ready"`
}

// ServiceView is a service and the pods its Endpoints list.
type ServiceView struct {
	Namespace string   `json:"namespace"`
	Name      string   `json:"name"`
	Endpoints []string `json:"endpoints"`
	NotReady  []string `json:"notReady"`
}

// LeaseView is the controller managers' leader lease.
type LeaseView struct {
	Holder      string `json:"holder"`
	Transitions int32  `json:"transitions"`
}

// QueueView is a controller's queue length after its last sync.
type QueueView struct {
	Controller string `json:"controller"`
	Len        int    `json:"len"`
}

// ComponentView is a faulted component ("m1", "m0/elector",
// "m2/pods") and what is wrong with it.
type ComponentView struct {
	Name  string `json:"name"`
	Fault string `json:"fault"`
}

// ClusterState is the cluster as the live view shows it, rebuilt from a
// trace: nodes with their pods, unscheduled pods, replication
// controllers, services with endpoints, the leader lease, the
// controllers' queues, and the components a fault holds down.
type ClusterState struct {
	Nodes       []NodeView      `json:"nodes"`
	Unscheduled []PodView       `json:"unscheduled"`
	RCs         []RCView        `json:"rcs"`
	Services    []ServiceView   `json:"services"`
	Lease       *LeaseView      `json:"lease,omitempty"`
	Queues      []QueueView     `json:"queues"`
	Faulted     []ComponentView `json:"faulted"`
	// Custom are the custom resources, by key, each with what it owns.
	Custom []CustomView `json:"custom,omitempty"`
}

// CustomView is a custom resource in a cluster snapshot: its generation,
// its controller (Owner, a trace key) and the objects whose controller it
// is (Owns, trace keys: "ConfigMap default/big-config").
type CustomView struct {
	Kind       string   `json:"kind"`
	Namespace  string   `json:"namespace,omitempty"`
	Name       string   `json:"name"`
	Generation int64    `json:"generation"`
	Owner      string   `json:"owner,omitempty"`
	Owns       []string `json:"owns"`
}

// Replay is a trace replayed: its lines, one timeline row per line, and
// the distinct cluster states the rows point to.
type Replay struct {
	Lines  []TraceLine    `json:"lines"`
	Rows   []Row          `json:"rows"`
	States []ClusterState `json:"states"`
	// Violation is the index of the violation line, or -1.
	Violation int `json:"violation"`
}

// maxTraceLine bounds one line of a trace file.
const maxTraceLine = 1 << 20

// ReadTrace parses a trace file, folded or full. A line that is not a
// trace line is an error naming its number.
func ReadTrace(r io.Reader) ([]TraceLine, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), maxTraceLine)
	var out []TraceLine
	for n := 1; sc.Scan(); n++ {
		b := bytes.TrimSpace(sc.Bytes())
		if len(b) == 0 {
			continue
		}
		var l TraceLine
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&l); err != nil {
			return nil, fmt.Errorf("line %d: not a trace line: %v", n, err)
		}
		if l.Actor == "" || l.Kind == "" {
			return nil, fmt.Errorf("line %d: a trace line needs an actor and a kind", n)
		}
		if _, err := time.ParseDuration(l.T); err != nil {
			return nil, fmt.Errorf("line %d: t %q is not a duration", n, l.T)
		}
		if len(l.Obj) > 0 {
			var st ObjState
			if err := json.Unmarshal(l.Obj, &st); err != nil {
				return nil, fmt.Errorf("line %d: obj: %v", n, err)
			}
		}
		out = append(out, l)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("reading the trace: %w", err)
	}
	return out, nil
}

// ReplayTrace replays parsed trace lines into timeline rows and cluster
// states. It needs the write lines' object states ("obj"), which every
// trace written by this package has; lines without them leave the state
// as it was.
func ReplayTrace(lines []TraceLine) *Replay {
	rp := &Replay{Lines: lines, Rows: make([]Row, len(lines)), Violation: -1}
	r := replayer{
		objs: map[string]ObjState{}, queues: map[string]int{}, faulted: map[string]string{},
		lastWrite: map[string]int64{}, reconciles: map[string]int{},
	}
	// A controller's writes come before the sync line of their step:
	// find each step's sync first.
	syncOf := map[int]int{}
	for i, l := range lines {
		if l.Kind == "sync" {
			syncOf[l.Step] = i
		}
	}
	var last []byte
	for i, l := range lines {
		row := Row{Revision: l.Rev, Time: l.T, Step: l.Step, Verb: l.Kind, Actor: l.Actor, Target: l.Target,
			Outcome: l.Outcome, Fault: l.Fault, Invariant: l.Invariant, Objects: l.Objects, Detail: l.Detail}
		if ref, ok := parseRef(l.Key); ok {
			row.Object = &ref
		}
		changed := false // whether the line may change the snapshot
		if len(l.Obj) > 0 && l.Key != "" {
			changed = true
			row.Diff = r.write(l)
			if j, ok := syncOf[l.Step]; ok && lines[j].Actor == l.Actor {
				row.Cause = r.cause(lines[j])
			}
			r.lastWrite[l.Key] = l.Rev
			if st := r.objs[l.Key]; st.Owner != "" {
				r.lastWrite[st.Owner] = l.Rev
			}
		}
		switch {
		case l.Kind == "sync":
			r.reconciles[l.Actor+" "+l.Key]++
			if l.Queue != nil && r.queues[l.Actor] != *l.Queue {
				r.queues[l.Actor] = *l.Queue
				changed = true
			}
			if _, ok := r.queues[l.Actor]; !ok && l.Queue != nil {
				r.queues[l.Actor] = *l.Queue
				changed = true
			}
		case l.Fault && l.Target != "":
			r.faulted[l.Target] = l.Kind
			changed = true
		case l.Kind == "heal" && l.Target != "":
			delete(r.faulted, l.Target)
			changed = true
		case l.Kind == "violation":
			rp.Violation = i
		}
		if changed || len(rp.States) == 0 {
			st := r.snapshot()
			b, _ := json.Marshal(st) // plain data: cannot fail
			if !bytes.Equal(b, last) {
				rp.States = append(rp.States, st)
				last = b
			}
		}
		row.State = len(rp.States) - 1
		rp.Rows[i] = row
	}
	return rp
}

// replayer is ReplayTrace's state between lines.
type replayer struct {
	objs       map[string]ObjState // by key with kind; gone objects removed
	queues     map[string]int      // by controller
	faulted    map[string]string   // component -> fault
	lastWrite  map[string]int64    // key with kind -> revision of its last write (or its pods')
	reconciles map[string]int      // controller + " " + key -> syncs so far
}

// write applies a write line and returns what it changed.
func (r *replayer) write(l TraceLine) []string {
	var st ObjState
	_ = json.Unmarshal(l.Obj, &st) // checked by ReadTrace
	old, existed := r.objs[l.Key]
	if st.Gone {
		delete(r.objs, l.Key)
		return []string{"removed"}
	}
	// A write that changes nothing the trace keeps ("unchanged" or an
	// untraced field) still is a write: its row has no diff.
	r.objs[l.Key] = st
	return diffStates(old, st, existed)
}

func (r *replayer) cause(sync TraceLine) *Cause {
	return &Cause{Controller: sync.Actor, Key: sync.Key, Reconcile: r.reconciles[sync.Actor+" "+sync.Key] + 1,
		TriggerRevision: r.lastWrite[sync.Key]}
}

// diffStates lists the fields of a traced state that differ, as
// "field: old → new" (or "field: new" for a created object).
func diffStates(old, cur ObjState, existed bool) []string {
	var a, b map[string]any
	ab, _ := json.Marshal(old)
	bb, _ := json.Marshal(cur)
	_ = json.Unmarshal(ab, &a)
	_ = json.Unmarshal(bb, &b)
	var keys []string
	for k := range b {
		keys = append(keys, k)
	}
	for k := range a {
		if _, ok := b[k]; !ok {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	var out []string
	for _, k := range keys {
		av, bv := show(a[k]), show(b[k])
		switch {
		case !existed:
			out = append(out, k+": "+bv)
		case av != bv:
			out = append(out, k+": "+av+" → "+bv)
		}
	}
	return out
}

func show(v any) string {
	if v == nil {
		return "-"
	}
	b, _ := json.Marshal(v)
	return strings.Trim(string(b), `"`)
}

// parseRef splits "Pod default/web-1" into an ObjectRef.
func parseRef(key string) (ObjectRef, bool) {
	kind, rest, ok := strings.Cut(key, " ")
	if !ok || kind == "" || rest == "" {
		return ObjectRef{}, false
	}
	ns, name, namespaced := strings.Cut(rest, "/")
	if !namespaced {
		return ObjectRef{Kind: kind, Name: rest}, true
	}
	return ObjectRef{Kind: kind, Namespace: ns, Name: name}, true
}

func (r *replayer) snapshot() ClusterState {
	st := ClusterState{Nodes: []NodeView{}, Unscheduled: []PodView{}, RCs: []RCView{}, Services: []ServiceView{},
		Queues: []QueueView{}, Faulted: []ComponentView{}}
	keys := make([]string, 0, len(r.objs))
	for k := range r.objs {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	nodeAt := map[string]int{}
	for _, k := range keys {
		if ref, _ := parseRef(k); ref.Kind == "Node" {
			nodeAt[ref.Name] = len(st.Nodes)
			st.Nodes = append(st.Nodes, NodeView{Name: ref.Name, Ready: deref(r.objs[k].Ready), Pods: []PodView{}})
		}
	}
	endpoints := map[string]ObjState{}
	owns := map[string][]string{} // owner key -> keys of what it controls, sorted
	for _, k := range keys {
		if o := r.objs[k]; o.Owner != "" {
			owns[o.Owner] = append(owns[o.Owner], k)
		}
	}
	for _, k := range keys {
		o, ref := r.objs[k], must(parseRef(k))
		if o.Custom {
			var gen int64
			if o.Generation != nil {
				gen = *o.Generation
			}
			st.Custom = append(st.Custom, CustomView{Kind: ref.Kind, Namespace: ref.Namespace, Name: ref.Name,
				Generation: gen, Owner: o.Owner, Owns: orEmpty(owns[k])})
		}
		switch ref.Kind {
		case "Pod":
			p := PodView{Namespace: ref.Namespace, Name: ref.Name, Phase: o.Phase, Ready: deref(o.Ready), Deleting: o.Deleting, Owner: o.Owner}
			if i, ok := nodeAt[o.Node]; ok {
				st.Nodes[i].Pods = append(st.Nodes[i].Pods, p)
			} else {
				st.Unscheduled = append(st.Unscheduled, p)
			}
		case "ReplicationController":
			st.RCs = append(st.RCs, RCView{Namespace: ref.Namespace, Name: ref.Name, Desired: deref32(o.Desired, 1),
				Current: deref32(o.Current, 0), Ready: deref32(o.ReadyN, 0)})
		case "Service":
			st.Services = append(st.Services, ServiceView{Namespace: ref.Namespace, Name: ref.Name})
		case "Endpoints":
			endpoints[ref.Namespace+"/"+ref.Name] = o
		case "Lease":
			if ref.Namespace == "kube-system" && ref.Name == "kube-controller-manager" {
				st.Lease = &LeaseView{Holder: o.Holder, Transitions: deref32(o.Transitions, 0)}
			}
		}
	}
	for i, s := range st.Services {
		ep := endpoints[s.Namespace+"/"+s.Name]
		st.Services[i].Endpoints, st.Services[i].NotReady = orEmpty(ep.Endpoints), orEmpty(ep.NotReady)
	}
	for c, n := range r.queues {
		st.Queues = append(st.Queues, QueueView{Controller: c, Len: n})
	}
	slices.SortFunc(st.Queues, func(a, b QueueView) int { return strings.Compare(a.Controller, b.Controller) })
	for c, f := range r.faulted {
		st.Faulted = append(st.Faulted, ComponentView{Name: c, Fault: f})
	}
	slices.SortFunc(st.Faulted, func(a, b ComponentView) int { return strings.Compare(a.Name, b.Name) })
	return st
}

func must(ref ObjectRef, _ bool) ObjectRef { return ref }

func deref(b *bool) bool { return b != nil && *b }

func deref32(p *int32, def int32) int32 {
	if p == nil {
		return def
	}
	return *p
}

func orEmpty(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
