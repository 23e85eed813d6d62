package nodesim

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"go.uber.org/zap"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/api/apierrors"
	"github.com/miniplane/miniplane/client"
)

// Node Leases, as the kubelet's node lease controller keeps them
// (k8s.io/kubernetes/pkg/kubelet/nodelease): one Lease per node in
// api.NamespaceNodeLease, named after the node, held by it, owned by
// the Node, its renewTime renewed every NodeLeaseRenewInterval.
const (
	// NodeLeaseDurationSeconds is the kubelet's default
	// nodeLeaseDurationSeconds.
	NodeLeaseDurationSeconds = 40
	// NodeLeaseRenewInterval is how often a kubelet renews its node's
	// Lease: a quarter of its duration, as the kubelet does.
	NodeLeaseRenewInterval = NodeLeaseDurationSeconds * time.Second / 4
)

// Updater replaces an object, as client.Client and *apiserver.Server
// do: Config.NodeLeases needs a Client that implements it, to renew.
type Updater interface {
	Update(ctx context.Context, obj api.Object, opts ...client.WriteOption) (api.Object, error)
}

// RenewNodeLeases renews, once, the Lease of every cached node that is up
// (not taken down by NodeDown, nor reported not ready), creating the Leases
// that are missing; a node that is down keeps its Lease unrenewed, as with
// a dead kubelet. It tries every node and returns the errors joined.
// Run calls it every NodeLeaseRenewInterval when Config.NodeLeases is set.
func (c *Controller) RenewNodeLeases(ctx context.Context) error {
	return c.renewNodeLeases(ctx, false)
}

// renewNodeLeases is RenewNodeLeases; onlyNew limits it to the nodes whose
// Lease nodesim has not written yet, as a kubelet creates its Lease as soon
// as it has registered its node.
func (c *Controller) renewNodeLeases(ctx context.Context, onlyNew bool) error {
	upd, ok := c.client.(Updater)
	if !ok {
		return errors.New("nodesim: Config.Client cannot update objects, so it cannot renew node Leases")
	}
	nodes := c.nodes.List(api.Selector{})
	slices.SortFunc(nodes, func(a, b *api.Node) int {
		switch {
		case a.Metadata.Name < b.Metadata.Name:
			return -1
		case a.Metadata.Name > b.Metadata.Name:
			return 1
		}
		return 0
	})
	var errs []error
	for _, n := range nodes {
		c.mu.Lock()
		down := c.nodeDownLocked(n)
		skip := down || (onlyNew && c.leased[n.Metadata.Name])
		c.mu.Unlock()
		if skip {
			continue
		}
		if err := c.renewNodeLease(ctx, upd, n); err != nil {
			errs = append(errs, fmt.Errorf("nodesim: renew the Lease of node %s: %w", n.Metadata.Name, err))
			continue
		}
		c.mu.Lock()
		c.leased[n.Metadata.Name] = true
		c.mu.Unlock()
	}
	return errors.Join(errs...)
}

// renewNodeLease creates node's Lease, or sets its holder, duration, owner
// and renewTime to the kubelet's and writes it back.
func (c *Controller) renewNodeLease(ctx context.Context, upd Updater, n *api.Node) error {
	name := n.Metadata.Name
	got, err := c.client.Get(ctx, client.Leases, api.NamespaceNodeLease, name, client.GetOptions{})
	if apierrors.IsNotFound(err) {
		l := &api.Lease{
			TypeMeta: api.TypeMeta{APIVersion: "coordination.k8s.io/v1", Kind: "Lease"},
			Metadata: api.ObjectMeta{Namespace: api.NamespaceNodeLease, Name: name},
		}
		c.setNodeLease(l, n)
		_, err = c.client.Create(ctx, l)
		if err == nil {
			c.log.Debug("node lease created", zap.String("node", name))
		}
		return err
	}
	if err != nil {
		return err
	}
	l, ok := got.(*api.Lease)
	if !ok {
		return fmt.Errorf("got a %T, not a Lease", got)
	}
	l = l.DeepCopy() // what Get returns is the stored Lease, shared with every reader
	c.setNodeLease(l, n)
	_, err = upd.Update(ctx, l)
	return err
}

// setNodeLease makes l node n's Lease as its kubelet renews it now.
func (c *Controller) setNodeLease(l *api.Lease, n *api.Node) {
	now := api.NewMicroTime(c.clock.Now())
	l.Spec.HolderIdentity = ptr(n.Metadata.Name)
	l.Spec.LeaseDurationSeconds = ptr(int32(NodeLeaseDurationSeconds))
	l.Spec.RenewTime = &now
	owner := api.OwnerReference{APIVersion: "v1", Kind: "Node", Name: n.Metadata.Name, UID: n.Metadata.UID}
	if !slices.ContainsFunc(l.Metadata.OwnerReferences, func(r api.OwnerReference) bool { return r.UID == owner.UID }) {
		l.Metadata.OwnerReferences = []api.OwnerReference{owner}
	}
}

// runNodeLeases renews the node Leases now and every
// NodeLeaseRenewInterval until ctx is done; in between, a node the cache
// gains gets its Lease at once (the node handler wakes it).
func (c *Controller) runNodeLeases(ctx context.Context) {
	t := c.clock.NewTimer(NodeLeaseRenewInterval)
	defer t.Stop()
	onlyNew := false
	for {
		if err := c.renewNodeLeases(ctx, onlyNew); err != nil && ctx.Err() == nil {
			c.log.Info("node leases not all renewed; will retry", zap.Error(err))
		}
		select {
		case <-ctx.Done():
			return
		case <-c.leaseWake:
			onlyNew = true
		case <-t.C():
			onlyNew = false
			t.Reset(NodeLeaseRenewInterval)
		}
	}
}

// wakeNodeLeases has runNodeLeases write the Leases of new nodes now.
func (c *Controller) wakeNodeLeases() {
	select {
	case c.leaseWake <- struct{}{}:
	default: // a wake is pending already: it will see this node too
	}
}
