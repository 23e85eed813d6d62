package nodesim

import (
	"context"
	"fmt"
	"net/netip"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/api/apierrors"
	"github.com/miniplane/miniplane/client"
	"github.com/miniplane/miniplane/client/record"
)

// conflictRecheck is when a pod whose write met a Conflict is looked at
// again, in case no newer version comes: a write can be refused with 409
// without the pod having changed (the simulator's Conflict fault, an
// apiserver precondition), and then no event would ever queue it. A newer
// version that does come queues it sooner; the later add is then a no-op
// sync.
const conflictRecheck = time.Second

// runPod is the kubelet for one pod bound to a node: observe the pod and
// its node, decide, act.
// st is the pod's state as sync looked it up (nil if none).
func (c *Controller) runPod(ctx context.Context, key string, st *podState, pod *api.Pod) error {
	now := c.clock.Now()

	// st is looked up once per sync: the state map holds every pod, so
	// each lookup is a cache miss. Only this key's sync forgets it (the
	// pod handler drops an entry only when the kubelet holds nothing of
	// the pod, and this sync marks it seen), and the queue never hands one
	// key to two workers, so st stays the pod's while this sync runs;
	// c.mu still guards its fields.
	c.mu.Lock()
	node, rec := c.nodeLocked(st, pod.Spec.NodeName)
	if node == nil {
		c.mu.Unlock()
		return nil // no such node: no kubelet runs this pod
	}
	st = c.liveLocked(key, st)
	if st.ips == nil {
		st.ips = rec
	}
	st.ownRV = "" // this sync sees the pod as it is, whatever wrote it
	if ip := pod.Status.PodIP; ip != "" && !st.addr.IsValid() {
		c.claimIPLocked(st, key, pod.Spec.NodeName, ip) // e.g. after a restart of the simulator
	}
	facts := c.observeLocked(&st.kubeletState, pod, node, rec, now)
	if facts.NodeDown && finished(pod) {
		st.logs.end() // failed by the node lifecycle (NodeLost): this kubelet writes nothing more
	}
	if st.kind == kindUnknown {
		st.kind = c.kindOfLocked(pod)
	}
	if st.kind == kindPlain && len(pod.Spec.EphemeralContainers) > 0 && pod.Status.HostIP != "" &&
		!finished(pod) && pod.Metadata.DeletionTimestamp == nil {
		st.kind = kindLife // ephemeral containers run on the life path
		c.lives[key] = adoptedLife(pod, c.cfg.Images, now)
	}
	hip := rec.hostIPOf(node) // read under mu, as the record is
	krec := c.kubeletRecorderLocked(rec)
	if !facts.NodeDown && c.portsRejected(pod) {
		c.mu.Unlock()
		return c.reject(ctx, pod, hip, krec, reasonNodePorts, messageNodePorts)
	}
	if msg := c.sysctlForbidden(pod); msg != "" && !facts.NodeDown {
		c.mu.Unlock()
		return c.reject(ctx, pod, hip, krec, reasonSysctlForbidden, msg)
	}
	if onLifePath(&st.kubeletState, pod, facts) {
		c.mu.Unlock()
		return c.runLife(ctx, key, st, pod, node, facts, hip, krec)
	}
	act, wait := decide(pod, facts)
	if act == actStart && st.kind == kindLife {
		act = actAccept // a pod on the life path starts there, once accepted
	}
	c.mu.Unlock()
	if wait > 0 {
		c.queue.AddAfter(key, wait) // the queue keeps the earlier of two times
	}
	if st.kind == kindLife && pod.Metadata.DeletionTimestamp != nil && !facts.NodeDown {
		c.tellKilling(ctx, key, pod, krec)
	}
	if act == actNone {
		return nil
	}
	// Logs on the per-pod path are checked first: a call with fields
	// allocates them even when the level is off.
	if ce := c.log.Check(zap.DebugLevel, "kubelet"); ce != nil {
		ce.Write(zap.String("pod", key), zap.Stringer("action", act))
	}

	if act == actConfirmDelete {
		return c.confirmDelete(ctx, key, st, pod, now)
	}
	// The new status is built in the carrier's buffer, published (made of
	// immutable pieces, shared with the old status and other pods' where
	// equal: share.go) and handed over (client.Handover): the server
	// stores it as published, and nothing changes it after. The carrier's
	// shallow copy of the pod carries it: a status update keeps only the
	// status, so the cached pod stays untouched, and the carrier is lent
	// for this write and what follows it only.
	cr := c.carriers.lend()
	defer c.carriers.giveBack(cr)
	b := &cr.buf
	var status api.PodStatus
	switch act {
	case actAccept:
		status = acceptedStatus(b, pod, hip, now)
	case actStart:
		ip, err := c.allocateIP(st, key, node)
		if err != nil {
			c.event(ctx, krec, pod, api.EventTypeWarning, "FailedCreatePodSandBox", "no IP for the pod: %v", err)
			return err
		}
		status = startedStatus(b, pod, hip, ip, now)
		if readyOnStart(pod, facts) {
			markReady(&status, now)
		}
	case actReady:
		status = readyStatus(b, pod, now)
	case actProbeFail:
		status = probeFailedStatus(b, pod, now)
	case actCrash:
		status = crashedStatus(b, pod, now)
	case actRestart:
		status = restartedStatus(b, pod, now)
		if readyOnStart(pod, facts) {
			markReady(&status, now)
		}
	case actDeadline:
		status = deadlineStatus(b, pod, now)
	case actStop:
		status = stoppedStatus(b, pod, now)
	}
	cp := cr.carry(pod, b.publish(&pod.Status, status))
	written, err := c.client.UpdateStatus(ctx, cp, cr.handover()...)
	if err != nil {
		if apierrors.IsNotFound(err) {
			return nil
		}
		// A Conflict too is retried after the queue's backoff, as the
		// kubelet's status manager writes a status again at its next sync
		// whatever failed: when the cache is behind, the newer version's
		// delivery queues the pod sooner, but a refused write says
		// nothing, and no delivery would come to wake the pod.
		return fmt.Errorf("nodesim: %s %s: %w", act, key, err)
	}
	// What the kubelet remembers of the write, the lines it logs and the
	// sync it foresees are one lock hold; then it tells the story.
	c.mu.Lock()
	c.afterWriteLocked(st, cp, act, now)
	var next time.Duration
	if w, ok := written.(*api.Pod); ok {
		next = c.foreseeLocked(st, w, node, rec, now)
	}
	c.mu.Unlock()
	if next > 0 {
		c.queue.AddAfter(key, next)
	}
	c.tell(ctx, krec, key, cp, act)
	return nil
}

// observeLocked is what a sync learns from the pod and its node, and the
// node's record (both as nodeLocked returned them): it moves st to the
// pod's stage (since now, if the stage is new) and returns the facts
// decide needs.
func (c *Controller) observeLocked(st *kubeletState, pod *api.Pod, node *api.Node, rec *nodeIPs, now time.Time) podFacts {
	if stage := stageOf(pod); !st.seen || st.stage != stage {
		st.seen, st.stage, st.since = true, stage, now
	}
	if pod.Status.Phase != api.PodRunning {
		st.crash = false // only a running pod can crash
	}
	return podFacts{
		Now: now, Since: st.since, NodeDown: c.recordDownLocked(node, rec),
		WantReady: st.want, CrashRequested: st.crash,
		StartDelay: c.cfg.StartDelay, ReadyDelay: c.cfg.ReadyDelay,
		TerminationDelay: c.terminationDelay(pod),
	}
}

// foresee spares the sync that the delivery of the kubelet's own
// write, written, would queue, when that sync could do nothing now: decide
// would find no action, and either nothing waiting on time or, the stage
// being the one it had, a time to come back at, which foresee returns for
// its caller to ask the queue for (AddAfter) once mu is released, as that
// sync would have. It then does now what that sync would have remembered
// (observeLocked) and notes the written version, whose delivery the pod
// handler does not queue. When the stage is new the sync would have dated
// it at its own time, later than now; that date is read only by a decision
// that waits on time, so it may be now only when none does. Its caller
// holds mu.
func (c *Controller) foreseeLocked(st *podState, written *api.Pod, node *api.Node, rec *nodeIPs, now time.Time) time.Duration {
	if st.kind == kindLife {
		return 0 // the life path's syncs are not foreseen: every write is synced
	}
	if ip := written.Status.PodIP; ip != "" && !st.addr.IsValid() {
		return 0 // the sync would claim the address
	}
	next := st.kubeletState
	was := next.stage
	act, wait := decide(written, c.observeLocked(&next, written, node, rec, now))
	if act != actNone || (wait > 0 && next.stage != was) {
		return 0
	}
	st.kubeletState = next
	st.ownRV = written.Metadata.ResourceVersion
	return wait
}

// carrier is what carries one write: for a status write, a shallow copy
// of the cached pod with the new status, and the buffer the status is built
// in; for the kubelet's confirmation of a deletion, what its options point
// at. The Client keeps none of it but a handed-over status, which is
// published (statusBuf.publish) out of the buffer's scratch, never in the
// carrier.
type carrier struct {
	pod api.Pod
	buf statusBuf
	// opts holds the options of a status write: client.Handover(), in
	// the carrier so that the variadic argument is no allocation of its
	// own at every write (the Client is an interface: whatever it is
	// given escapes).
	opts [1]client.WriteOption

	grace int64
	uid   api.UID
	pre   api.Preconditions
}

// confirmDeletion returns the options with which the kubelet deletes pod
// once its containers have stopped: grace 0, if it is still the same pod
// (its uid).
func (cr *carrier) confirmDeletion(pod *api.Pod) api.DeleteOptions {
	cr.grace, cr.uid = 0, pod.Metadata.UID
	cr.pre = api.Preconditions{UID: &cr.uid}
	return api.DeleteOptions{GracePeriodSeconds: &cr.grace, Preconditions: &cr.pre}
}

// handover returns the options of a status write that hands its status
// over to the server (client.Handover).
func (cr *carrier) handover() []client.WriteOption {
	cr.opts[0] = client.Handover()
	return cr.opts[:]
}

// carry makes the carrier's pod a shallow copy of pod with status, and
// returns it.
func (cr *carrier) carry(pod *api.Pod, status api.PodStatus) *api.Pod {
	cr.pod = *pod
	cr.pod.Status = status
	return &cr.pod
}

// carriers lends the carriers of status writes. A pod is large, and the
// kubelet writes every pod's status twice; a status update keeps only the
// status (published out of the buffer: share.go), never the carrier's pod,
// so one carrier can serve write after write. share, if set, is what the
// carriers' buffers publish statuses with.
type carriers struct {
	pool  sync.Pool
	share *statusShare
}

// lend returns a carrier, to give back once the write and what follows it
// (its events, its log lines) are done with what it holds.
func (cs *carriers) lend() *carrier {
	if cr, ok := cs.pool.Get().(*carrier); ok {
		return cr
	}
	cr := new(carrier)
	cr.buf.share = cs.share
	return cr
}

// giveBack takes a carrier back, forgetting what it held.
func (cs *carriers) giveBack(cr *carrier) {
	cr.pod = api.Pod{}
	cr.buf.reset()
	cr.uid, cr.pre = "", api.Preconditions{}
	cs.pool.Put(cr)
}

// afterWriteLocked clears the requests a write has fulfilled and logs
// what it did to the containers; pod is the pod as written, st its state.
// Its caller holds mu.
func (c *Controller) afterWriteLocked(st *podState, pod *api.Pod, act action, now time.Time) {
	if act == actCrash {
		st.crash = false
	}
	if st.want != nil && *st.want && api.IsPodReady(pod) {
		st.want = nil // "ready now" is done; later readiness follows the delays
	}
	logWriteLocked(&st.logs, pod, act, now)
}

// tell tells the story of a write, in the controller's log and the pod's
// events; pod is the pod as written.
func (c *Controller) tell(ctx context.Context, krec *record.EventRecorder, key string, pod *api.Pod, act action) {
	switch act {
	case actStart:
		if ce := c.log.Check(zap.InfoLevel, "pod running"); ce != nil {
			ce.Write(zap.String("pod", key), zap.String("node", pod.Spec.NodeName))
		}
		c.eventMessage(ctx, krec, pod, api.EventTypeNormal, "Started", "Started containers")
	case actReady:
		if ce := c.log.Check(zap.InfoLevel, "pod ready"); ce != nil {
			ce.Write(zap.String("pod", key))
		}
	case actCrash:
		c.log.Info("pod crashed", zap.String("pod", key))
		c.event(ctx, krec, pod, api.EventTypeWarning, "BackOff", "Container exited with code 1")
	case actRestart:
		c.eventMessage(ctx, krec, pod, api.EventTypeNormal, "Started", "Restarted containers")
	case actProbeFail:
		c.event(ctx, krec, pod, api.EventTypeWarning, "Unhealthy", "Readiness probe failed")
	case actStop:
		if ce := c.log.Check(zap.InfoLevel, "pod stopped"); ce != nil {
			ce.Write(zap.String("pod", key), zap.String("phase", string(pod.Status.Phase)))
		}
	case actDeadline:
		c.log.Info("pod failed: active deadline", zap.String("pod", key))
		c.eventMessage(ctx, krec, pod, api.EventTypeNormal, reasonDeadlineExceeded, messageDeadlineExceeded)
	}
}

// confirmDelete is the kubelet's last word on a terminating pod: its
// containers have stopped and its terminal phase is written (actStop), so
// it deletes the pod with grace 0, on condition that it is still the same
// pod; st is its state.
func (c *Controller) confirmDelete(ctx context.Context, key string, st *podState, pod *api.Pod, now time.Time) error {
	cr := c.carriers.lend()
	defer c.carriers.giveBack(cr)
	_, err := c.client.Delete(ctx, client.Pods, pod.Metadata.Namespace, pod.Metadata.Name, cr.confirmDeletion(pod))
	if err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("nodesim: confirm deletion of %s: %w", key, err)
	}
	c.mu.Lock()
	logStopLocked(&st.logs, pod, now)
	c.mu.Unlock()
	if ce := c.log.Check(zap.InfoLevel, "pod deletion confirmed"); ce != nil {
		ce.Write(zap.String("pod", key))
	}
	return nil
}

// terminationDelay is how long the kubelet takes to stop pod's containers.
func (c *Controller) terminationDelay(pod *api.Pod) time.Duration {
	switch d := c.cfg.TerminationDelay; {
	case d > 0:
		return d
	case d < 0:
		return 0
	}
	var grace int64
	if g := pod.Metadata.DeletionGracePeriodSeconds; g != nil {
		grace = *g
	}
	return min(time.Duration(grace)*time.Second, maxTerminationDelay)
}

// stateLocked returns the pod's state, making it if it has none.
func (c *Controller) stateLocked(key string) *podState {
	st, ok := c.state[key]
	if !ok {
		st = &podState{key: key}
		c.state[key] = st
	}
	return st
}

// allocateIP returns the pod's address on node, handing out the lowest free
// one of the node's range the first time; st is the pod's state.
func (c *Controller) allocateIP(st *podState, key string, node *api.Node) (string, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	name := node.Metadata.Name
	n := st.ips // the node's record, which runPod gave st
	if n == nil || n.name != name {
		n = c.nodeIPsLocked(name)
	} else if st.addr.IsValid() {
		return st.addr.String(), nil // a start retried: the same address (kept parsed only)
	}
	addr, err := n.allocate(st, key, node.Spec.PodCIDR)
	if err != nil {
		return "", err
	}
	return addr.String(), nil
}

// claimIPLocked records that the pod under key, whose state is st, holds
// ip on node.
func (c *Controller) claimIPLocked(st *podState, key, node, ip string) {
	addr, err := netip.ParseAddr(ip)
	if err != nil {
		return // not an address this simulator handed out: nothing to hold
	}
	c.nodeIPsLocked(node).hold(st, key, addr)
}

// nodeLocked returns the node named name as the node cache holds it (nil
// if it holds none) and nodesim's record of it; st is the state of a pod
// bound to it, nil if none. The node a sync read last is kept in the
// record, and read from there while the node handler has delivered
// nothing since and nothing waits for it: the cache has not changed then
// (as for pods: keptPodLocked). Nodes change seldom, so a sync seldom
// looks its node up. Its caller holds mu.
func (c *Controller) nodeLocked(st *podState, name string) (*api.Node, *nodeIPs) {
	var rec *nodeIPs
	if st != nil && st.ips != nil && st.ips.name == name {
		rec = st.ips
		if rec.node != nil && rec.gen == c.nodeGen && !c.readCache && c.nodeReg.Pending() == 0 {
			return rec.node, rec
		}
	}
	node, err := c.nodes.Get(name)
	if err != nil {
		return nil, nil
	}
	if rec == nil {
		rec = c.nodeIPsLocked(name)
	}
	rec.setNode(node, c.nodeGen)
	return node, rec
}

// recordDownLocked is nodeDownLocked(node), read from rec, the node's
// record, when it still holds that node (another sync may have read a
// newer one since nodeLocked returned them): the readiness it worked out
// when it read it.
func (c *Controller) recordDownLocked(node *api.Node, rec *nodeIPs) bool {
	if rec.node != node {
		return c.nodeDownLocked(node)
	}
	return c.downLocked(rec.name, rec.ready)
}

// nodeIPsLocked returns what nodesim handed out on node, making it the
// first time.
func (c *Controller) nodeIPsLocked(node string) *nodeIPs {
	n := c.ips[node]
	if n == nil {
		n = &nodeIPs{name: node}
		c.ips[node] = n
	}
	return n
}

// hostIP is the node's first InternalIP.
func hostIP(n *api.Node) string {
	for _, a := range n.Status.Addresses {
		if a.Type == api.NodeInternalIP {
			return a.Address
		}
	}
	return ""
}
