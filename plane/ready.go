package plane

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"go.uber.org/zap"

	"github.com/miniplane/miniplane/apiserver/httpapi"
	"github.com/miniplane/miniplane/controllers/workqueue"
)

// ReadyChecks are the plane's checks of /readyz, each a fact about one
// part, so that /readyz?verbose says which part is not ready:
//
//	informer-sync                  the simulated kubelets' and scheduler's informers have synced
//	poststarthook/register-nodes   the simulated nodes are registered
//	controller-manager             an instance leads, its controllers synced (only when a controller is on)
//
// A plane whose controllers are all off is ready once the first two pass.
func (p *Plane) ReadyChecks() []httpapi.HealthChecker { return p.checks }

// IsReady reports whether every readiness check passes now.
func (p *Plane) IsReady() bool {
	for _, c := range p.checks {
		if c.Check() != nil {
			return false
		}
	}
	return true
}

func (p *Plane) readyChecks() []httpapi.HealthChecker {
	checks := []httpapi.HealthChecker{
		httpapi.NamedCheck("informer-sync", p.checkInformers),
		httpapi.NamedCheck("poststarthook/register-nodes", p.checkNodesRegistered),
	}
	if len(p.insts) > 0 {
		checks = append(checks, httpapi.NamedCheck("controller-manager", p.checkControllerManager))
	}
	return checks
}

// checkInformers passes once nodesim's informers have synced and handed
// their initial lists to its handlers.
func (p *Plane) checkInformers() error {
	if p.nodes.HasSynced() && (p.sched == nil || p.sched.HasSynced()) && p.life.HasSynced() {
		return nil
	}
	var unsynced []string
	for _, resource := range p.nodeF.Resources() {
		if !p.nodeF.ForResource(resource).HasSynced() {
			unsynced = append(unsynced, resource)
		}
	}
	if len(unsynced) == 0 {
		return errors.New("nodesim's handlers have not had their informers' initial lists")
	}
	return fmt.Errorf("nodesim's informers of %s have not synced", strings.Join(unsynced, ", "))
}

// checkNodesRegistered passes once the simulated nodes exist.
func (p *Plane) checkNodesRegistered() error {
	select {
	case <-p.registered:
		return nil
	default:
	}
	p.mu.Lock()
	err := p.registerErr
	p.mu.Unlock()
	if err != nil {
		return fmt.Errorf("registering %d simulated nodes failed: %w", p.cfg.Options.Nodes, err)
	}
	return fmt.Errorf("registering %d simulated nodes", p.cfg.Options.Nodes)
}

// checkControllerManager passes while some instance leads (or runs
// unelected) with every enabled controller's caches synced.
func (p *Plane) checkControllerManager() error {
	var why error
	for _, in := range p.insts {
		h := in.Health()
		if !h.Leading {
			continue
		}
		if h.Controllers == nil {
			why = fmt.Errorf("%s leads but has not built its controllers", h.Identity)
			continue
		}
		var unsynced []string
		for _, c := range h.Controllers {
			if c.Enabled && !c.Synced {
				unsynced = append(unsynced, c.Name)
			}
		}
		if len(unsynced) == 0 {
			return nil
		}
		why = fmt.Errorf("%s leads but its %s not synced", h.Identity, strings.Join(unsynced, ", "))
	}
	if why != nil {
		return why
	}
	le := p.cfg.Options.LeaderElection
	return fmt.Errorf("no instance holds the lease %s/%s", le.ResourceNamespace, le.ResourceName)
}

// WriteMetrics writes, in Prometheus' text format, what /metrics adds to
// the API server's own: the fault injector's counts, each instance's
// election state and the workqueues of its running controllers, and the
// queues of what runs once per cluster (ClusterQueues), each labelled
// with its own name as the instance.
func (p *Plane) WriteMetrics(w io.Writer) {
	if p.faults != nil {
		p.faults.WriteMetrics(w)
	}
	if len(p.insts) > 0 {
		fmt.Fprintf(w, "# HELP leader_election_master_status 1 if the instance leads the lease, else 0.\n# TYPE leader_election_master_status gauge\n")
	}
	var queues []workqueue.Labeled
	for _, in := range p.insts {
		leading := 0
		if in.Health().Leading {
			leading = 1
		}
		fmt.Fprintf(w, "leader_election_master_status{name=%q,instance=%q} %d\n", p.cfg.Options.LeaderElection.ResourceName, in.Identity(), leading)
		for _, m := range in.QueueMetrics() {
			queues = append(queues, workqueue.Labeled{Labels: fmt.Sprintf("instance=%q", in.Identity()), Metrics: m})
		}
	}
	for _, m := range p.ClusterQueues() {
		queues = append(queues, workqueue.Labeled{Labels: fmt.Sprintf("instance=%q", m.Name), Metrics: m})
	}
	if err := workqueue.WritePrometheus(w, queues); err != nil {
		p.log.Debug("writing workqueue metrics", zap.Error(err))
	}
}

// ClusterQueues are the workqueues, now, of the components the plane runs
// once per cluster beside the controller-manager instances: the simulated
// kubelets' (nodesim), the scheduler's (unless --scheduler=none) and the
// node lifecycle controller's, in that order. Each is named by its
// component.
func (p *Plane) ClusterQueues() []workqueue.MetricsSnapshot {
	out := []workqueue.MetricsSnapshot{p.nodes.Queue().Metrics()}
	if p.sched != nil {
		out = append(out, p.sched.Queue().Metrics())
	}
	return append(out, p.life.Queue().Metrics())
}
