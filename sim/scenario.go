package sim

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/api/apierrors"
	"github.com/miniplane/miniplane/client"
	"github.com/miniplane/miniplane/controllers/manager"
)

// Scenario is a scripted run: what the user does, and when.
type Scenario struct {
	Name        string
	Description string
	// Setup schedules the user's actions (with Sim.At) that fall within
	// the run's duration.
	Setup func(s *Sim, duration time.Duration)
	// Controllers are run beside the built-in ones (Config.Controllers),
	// the scenario's own operator, and Invariants checked beside
	// Config.Invariants: what that operator promises.
	Controllers []manager.Descriptor
	Invariants  []Invariant
}

// Scenarios returns the scenarios `miniplane sim --scenario` knows, the
// default first.
func Scenarios() []Scenario {
	return []Scenario{
		{Name: "default", Description: "three replication controllers and two services; scaling, a pod crash, a leader crash, a deletion and a new controller", Setup: defaultScenario},
		{Name: "small", Description: "one replication controller and its service, scaled once", Setup: smallScenario},
		{Name: "replicasets", Description: "a replica set with a set-based selector that adopts two orphans, with a disruption budget, and a replication controller beside it; scaling, a pod crash, a leader crash and a cascading deletion", Setup: replicaSetScenario},
		{Name: "daemonsets", Description: "a daemon set on every node rolled out to a new image, a node added mid-rollout, and rolled back to its first template", Setup: daemonSetScenario},
		{Name: "deployments", Description: "a deployment of 5 rolled out to a new image, scaled to 9 mid-rollout, rolled out again and rolled back to its first template", Setup: deploymentScenario},
		{Name: "statefulsets", Description: "a stateful set of 3 with a claim template rolled out to a new image, scaled to 2 and rolled back to its first template", Setup: statefulSetScenario},
		{Name: "jobs", Description: "a job of 6 completions run 2 at a time, a job whose pods fail until its back-off limit, and a job of 4 run all at once", Setup: jobScenario},
		{Name: "gadgets", Description: "a CustomResourceDefinition installed and an operator in miniature keeping a ConfigMap for each of two Gadgets, which the user creates, resizes and deletes (the garbage collector deletes the ConfigMap of the one deleted)", Setup: gadgetScenario,
			Controllers: []manager.Descriptor{GadgetOperator()}, Invariants: []Invariant{GadgetsConverged}},
	}
}

// ScenarioByName returns the scenario called name.
func ScenarioByName(name string) (Scenario, error) {
	var names []string
	for _, sc := range Scenarios() {
		if sc.Name == name {
			return sc, nil
		}
		names = append(names, sc.Name)
	}
	return Scenario{}, fmt.Errorf("unknown scenario %q (known: %s)", name, strings.Join(names, ", "))
}

// userAction schedules a user action at offset at, if it falls within the
// run; a failed action is a violation, since the scenario's requests are
// all valid.
func (s *Sim) userAction(at, duration time.Duration, what string, fn func(ctx context.Context) error) {
	if at >= duration {
		return
	}
	s.At(at, func(ctx context.Context) {
		s.record(Event{Actor: "user", Kind: "action", Detail: what})
		if err := fn(ctx); err != nil {
			s.violate("scenario", fmt.Sprintf("%s: %v", what, err))
		}
	})
}

func defaultScenario(s *Sim, d time.Duration) {
	r := s.Rand()
	nWeb, nAPI, nWorker := 2+r.Int32N(3), 1+r.Int32N(2), 2+r.Int32N(3)
	s.userAction(0, d, "create services web and api", func(ctx context.Context) error {
		return s.createAll(ctx, NewService("default", "web", "web"), NewService("default", "api", "api"))
	})
	s.userAction(0, d, "create controllers web, api and worker", func(ctx context.Context) error {
		return s.createAll(ctx, NewReplicationController("default", "web", nWeb),
			NewReplicationController("default", "api", nAPI), NewReplicationController("default", "worker", nWorker))
	})
	scaleWeb := 1 + r.Int32N(5)
	s.userAction(time.Minute, d, fmt.Sprintf("scale web to %d", scaleWeb), func(ctx context.Context) error {
		return s.Scale(ctx, "default", "web", scaleWeb)
	})
	s.userAction(2*time.Minute, d, "crash a pod", func(ctx context.Context) error {
		if err := s.Inject(ctx, PodCrash); err != nil {
			s.record(Event{Actor: "user", Kind: "action", Detail: "no pod to crash: " + err.Error()})
		}
		return nil
	})
	s.userAction(3*time.Minute, d, "crash the leader", func(context.Context) error {
		if l := s.Leader(); l != "" {
			s.Crash(l, 15*time.Second)
		}
		return nil
	})
	scaleAPI := r.Int32N(4)
	s.userAction(4*time.Minute, d, fmt.Sprintf("scale api to %d", scaleAPI), func(ctx context.Context) error {
		return s.Scale(ctx, "default", "api", scaleAPI)
	})
	s.userAction(5*time.Minute, d, "delete controller worker", func(ctx context.Context) error {
		_, err := s.user.Delete(ctx, client.ReplicationControllers, "default", "worker", api.DeleteOptions{})
		return err
	})
	s.userAction(6*time.Minute, d, "create controller batch", func(ctx context.Context) error {
		return s.createAll(ctx, NewReplicationController("default", "batch", 3))
	})
	s.userAction(8*time.Minute, d, "scale web to 6", func(ctx context.Context) error {
		return s.Scale(ctx, "default", "web", 6)
	})
}

func smallScenario(s *Sim, d time.Duration) {
	s.userAction(0, d, "create service and controller web", func(ctx context.Context) error {
		return s.createAll(ctx, NewService("default", "web", "web"), NewReplicationController("default", "web", 2))
	})
	s.userAction(30*time.Second, d, "scale web to 3", func(ctx context.Context) error {
		return s.Scale(ctx, "default", "web", 3)
	})
}

func replicaSetScenario(s *Sim, d time.Duration) {
	r := s.Rand()
	nWeb := 2 + r.Int32N(3)
	s.userAction(0, d, "create service web, two orphan pods and controller api", func(ctx context.Context) error {
		return s.createAll(ctx, NewService("default", "web", "web"),
			newOrphan("default", "orphan-a"), newOrphan("default", "orphan-b"),
			NewReplicationController("default", "api", 1))
	})
	s.userAction(10*time.Second, d, fmt.Sprintf("create replica set web of %d, which adopts the orphans, and its disruption budget", nWeb), func(ctx context.Context) error {
		return s.createAll(ctx, NewReplicaSet("default", "web", nWeb), newBudget("default", "web"))
	})
	scaleWeb := 1 + r.Int32N(5)
	s.userAction(time.Minute, d, fmt.Sprintf("scale replica set web to %d", scaleWeb), func(ctx context.Context) error {
		return s.ScaleReplicaSet(ctx, "default", "web", scaleWeb)
	})
	s.userAction(90*time.Second, d, "crash a pod", func(ctx context.Context) error {
		if err := s.Inject(ctx, PodCrash); err != nil {
			s.record(Event{Actor: "user", Kind: "action", Detail: "no pod to crash: " + err.Error()})
		}
		return nil
	})
	s.userAction(2*time.Minute, d, "crash the leader", func(context.Context) error {
		if l := s.Leader(); l != "" {
			s.Crash(l, 15*time.Second)
		}
		return nil
	})
	s.userAction(3*time.Minute, d, "scale replica set web to 4", func(ctx context.Context) error {
		return s.ScaleReplicaSet(ctx, "default", "web", 4)
	})
	s.userAction(4*time.Minute, d, "delete replica set web", func(ctx context.Context) error {
		_, err := s.user.Delete(ctx, client.ReplicaSets, "default", "web", api.DeleteOptions{})
		return err
	})
}

// newBudget is a PodDisruptionBudget over the pods labelled app=app that
// lets one of them be unavailable, counted against their controller's
// replicas.
func newBudget(namespace, app string) *api.PodDisruptionBudget {
	return &api.PodDisruptionBudget{
		Metadata: api.ObjectMeta{Namespace: namespace, Name: app},
		Spec: api.PodDisruptionBudgetSpec{
			MaxUnavailable: &api.IntOrString{Type: api.Int, IntVal: 1},
			Selector:       &api.LabelSelector{MatchLabels: map[string]string{"app": app}},
		},
	}
}

func (s *Sim) createAll(ctx context.Context, objs ...api.Object) error {
	for _, o := range objs {
		if _, err := s.user.Create(ctx, o); err != nil {
			return err
		}
	}
	return nil
}

// Scale sets a replication controller's spec.replicas as its user would:
// read, change, write, again on a conflict.
func (s *Sim) Scale(ctx context.Context, namespace, name string, replicas int32) error {
	for {
		obj, err := s.user.Get(ctx, client.ReplicationControllers, namespace, name, client.GetOptions{})
		if err != nil {
			return err
		}
		rc := obj.DeepCopyObject().(*api.ReplicationController)
		rc.Spec.Replicas = &replicas
		_, err = s.user.Update(ctx, rc)
		if !apierrors.IsConflict(err) {
			return err
		}
	}
}

// ScaleReplicaSet sets a replica set's spec.replicas as its user would:
// read, change, write, again on a conflict.
func (s *Sim) ScaleReplicaSet(ctx context.Context, namespace, name string, replicas int32) error {
	for {
		obj, err := s.user.Get(ctx, client.ReplicaSets, namespace, name, client.GetOptions{})
		if err != nil {
			return err
		}
		rs := obj.DeepCopyObject().(*api.ReplicaSet)
		rs.Spec.Replicas = &replicas
		_, err = s.user.Update(ctx, rs)
		if !apierrors.IsConflict(err) {
			return err
		}
	}
}

// NewReplicaSet returns a replica set of replicas pods labelled
// app=<name>, tier=front, whose selector is app=<name> and tier in (front,
// edge), and no canary label.
func NewReplicaSet(namespace, name string, replicas int32) *api.ReplicaSet {
	labels := map[string]string{"app": name, "tier": "front"}
	return &api.ReplicaSet{
		TypeMeta: api.TypeMeta{APIVersion: "apps/v1", Kind: "ReplicaSet"},
		Metadata: api.ObjectMeta{Namespace: namespace, Name: name},
		Spec: api.ReplicaSetSpec{
			Replicas: &replicas,
			Selector: &api.LabelSelector{
				MatchLabels: map[string]string{"app": name},
				MatchExpressions: []api.LabelSelectorRequirement{
					{Key: "tier", Operator: api.LabelSelectorOpIn, Values: []string{"front", "edge"}},
					{Key: "canary", Operator: api.LabelSelectorOpDoesNotExist},
				},
			},
			Template: api.PodTemplateSpec{
				Metadata: api.ObjectMeta{Labels: labels},
				Spec: api.PodSpec{Containers: []api.Container{{
					Name: "app", Image: "registry.example/" + name + ":1",
					Ports: []api.ContainerPort{{ContainerPort: 8080}},
				}}},
			},
		},
	}
}

// newOrphan returns a pod without an owner that NewReplicaSet(namespace,
// "web", ...) selects: an edge pod.
func newOrphan(namespace, name string) *api.Pod {
	return &api.Pod{
		TypeMeta: api.TypeMeta{APIVersion: "v1", Kind: "Pod"},
		Metadata: api.ObjectMeta{Namespace: namespace, Name: name, Labels: map[string]string{"app": "web", "tier": "edge"}},
		Spec: api.PodSpec{Containers: []api.Container{{
			Name: "app", Image: "registry.example/web:1",
			Ports: []api.ContainerPort{{ContainerPort: 8080}},
		}}},
	}
}

// NewReplicationController returns a controller of replicas pods labelled
// app=name, running one container listening on 8080.
func NewReplicationController(namespace, name string, replicas int32) *api.ReplicationController {
	labels := map[string]string{"app": name}
	return &api.ReplicationController{
		TypeMeta: api.TypeMeta{APIVersion: "v1", Kind: "ReplicationController"},
		Metadata: api.ObjectMeta{Namespace: namespace, Name: name, Labels: labels},
		Spec: api.ReplicationControllerSpec{
			Replicas: &replicas,
			Selector: labels,
			Template: &api.PodTemplateSpec{
				Metadata: api.ObjectMeta{Labels: labels},
				Spec: api.PodSpec{Containers: []api.Container{{
					Name: "app", Image: "registry.example/" + name + ":1",
					Ports: []api.ContainerPort{{ContainerPort: 8080}},
				}}},
			},
		},
	}
}

// NewService returns a service on port 80 for the pods labelled app=app,
// sending to their port 8080.
func NewService(namespace, name, app string) *api.Service {
	return &api.Service{
		TypeMeta: api.TypeMeta{APIVersion: "v1", Kind: "Service"},
		Metadata: api.ObjectMeta{Namespace: namespace, Name: name},
		Spec: api.ServiceSpec{
			Selector: map[string]string{"app": app},
			Ports:    []api.ServicePort{{Port: 80, TargetPort: api.FromInt(8080)}},
		},
	}
}

// Result is the outcome of a scenario run.
type Result struct {
	Seed        uint64
	Steps       int
	Virtual     time.Duration
	Fingerprint string
	// Violation is the invariant that failed, or nil.
	Violation *Violation
}

// String returns the summary line `miniplane sim` ends with.
func (r Result) String() string {
	inv := "ok"
	if r.Violation != nil {
		inv = "violated:" + r.Violation.Invariant
	}
	return fmt.Sprintf("seed=%d steps=%d virtual=%v fingerprint=%s invariants=%s", r.Seed, r.Steps, r.Virtual, r.Fingerprint, inv)
}

// RunScenario builds a simulation from cfg, runs the scenario with faults
// for duration, then without new faults until quiet, and returns the
// result. The error is for what is not a violation: a bad config, or ctx
// ending.
func RunScenario(ctx context.Context, cfg Config, sc Scenario, duration time.Duration) (Result, error) {
	cfg.Controllers = append(slices.Clip(cfg.Controllers), sc.Controllers...)
	cfg.Invariants = append(slices.Clip(cfg.Invariants), sc.Invariants...)
	s, err := New(ctx, cfg)
	if err != nil {
		return Result{}, err
	}
	sc.Setup(s, duration)
	err = s.RunFor(ctx, duration)
	if err == nil {
		err = s.RunUntilQuiet(ctx, s.cfg.ConvergeWithin)
	}
	res := Result{Seed: cfg.Seed, Steps: s.Steps(), Virtual: s.Elapsed(), Fingerprint: s.trace.Fingerprint(), Violation: s.violation}
	if err != nil && s.violation == nil {
		return res, err
	}
	if terr := s.trace.Err(); terr != nil {
		return res, fmt.Errorf("sim: writing the trace: %w", terr)
	}
	return res, nil
}
