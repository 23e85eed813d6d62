package manager

import (
	"context"
	"fmt"

	"go.uber.org/zap"

	"github.com/miniplane/miniplane/apiserver"
	"github.com/miniplane/miniplane/controllers/endpoints"
	"github.com/miniplane/miniplane/controllers/garbagecollector"
	"github.com/miniplane/miniplane/controllers/nodesim"
	"github.com/miniplane/miniplane/controllers/replication"
)

// DefaultDescriptors registers kube-controller-manager's controllers that
// miniplane has, in the order they are built and started: the replication
// controller, the endpoints controller and the garbage collector. These run
// under leader election (Instance): in one instance at a time.
func DefaultDescriptors() []Descriptor {
	return []Descriptor{
		{Name: ReplicationController, Init: initReplication},
		{Name: Endpoint, Init: initEndpoints},
		{Name: GarbageCollector, Init: initGarbageCollector},
	}
}

// NodeSimDescriptors registers the simulated kubelets and scheduler, which
// need InitContext.Binder. They are not part of kube-controller-manager:
// run them in a Manager of their own, exactly once per cluster and outside
// leader election, as kubelets are processes of their own. A single
// unelected Manager may run append(DefaultDescriptors(),
// NodeSimDescriptors()...) to be the whole control plane at once, as tests
// and benchmarks do.
func NodeSimDescriptors() []Descriptor {
	return []Descriptor{{Name: NodeSim, Init: initNodeSim}}
}

// recorder returns an event recorder for a controller, reporting as
// Kubernetes' controllers do (component name, manager instance).
func (ic InitContext) recorder(component string) *apiserver.EventRecorder {
	return apiserver.NewEventRecorder(ic.Client, ic.Clock, component, ic.Instance)
}

func initReplication(ic InitContext) (Controller, int, error) {
	c, err := replication.New(replication.Config{
		Client: ic.Client, Factory: ic.Factory, Clock: ic.Clock, Logger: ic.Logger,
		Recorder: ic.recorder("replication-controller"), WithoutExpectations: ic.Options.ReplicationWithoutExpectations,
	})
	return c, ic.Options.ConcurrentRCSyncs, err
}

func initEndpoints(ic InitContext) (Controller, int, error) {
	c, err := endpoints.New(endpoints.Config{
		Client: ic.Client, Factory: ic.Factory, Clock: ic.Clock, Logger: ic.Logger,
		Recorder: ic.recorder("endpoint-controller"), BatchPeriod: ic.Options.EndpointUpdatesBatchPeriod,
	})
	return c, ic.Options.ConcurrentEndpointSyncs, err
}

func initGarbageCollector(ic InitContext) (Controller, int, error) {
	c, err := garbagecollector.New(garbagecollector.Config{
		Client: ic.Client, Factory: ic.Factory, Clock: ic.Clock, Logger: ic.Logger,
		Recorder: ic.recorder("garbage-collector-controller"),
	})
	return c, ic.Options.ConcurrentGCSyncs, err
}

func initNodeSim(ic InitContext) (Controller, int, error) {
	if ic.Binder == nil {
		return nil, 0, fmt.Errorf("nodesim needs InitContext.Binder (the API server's pods/binding)")
	}
	c, err := nodesim.New(nodesim.Config{
		Client: ic.Client, Binder: ic.Binder, Factory: ic.Factory, Clock: ic.Clock, Logger: ic.Logger,
		Recorder: ic.recorder("kubelet"), Nodes: ic.Options.Nodes, Scheduler: ic.Options.Scheduler,
	})
	if err != nil {
		return nil, 0, err
	}
	// Real kubelets work in parallel, one per node; five workers stand in.
	return nodeSimRunner{c, ic.Logger, ic.Options.Nodes > 0}, NodeSimWorkers, nil
}

// NodeSimWorkers is how many pods the simulated kubelets handle at once.
const NodeSimWorkers = 5

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
