package nodesim

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"go.uber.org/zap"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/api/apierrors"
	"github.com/miniplane/miniplane/client"
)

// NodeName is the name of the simulated node with index i.
func (c *Controller) NodeName(i int) string { return c.cfg.NodeNamePrefix + strconv.Itoa(i) }

// EnsureNodes creates the configured number of nodes, those that do not
// exist yet, each Ready with its pod range, capacity and addresses.
func (c *Controller) EnsureNodes(ctx context.Context) error {
	now := c.clock.Now()
	for i := range c.cfg.Nodes {
		n := newNode(c.NodeName(i), i, c.cfg.PodsPerNode, c.cfg.NodeCPU, c.cfg.NodeMemory, now)
		_, err := c.client.Create(ctx, n)
		switch {
		case apierrors.IsAlreadyExists(err):
			continue
		case err != nil:
			return fmt.Errorf("nodesim: create node %s: %w", n.Metadata.Name, err)
		}
		c.log.Info("node created", zap.String("node", n.Metadata.Name), zap.String("podCIDR", n.Spec.PodCIDR))
	}
	return nil
}

// newNode is the simulated node with index i, as its kubelet registers it:
// cpu, memory and pods its capacity and its allocatable alike.
func newNode(name string, i, pods int, cpu, memory string, now time.Time) *api.Node {
	resources := api.ResourceList{api.ResourceCPU: cpu, api.ResourceMemory: memory, api.ResourcePods: strconv.Itoa(pods)}
	alloc := make(api.ResourceList, len(resources))
	for k, v := range resources {
		alloc[k] = v
	}
	cidr := nodeCIDR(i)
	return &api.Node{
		TypeMeta: api.TypeMeta{APIVersion: "v1", Kind: "Node"},
		Metadata: api.ObjectMeta{
			Name: name,
			Labels: map[string]string{
				"kubernetes.io/hostname": name, "kubernetes.io/os": "linux", "kubernetes.io/arch": "amd64",
				"type": "miniplane-simulated",
			},
		},
		Spec: api.NodeSpec{PodCIDR: cidr, PodCIDRs: []string{cidr}},
		Status: api.NodeStatus{
			Capacity: resources, Allocatable: alloc,
			Conditions: []api.NodeCondition{readyCondition(api.ConditionTrue, now)},
			Addresses: []api.NodeAddress{
				{Type: api.NodeInternalIP, Address: nodeIP(i)},
				{Type: api.NodeHostName, Address: name},
			},
			DaemonEndpoints: api.NodeDaemonEndpoints{KubeletEndpoint: api.DaemonEndpoint{Port: 10250}},
			NodeInfo: api.NodeSystemInfo{
				MachineID: name, SystemUUID: name, BootID: name,
				KernelVersion: "6.0.0-miniplane", OSImage: "miniplane simulated node",
				ContainerRuntimeVersion: "containerd://2.0.0-miniplane",
				KubeletVersion:          KubeletVersion, KubeProxyVersion: KubeletVersion,
				OperatingSystem: "linux", Architecture: "amd64",
			},
		},
	}
}

// readyCondition is a node's Ready condition as its kubelet (True) or the
// node lifecycle controller (Unknown) writes it.
func readyCondition(status api.ConditionStatus, now time.Time) api.NodeCondition {
	c := api.NodeCondition{Type: api.NodeReady, Status: status, LastHeartbeatTime: api.NewTime(now), LastTransitionTime: api.NewTime(now)}
	if status == api.ConditionTrue {
		c.Reason, c.Message = "KubeletReady", "kubelet is posting ready status"
	} else {
		c.Reason, c.Message = "NodeStatusUnknown", "Kubelet stopped posting node status."
	}
	return c
}

// setNodeReady writes the node's Ready condition, reading the node afresh
// and trying again when another write came first.
func (c *Controller) setNodeReady(ctx context.Context, name string, status api.ConditionStatus) error {
	var err error
	for range 5 {
		var obj api.Object
		obj, err = c.client.Get(ctx, client.Nodes, "", name, client.GetOptions{})
		if err != nil {
			return err
		}
		n := obj.(*api.Node).DeepCopy()
		cond := readyCondition(status, c.clock.Now())
		replaced := false
		for i := range n.Status.Conditions {
			if n.Status.Conditions[i].Type == api.NodeReady {
				if n.Status.Conditions[i].Status == status {
					cond.LastTransitionTime = n.Status.Conditions[i].LastTransitionTime
				}
				n.Status.Conditions[i], replaced = cond, true
			}
		}
		if !replaced {
			n.Status.Conditions = append(n.Status.Conditions, cond)
		}
		if _, err = c.client.UpdateStatus(ctx, n); !apierrors.IsConflict(err) {
			return err
		}
	}
	return err
}
