package nodesim

import (
	"context"
	"fmt"

	"go.uber.org/zap"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/informer"
)

// The hooks below are how the simulator and the demo inject faults. Each
// checks its target in the caches, records what was asked and queues the
// pods concerned; the pods' status changes at their next sync, through the
// same step as every other transition, so a run stays a function of the
// steps taken. NodeDown and NodeUp write the node's status at once.

// CrashPod makes a running pod's containers exit with code 1. With
// restartPolicy Always or OnFailure the kubelet restarts them after
// StartDelay (restartCount goes up by one) and the pod is Ready again
// ReadyDelay later; with Never the pod ends Failed.
func (c *Controller) CrashPod(ctx context.Context, namespace, name string) error {
	pod, err := c.pods.Namespace(namespace).Get(name)
	if err != nil {
		return err
	}
	if !running(pod) {
		return fmt.Errorf("nodesim: pod %s/%s is not running", namespace, name)
	}
	key := api.KeyOf(&pod.Metadata)
	c.mu.Lock()
	c.stateLocked(key).crash = true
	c.mu.Unlock()
	c.log.Info("crash requested", zap.String("pod", key))
	c.queue.Add(key)
	return nil
}

// Running reports whether the kubelets' cache shows the pod running, the
// check CrashPod makes: a caller that chose its pod from a newer read of
// the API server (the demo) waits for it before crashing the pod, since
// the cache may not have caught up yet.
func (c *Controller) Running(namespace, name string) bool {
	pod, err := c.pods.Namespace(namespace).Get(name)
	return err == nil && running(pod)
}

// running reports whether pod is bound, Running and not terminating.
func running(pod *api.Pod) bool {
	return pod.Spec.NodeName != "" && pod.Status.Phase == api.PodRunning && pod.Metadata.DeletionTimestamp == nil
}

// SetPodReady flips a bound pod's readiness, as a readiness probe would:
// false makes it not ready (its containers keep running) until SetPodReady
// true, which makes it ready as soon as its containers run.
func (c *Controller) SetPodReady(ctx context.Context, namespace, name string, ready bool) error {
	pod, err := c.pods.Namespace(namespace).Get(name)
	if err != nil {
		return err
	}
	if pod.Spec.NodeName == "" {
		return fmt.Errorf("nodesim: pod %s/%s is not bound to a node", namespace, name)
	}
	key := api.KeyOf(&pod.Metadata)
	c.mu.Lock()
	c.stateLocked(key).want = ptr(ready)
	c.mu.Unlock()
	c.log.Info("readiness set", zap.String("pod", key), zap.Bool("ready", ready))
	c.queue.Add(key)
	return nil
}

// NodeDown takes a node down: its kubelet stops acting, and its Ready
// condition becomes Unknown at once, as the node lifecycle controller
// writes it once a kubelet has missed its heartbeats for
// node-monitor-grace-period. It then takes no new pods, and the node
// lifecycle controller (controllers/nodelifecycle) marks its pods not
// ready and, if it is still down its eviction timeout later, Failed with
// reason NodeLost.
func (c *Controller) NodeDown(ctx context.Context, node string) error {
	if err := c.setNodeReady(ctx, node, api.ConditionUnknown); err != nil {
		return fmt.Errorf("nodesim: node %s down: %w", node, err)
	}
	c.mu.Lock()
	c.down[node] = true
	delete(c.up, node)
	c.mu.Unlock()
	c.log.Info("node down", zap.String("node", node))
	c.enqueueNode(node)
	return nil
}

// NodeUp brings a node taken down back: Ready True, schedulable, and its
// kubelet resumes; pods not yet failed become ready again, after
// ReadyDelay for those with readiness probes.
func (c *Controller) NodeUp(ctx context.Context, node string) error {
	if err := c.setNodeReady(ctx, node, api.ConditionTrue); err != nil {
		return fmt.Errorf("nodesim: node %s up: %w", node, err)
	}
	c.mu.Lock()
	delete(c.down, node)
	c.up[node] = true
	c.mu.Unlock()
	c.log.Info("node up", zap.String("node", node))
	c.enqueueNode(node)
	return nil
}

// enqueueNode queues every cached pod bound to node, in key order.
func (c *Controller) enqueueNode(node string) {
	keys, _ := c.podInf.Indexer().IndexKeys(informer.NodeNameIndex, node) // New added the index
	for _, k := range keys {
		c.queue.Add(k)
	}
}
