package manager

import (
	"context"
	"fmt"

	"go.uber.org/zap"

	"github.com/miniplane/miniplane/controllers/nodelifecycle"
	"github.com/miniplane/miniplane/controllers/nodesim"
	"github.com/miniplane/miniplane/controllers/scheduler"
)

// NodeSimDescriptors registers the simulated kubelets, the node lifecycle
// controller and the scheduler (unless Options.Scheduler is
// scheduler.None), which needs
// InitContext.Binder, for this package's tests and benchmarks: an
// unelected Manager running append(DefaultDescriptors(),
// NodeSimDescriptors()...) is the whole control plane at once. They are
// not part of kube-controller-manager, and the binaries run them through
// package plane, once per cluster and outside leader election.
func NodeSimDescriptors() []Descriptor {
	return []Descriptor{{Name: NodeSim, Init: initNodeSim}, {Name: Scheduler, Init: initScheduler}, {Name: NodeLifecycle, Init: initNodeLifecycle}}
}

func initNodeLifecycle(ic InitContext) (Controller, int, error) {
	c, err := nodelifecycle.New(nodelifecycle.Config{
		Client: ic.Client, Factory: ic.Factory, Clock: ic.Clock, Logger: ic.Logger,
		Recorder: ic.recorder(nodelifecycle.Component),
	})
	if err != nil {
		return nil, 0, err
	}
	return c, 1, nil
}

func initScheduler(ic InitContext) (Controller, int, error) {
	if ic.Binder == nil {
		return nil, 0, fmt.Errorf("the scheduler needs InitContext.Binder (the API server's pods/binding)")
	}
	c, err := scheduler.New(scheduler.Config{
		Client: ic.Client, Binder: ic.Binder, Factory: ic.Factory, Clock: ic.Clock, Logger: ic.Logger,
		Recorder: ic.recorder(scheduler.Component),
	})
	if err != nil {
		return nil, 0, err
	}
	if ic.Options.Scheduler == scheduler.None {
		return idle{c}, 1, nil
	}
	return c, 1, nil
}

// idle is a controller that does not run: its Run waits for the end.
type idle struct{ Controller }

func (idle) Run(ctx context.Context, _ int) { <-ctx.Done() }

func initNodeSim(ic InitContext) (Controller, int, error) {
	c, err := nodesim.New(nodesim.Config{
		Client: ic.Client, Factory: ic.Factory, Clock: ic.Clock, Logger: ic.Logger,
		Recorder: ic.recorder("kubelet"), Nodes: ic.Options.Nodes,
	})
	if err != nil {
		return nil, 0, err
	}
	// Real kubelets work in parallel, one per node; five workers stand in.
	return nodeSimRunner{c, ic.Logger, ic.Options.Nodes > 0}, nodeSimWorkers, nil
}

// nodeSimWorkers is how many pods the simulated kubelets handle at once
// (plane.NodeSimWorkers).
const nodeSimWorkers = 5

// nodeSimRunner registers the simulated nodes before running their kubelet,
// as real kubelets register their Node objects when they start.
type nodeSimRunner struct {
	*nodesim.Controller
	log      *zap.Logger
	register bool // false with Options.Nodes 0, which nodesim.Config reads as its default
}

func (r nodeSimRunner) Run(ctx context.Context, workers int) {
	if !r.register {
		r.Controller.Run(ctx, workers)
		return
	}
	if err := r.EnsureNodes(ctx); err != nil && ctx.Err() == nil {
		// The kubelet keeps running: the nodes that exist still work.
		r.log.Error("registering nodes", zap.Error(err))
	}
	r.Controller.Run(ctx, workers)
}
