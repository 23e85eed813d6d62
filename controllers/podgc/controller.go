package podgc

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"go.uber.org/zap"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/api/apierrors"
	"github.com/miniplane/miniplane/client"
	"github.com/miniplane/miniplane/clock"
	"github.com/miniplane/miniplane/controllers/loop"
	"github.com/miniplane/miniplane/informer"
)

// DefaultTerminatedPodThreshold is kube-controller-manager's
// --terminated-pod-gc-threshold.
const DefaultTerminatedPodThreshold = 12500

// Client is what the controller reads and writes through. client.Client
// and *apiserver.Server satisfy it.
type Client interface {
	Get(ctx context.Context, resource, namespace, name string, opts client.GetOptions) (api.Object, error)
	UpdateStatus(ctx context.Context, obj api.Object, opts ...client.WriteOption) (api.Object, error)
	Delete(ctx context.Context, resource, namespace, name string, opts api.DeleteOptions) (api.Object, error)
}

// Config configures a Controller. Client, Factory and Clock are required.
type Config struct {
	Client  Client
	Factory *informer.Factory
	// Clock times the sweeps and the quarantine.
	Clock clock.Clock
	// Logger is named "podgc" by New; nil means no logs.
	Logger *zap.Logger
	// TerminatedPodThreshold is how many terminated pods are kept; 0
	// keeps them all.
	TerminatedPodThreshold int
	// Observer, if set, is told of every sync (loop.Observer).
	Observer loop.Observer
}

// Controller is the pod garbage collector. See the package documentation.
type Controller struct {
	client    Client
	clock     clock.Clock
	log       *zap.Logger
	threshold int
	pods      informer.Lister[*api.Pod]
	nodes     informer.Lister[*api.Node]
	// missing is when each node pods are bound to was first seen missing
	// from the cache; only sweep, one at a time, touches it.
	missing map[string]time.Time

	*loop.Controller // Queue, HasSynced, ProcessOne and Run: a manager.Controller
}

// New returns the controller, its first sweep queued. It starts nothing.
func New(cfg Config) (*Controller, error) {
	if err := loop.CheckRequired("podgc", cfg.Client, cfg.Factory, cfg.Clock); err != nil {
		return nil, err
	}
	if cfg.TerminatedPodThreshold < 0 {
		return nil, errors.New("podgc: Config.TerminatedPodThreshold is negative")
	}
	log := loop.Logger(cfg.Logger)
	c := &Controller{
		client: cfg.Client, clock: cfg.Clock, log: log.Named("podgc"), threshold: cfg.TerminatedPodThreshold,
		missing: map[string]time.Time{},
	}
	podInf, nodeInf := cfg.Factory.ForResource(client.Pods), cfg.Factory.ForResource(client.Nodes)
	c.pods = informer.NewLister[*api.Pod](podInf, apierrors.GroupResource{Resource: client.Pods})
	c.nodes = informer.NewLister[*api.Node](nodeInf, apierrors.GroupResource{Resource: client.Nodes})
	var err error
	c.Controller, err = loop.NewPeriodic(loop.PeriodicConfig{
		Name: "podgc", Informers: []*informer.Informer{podInf, nodeInf}, Clock: cfg.Clock, Period: checkPeriod,
		Sweep: c.sweep, Logger: log, Observer: cfg.Observer,
	})
	if err != nil {
		return nil, fmt.Errorf("podgc: %w", err)
	}
	return c, nil
}

// sweep is one round of collection. Kubernetes: gc.
func (c *Controller) sweep(ctx context.Context) error {
	pods := c.pods.List(api.Selector{})
	slices.SortFunc(pods, func(a, b *api.Pod) int { return strings.Compare(api.KeyOf(&a.Metadata), api.KeyOf(&b.Metadata)) })
	p := plan(pods, c.nodes.List(api.Selector{}), c.clock.Now(), c.missing, c.threshold)
	var errs []error
	done := map[api.UID]bool{}
	act := func(d doomed) {
		if done[d.pod.Metadata.UID] {
			return
		}
		done[d.pod.Metadata.UID] = true
		if err := c.failAndDelete(ctx, d); err != nil {
			errs = append(errs, err)
		}
	}
	for _, d := range p.delete {
		act(d)
	}
	for _, node := range p.confirm {
		_, err := c.client.Get(ctx, client.Nodes, "", node, client.GetOptions{})
		if err == nil {
			continue // the cache is behind: the node exists
		}
		if !apierrors.IsNotFound(err) {
			errs = append(errs, fmt.Errorf("read node %s: %w", node, err))
			continue
		}
		for _, pod := range p.orphansOn[node] {
			act(doomed{pod, orphaned})
		}
	}
	return errors.Join(errs...)
}

// failAndDelete marks the pod Failed if it is not terminal yet (an orphan
// has no kubelet to do it), with the DisruptionTarget condition for an
// orphan, then deletes it with grace 0. Kubernetes:
// markFailedAndDeletePodWithCondition.
func (c *Controller) failAndDelete(ctx context.Context, d doomed) error {
	pod := d.pod
	key := api.KeyOf(&pod.Metadata)
	if pod.Status.Phase != api.PodSucceeded && pod.Status.Phase != api.PodFailed {
		failed := pod.DeepCopy()
		failed.Status.Phase = api.PodFailed
		if d.why == orphaned {
			setCondition(&failed.Status, api.PodCondition{
				Type: "DisruptionTarget", Status: api.ConditionTrue, Reason: "DeletionByPodGC",
				Message: "PodGC: node no longer exists", LastTransitionTime: api.NewTime(c.clock.Now()),
			})
		}
		if _, err := c.client.UpdateStatus(ctx, failed); err != nil {
			if apierrors.IsNotFound(err) {
				return nil
			}
			return fmt.Errorf("mark pod %s failed: %w", key, err)
		}
	}
	zero := int64(0)
	uid := pod.Metadata.UID
	_, err := c.client.Delete(ctx, client.Pods, pod.Metadata.Namespace, pod.Metadata.Name,
		api.DeleteOptions{GracePeriodSeconds: &zero, Preconditions: &api.Preconditions{UID: &uid}})
	if err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("delete pod %s: %w", key, err)
	}
	c.log.Info("force-deleted pod", zap.String("pod", key), zap.String("why", d.why.String()))
	return nil
}

// setCondition sets cond in st, replacing one of its type; the transition
// time is kept when the status does not change. Kubernetes:
// UpdatePodCondition.
func setCondition(st *api.PodStatus, cond api.PodCondition) {
	for i := range st.Conditions {
		if st.Conditions[i].Type == cond.Type {
			if st.Conditions[i].Status == cond.Status {
				cond.LastTransitionTime = st.Conditions[i].LastTransitionTime
			}
			st.Conditions[i] = cond
			return
		}
	}
	st.Conditions = append(st.Conditions, cond)
}

func (w why) String() string {
	switch w {
	case terminated:
		return "terminated pods above the threshold"
	case orphaned:
		return "its node no longer exists"
	case terminatingOutOfService:
		return "terminating on an out-of-service node"
	default:
		return "terminating and never scheduled"
	}
}
