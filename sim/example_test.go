package sim_test

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/api/apierrors"
	"github.com/miniplane/miniplane/client"
	"github.com/miniplane/miniplane/controllers/loop"
	"github.com/miniplane/miniplane/controllers/manager"
	"github.com/miniplane/miniplane/controllers/workqueue"
	"github.com/miniplane/miniplane/informer"
	"github.com/miniplane/miniplane/sim"
)

// agentLabel marks an agent pod with the node it is for.
const agentLabel = "agent-for"

// agentController keeps one agent pod per node, a DaemonSet in miniature,
// written the way a first controller often is: it counts the agents in
// its cache and creates one when it sees none. With checkLive it asks the
// API server before creating, which is the fix.
//
// It is a manager.Controller, as the built-in controllers are: its
// loop.Loop gives it ProcessOne, the step the simulator takes, and Run,
// which the live controller manager would call.
type agentController struct {
	client    client.Client
	nodes     informer.Lister[*api.Node]
	pods      informer.Lister[*api.Pod]
	queue     *workqueue.Queue[string]
	loop      *loop.Loop
	regs      []*informer.Registration
	checkLive bool
}

// agentDescriptor registers the controller, as manager.DefaultDescriptors
// registers the built-in ones.
func agentDescriptor(checkLive bool) manager.Descriptor {
	return manager.Descriptor{Name: "agents", Init: func(ic manager.InitContext) (manager.Controller, int, error) {
		nodeInf, podInf := ic.Factory.ForResource(client.Nodes), ic.Factory.ForResource(client.Pods)
		c := &agentController{
			client:    ic.Client,
			nodes:     informer.NewLister[*api.Node](nodeInf, apierrors.GroupResource{Resource: client.Nodes}),
			pods:      informer.NewLister[*api.Pod](podInf, apierrors.GroupResource{Resource: client.Pods}),
			queue:     workqueue.New(workqueue.Config[string]{Name: "agents", Clock: ic.Clock}),
			checkLive: checkLive,
		}
		var err error
		c.loop, err = loop.New(loop.Config{
			Name: "agents", Queue: c.queue, Sync: c.sync, Informers: []*informer.Informer{nodeInf, podInf}, Logger: ic.Logger,
		})
		if err != nil {
			return nil, 0, err
		}
		node := func(obj api.Object) { c.queue.Add(obj.GetObjectMeta().Name) }
		agent := func(obj api.Object) {
			if n := obj.GetObjectMeta().Labels[agentLabel]; n != "" {
				c.queue.Add(n)
			}
		}
		c.regs = append(c.regs,
			// Every 10s the controller looks at every node again.
			nodeInf.AddEventHandler(informer.HandlerFuncs{
				AddFunc:    func(obj api.Object, _ bool) { node(obj) },
				UpdateFunc: func(_, obj api.Object) { node(obj) },
			}, 10*time.Second),
			podInf.AddEventHandler(informer.HandlerFuncs{
				AddFunc:    func(obj api.Object, _ bool) { agent(obj) },
				UpdateFunc: func(_, obj api.Object) { agent(obj) },
				DeleteFunc: func(obj any) {
					if o, _ := informer.DeletedObject(obj); o != nil {
						agent(o)
					}
				},
			}, 0))
		return c, 1, nil
	}}
}

func (c *agentController) HasSynced() bool {
	for _, r := range c.regs {
		if !r.HasSynced() {
			return false
		}
	}
	return true
}

// Queue lets the simulator see whether the controller has work.
func (c *agentController) Queue() *workqueue.Queue[string] { return c.queue }

func (c *agentController) ProcessOne(ctx context.Context) bool { return c.loop.ProcessOne(ctx) }

func (c *agentController) Run(ctx context.Context, workers int) { c.loop.Run(ctx, workers) }

func (c *agentController) sync(ctx context.Context, node string) error {
	if _, err := c.nodes.Get(node); apierrors.IsNotFound(err) {
		return nil
	}
	sel := api.SelectorFromSet(map[string]string{agentLabel: node})
	agents := c.pods.Namespace("kube-system").List(sel)
	if c.checkLive {
		live, _, err := client.For[*api.Pod](c.client).List(ctx, "kube-system", client.ListOptions{LabelSelector: sel.String()})
		if err != nil {
			return err
		}
		agents = live
	}
	for _, p := range agents {
		if api.IsPodActive(p) {
			return nil
		}
	}
	_, err := c.client.Create(ctx, &api.Pod{
		TypeMeta: api.TypeMeta{APIVersion: "v1", Kind: "Pod"},
		Metadata: api.ObjectMeta{Namespace: "kube-system", GenerateName: "agent-" + node + "-", Labels: map[string]string{agentLabel: node}},
		Spec:     api.PodSpec{Containers: []api.Container{{Name: "agent", Image: "registry.example/agent:1"}}},
	})
	return err
}

// oneAgentPerNode is the controller's promise, checked when the system is
// quiet.
var oneAgentPerNode = sim.Invariant{Name: "one-agent-per-node", Check: func(ctx context.Context, s *sim.Sim) error {
	nodes, _, err := client.For[*api.Node](s.Client()).List(ctx, "", client.ListOptions{})
	if err != nil {
		return err
	}
	for _, n := range nodes {
		sel := api.SelectorFromSet(map[string]string{agentLabel: n.Metadata.Name}).String()
		pods, _, err := client.For[*api.Pod](s.Client()).List(ctx, "kube-system", client.ListOptions{LabelSelector: sel})
		if err != nil {
			return err
		}
		active := 0
		for _, p := range pods {
			if api.IsPodActive(p) {
				active++
			}
		}
		if active != 1 {
			return fmt.Errorf("node %s has %d agents", n.Metadata.Name, active)
		}
	}
	return nil
}}

// runAgents runs the agent controller for five virtual minutes with stale
// caches, while a user deletes a random agent every 20 seconds, and then
// until quiet.
func runAgents(seed uint64, checkLive bool) error {
	ctx := context.Background()
	s, err := sim.New(ctx, sim.Config{
		Seed:        seed,
		Faults:      sim.FaultSet(0).With(sim.StaleCache),
		FaultEvery:  10 * time.Second,
		Controllers: []manager.Descriptor{agentDescriptor(checkLive)},
		Invariants:  []sim.Invariant{oneAgentPerNode},
	})
	if err != nil {
		return err
	}
	for at := 20 * time.Second; at < 5*time.Minute; at += 20 * time.Second {
		s.At(at, func(ctx context.Context) {
			agents, _, err := client.For[*api.Pod](s.Client()).List(ctx, "kube-system", client.ListOptions{LabelSelector: agentLabel})
			if err != nil || len(agents) == 0 {
				return
			}
			p := agents[s.Rand().IntN(len(agents))]
			_, _ = s.Client().Delete(ctx, client.Pods, "kube-system", p.Metadata.Name, api.DeleteOptions{})
		})
	}
	if err := s.RunFor(ctx, 5*time.Minute); err != nil {
		return err
	}
	return s.RunUntilQuiet(ctx, 10*time.Minute)
}

// A controller author adds a tiny controller to the simulated control
// plane and lets the stale-cache fault loose on it: a few seeds in, its
// cache has not yet seen the agent it just created when it looks again,
// and it creates a second. Reading the API server before creating fixes it.
func Example_staleCacheFindsABug() {
	for seed := uint64(1); seed <= 20; seed++ {
		if err := runAgents(seed, false); err != nil {
			v := err.(*sim.Violation)
			// The node it strikes depends on the seeded step order, which
			// every new controller or informer shifts: print what is stable.
			fmt.Printf("seed %d: %s: a node has %s\n", seed, v.Invariant, v.Detail[strings.LastIndex(v.Detail, " has ")+len(" has "):])
			break
		}
	}
	failures := 0
	for seed := uint64(1); seed <= 20; seed++ {
		if runAgents(seed, true) != nil {
			failures++
		}
	}
	fmt.Printf("fixed: %d of 20 seeds fail\n", failures)
	// Output:
	// seed 2: one-agent-per-node: a node has 2 agents
	// fixed: 0 of 20 seeds fail
}
