package tainteviction

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"

	"go.uber.org/zap"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/api/apierrors"
	"github.com/miniplane/miniplane/client"
	"github.com/miniplane/miniplane/client/record"
	"github.com/miniplane/miniplane/clock"
	"github.com/miniplane/miniplane/controllers/loop"
	"github.com/miniplane/miniplane/controllers/workqueue"
	"github.com/miniplane/miniplane/informer"
)

// nodePrefix marks a node's key in the queue; a pod's is namespace/name,
// and no namespace holds a colon.
const nodePrefix = "node:"

// Client is what the controller writes through. client.Client and
// *apiserver.Server satisfy it.
type Client interface {
	UpdateStatus(ctx context.Context, obj api.Object, opts ...client.WriteOption) (api.Object, error)
	Delete(ctx context.Context, resource, namespace, name string, opts api.DeleteOptions) (api.Object, error)
}

// Config configures a Controller. Client, Factory and Clock are required.
type Config struct {
	Client  Client
	Factory *informer.Factory
	// Clock times the evictions.
	Clock clock.Clock
	// Logger is named "tainteviction" by New; nil means no logs.
	Logger *zap.Logger
	// Recorder records the TaintManagerEviction events; nil records none.
	Recorder *record.EventRecorder
	// Observer, if set, is told of every sync (loop.Observer).
	Observer loop.Observer
}

// Controller is the taint eviction controller. See the package
// documentation.
type Controller struct {
	client   Client
	clock    clock.Clock
	log      *zap.Logger
	recorder *record.EventRecorder
	pods     informer.Lister[*api.Pod]
	nodes    informer.Lister[*api.Node]
	queue    *workqueue.Queue[string]
	regs     []*informer.Registration

	mu      sync.Mutex
	pending map[string]pending // by pod key

	*loop.Loop // HasSynced, ProcessOne and Run: a manager.Controller
}

// New returns the controller. It starts nothing.
func New(cfg Config) (*Controller, error) {
	if err := loop.CheckRequired("tainteviction", cfg.Client, cfg.Factory, cfg.Clock); err != nil {
		return nil, err
	}
	log := loop.Logger(cfg.Logger)
	c := &Controller{
		client: cfg.Client, clock: cfg.Clock, log: log.Named("tainteviction"), recorder: cfg.Recorder,
		queue:   loop.NewQueue("tainteviction", cfg.Clock, nil),
		pending: map[string]pending{},
	}
	podInf, nodeInf := cfg.Factory.ForResource(client.Pods), cfg.Factory.ForResource(client.Nodes)
	c.pods = informer.NewLister[*api.Pod](podInf, apierrors.GroupResource{Resource: client.Pods})
	c.nodes = informer.NewLister[*api.Node](nodeInf, apierrors.GroupResource{Resource: client.Nodes})
	c.regs = []*informer.Registration{
		podInf.AddEventHandler(informer.HandlerFuncs{
			AddFunc:    func(obj api.Object, _ bool) { c.podChanged(nil, obj.(*api.Pod)) },
			UpdateFunc: func(old, obj api.Object) { c.podChanged(old.(*api.Pod), obj.(*api.Pod)) },
			DeleteFunc: func(obj any) {
				if o, _ := informer.DeletedObject(obj); o != nil {
					c.queue.Add(informer.KeyOf(o))
				}
			},
		}, 0),
		nodeInf.AddEventHandler(informer.HandlerFuncs{
			AddFunc:    func(obj api.Object, _ bool) { c.nodeChanged(nil, obj.(*api.Node)) },
			UpdateFunc: func(old, obj api.Object) { c.nodeChanged(old.(*api.Node), obj.(*api.Node)) },
			DeleteFunc: func(obj any) {
				if o, _ := informer.DeletedObject(obj); o != nil {
					c.queue.Add(nodePrefix + o.GetObjectMeta().Name)
				}
			},
		}, 0),
	}
	var err error
	c.Loop, err = loop.New(loop.Config{
		Name: "tainteviction", Queue: c.queue, Sync: c.sync, Logger: c.log,
		Informers: []*informer.Informer{podInf, nodeInf}, Registrations: c.regs,
		Observer: cfg.Observer, Clock: cfg.Clock,
	})
	if err != nil {
		return nil, fmt.Errorf("tainteviction: %w", err)
	}
	return c, nil
}

// podChanged queues a bound pod when what decide reads of it changed.
func (c *Controller) podChanged(old, pod *api.Pod) {
	if pod.Spec.NodeName == "" {
		return
	}
	if old != nil && old.Spec.NodeName == pod.Spec.NodeName && slices.Equal(old.Spec.Tolerations, pod.Spec.Tolerations) &&
		(old.Metadata.DeletionTimestamp == nil) == (pod.Metadata.DeletionTimestamp == nil) {
		return
	}
	c.queue.Add(api.KeyOf(&pod.Metadata))
}

// nodeChanged queues a node whose NoExecute taints changed.
func (c *Controller) nodeChanged(old, node *api.Node) {
	taints := noExecuteTaints(node.Spec.Taints)
	if old == nil && len(taints) == 0 {
		return
	}
	if old != nil && slices.EqualFunc(noExecuteTaints(old.Spec.Taints), taints, sameTaint) {
		return
	}
	c.queue.Add(nodePrefix + node.Metadata.Name)
}

// sameTaint compares what a toleration matches of a taint.
func sameTaint(a, b api.Taint) bool {
	return a.Key == b.Key && a.Value == b.Value && a.Effect == b.Effect
}

// sync handles one key: a node's queues its pods; a pod's decides and acts.
func (c *Controller) sync(ctx context.Context, key string) error {
	if node, ok := strings.CutPrefix(key, nodePrefix); ok {
		for _, p := range c.pods.List(api.Selector{}) {
			if p.Spec.NodeName == node {
				c.queue.Add(api.KeyOf(&p.Metadata))
			}
		}
		return nil
	}
	pod, err := c.pods.Get(key)
	if err != nil {
		c.mu.Lock()
		delete(c.pending, key) // gone: nothing to evict, nothing to say
		c.mu.Unlock()
		return nil
	}
	var node *api.Node
	if pod.Spec.NodeName != "" {
		node, _ = c.nodes.Get(pod.Spec.NodeName)
	}
	now := c.clock.Now()
	c.mu.Lock()
	var cur *pending
	if p, ok := c.pending[key]; ok {
		cur = &p
	}
	act, next := decide(pod, node, now, cur)
	switch act {
	case schedule:
		c.pending[key] = next
	case cancel, evict:
		delete(c.pending, key)
	}
	c.mu.Unlock()

	switch act {
	case schedule:
		c.queue.AddAfter(key, next.at.Sub(now))
		c.log.Debug("eviction scheduled", zap.String("pod", key), zap.Time("at", next.at))
	case cancel:
		c.event(ctx, pod, "Cancelling deletion of Pod "+key)
	case evict:
		return c.evict(ctx, pod)
	}
	return nil
}

// evict marks the pod with the DisruptionTarget condition and deletes it.
// Kubernetes: addConditionAndDeletePod.
func (c *Controller) evict(ctx context.Context, pod *api.Pod) error {
	key := api.KeyOf(&pod.Metadata)
	c.event(ctx, pod, "Marking for deletion Pod "+key)
	marked := pod.DeepCopy()
	setDisruptionTarget(&marked.Status, api.NewTime(c.clock.Now()))
	if _, err := c.client.UpdateStatus(ctx, marked); err != nil {
		if apierrors.IsNotFound(err) {
			return nil
		}
		return fmt.Errorf("mark pod %s: %w", key, err)
	}
	uid := pod.Metadata.UID
	_, err := c.client.Delete(ctx, client.Pods, pod.Metadata.Namespace, pod.Metadata.Name,
		api.DeleteOptions{Preconditions: &api.Preconditions{UID: &uid}})
	if err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("delete pod %s: %w", key, err)
	}
	c.log.Info("evicted pod for a NoExecute taint", zap.String("pod", key), zap.String("node", pod.Spec.NodeName))
	return nil
}

// event records a TaintManagerEviction event on pod, if there is a recorder.
func (c *Controller) event(ctx context.Context, pod *api.Pod, msg string) {
	if c.recorder != nil {
		_ = c.recorder.Event(ctx, pod, api.EventTypeNormal, "TaintManagerEviction", msg)
	}
}

// setDisruptionTarget sets the condition the taint manager leaves on the
// pods it deletes, keeping its transition time if it was already True.
func setDisruptionTarget(st *api.PodStatus, now api.Time) {
	cond := api.PodCondition{Type: "DisruptionTarget", Status: api.ConditionTrue, Reason: "DeletionByTaintManager",
		Message: "Taint manager: deleting due to NoExecute taint", LastTransitionTime: now}
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
