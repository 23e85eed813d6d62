package sim

import (
	"context"
	"time"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/api/apierrors"
	"github.com/miniplane/miniplane/client"
	"github.com/miniplane/miniplane/controllers/daemon"
)

// The daemon set controller's invariants, checked when quiet.
//
// daemonset-one-per-node: no node runs two live pods (not being deleted)
// of one daemon set.
//
// daemonset-complete: a daemon set that is not being deleted has a pod of
// its current template on every node that should run one, and none on the
// others, and its status says so for the current generation: desired,
// current, updated and available all equal the number of such nodes.
// Nothing in a quiet system is left to move it further.

// checkDaemonSets checks daemonset-one-per-node and daemonset-complete.
func (s *Sim) checkDaemonSets(ctx context.Context) error {
	l, err := s.srv.List(ctx, client.DaemonSets, "", client.ListOptions{})
	if err != nil || len(l.Items) == 0 {
		return err
	}
	nl, err := s.srv.List(ctx, client.Nodes, "", client.ListOptions{})
	if err != nil {
		return err
	}
	pl, err := s.srv.List(ctx, client.Pods, "", client.ListOptions{})
	if err != nil {
		return err
	}
	for _, o := range l.Items {
		ds := o.(*api.DaemonSet)
		if ds.Metadata.DeletionTimestamp != nil {
			continue
		}
		key := api.KeyOf(&ds.Metadata)
		objects := []string{"DaemonSet " + key}
		onNode := map[string][]*api.Pod{}
		for _, po := range pl.Items {
			p := po.(*api.Pod)
			ref := api.GetControllerOf(&p.Metadata)
			if ref == nil || ref.UID != ds.Metadata.UID || p.Metadata.DeletionTimestamp != nil {
				continue
			}
			node, _ := daemon.TargetNode(p)
			if len(onNode[node]) > 0 {
				return failedOn(objects, "daemonset-one-per-node", "%s: node %q runs %s and %s", key, node, onNode[node][0].Metadata.Name, p.Metadata.Name)
			}
			onNode[node] = append(onNode[node], p)
		}
		hash := daemon.RevisionHash(ds)
		var want int32
		for _, no := range nl.Items {
			n := no.(*api.Node)
			run, _ := daemon.ShouldRun(n, ds)
			pods := onNode[n.Metadata.Name]
			switch {
			case run && len(pods) == 0:
				return failedOn(objects, "daemonset-complete", "%s: node %q has no pod", key, n.Metadata.Name)
			case run && pods[0].Metadata.Labels[api.DaemonSetUniqueLabelKey] != hash:
				return failedOn(objects, "daemonset-complete", "%s: node %q runs %s of revision %q, not %q", key, n.Metadata.Name,
					pods[0].Metadata.Name, pods[0].Metadata.Labels[api.DaemonSetUniqueLabelKey], hash)
			case !run && len(pods) > 0:
				return failedOn(objects, "daemonset-complete", "%s: node %q should not run %s", key, n.Metadata.Name, pods[0].Metadata.Name)
			}
			if run {
				want++
			}
		}
		st := ds.Status
		if st.ObservedGeneration < ds.Metadata.Generation {
			return failedOn(objects, "daemonset-complete", "%s: status of generation %d, not %d", key, st.ObservedGeneration, ds.Metadata.Generation)
		}
		if st.DesiredNumberScheduled != want || st.CurrentNumberScheduled != want || st.UpdatedNumberScheduled != want || st.NumberAvailable != want {
			return failedOn(objects, "daemonset-complete", "%s: status says %d desired, %d current, %d updated, %d available; %d nodes should run its pod",
				key, st.DesiredNumberScheduled, st.CurrentNumberScheduled, st.UpdatedNumberScheduled, st.NumberAvailable, want)
		}
	}
	return nil
}

// daemonSetScenario creates daemon set agent (nginx:1) on the three
// nodes, sets image nginx:2 at 20s, adds a fourth node at 30s and rolls
// back to nginx:1 at 45s: at the end every node runs one pod of the
// first template, whose revision is renumbered 3.
func daemonSetScenario(s *Sim, d time.Duration) {
	s.userAction(0, d, "create daemon set agent of nginx:1", func(ctx context.Context) error {
		return s.createAll(ctx, NewDaemonSet("default", "agent", "nginx:1"))
	})
	image := func(img string) func(*api.DaemonSet) {
		return func(ds *api.DaemonSet) { ds.Spec.Template.Spec.Containers[0].Image = img }
	}
	s.userAction(20*time.Second, d, "set agent's image to nginx:2", func(ctx context.Context) error {
		return s.changeDaemonSet(ctx, "default", "agent", image("nginx:2"))
	})
	s.userAction(30*time.Second, d, "add node node-extra", func(ctx context.Context) error {
		return s.addNodeLike(ctx, "node-extra", "10.244.200.0/24")
	})
	s.userAction(45*time.Second, d, "roll agent back to nginx:1", func(ctx context.Context) error {
		return s.changeDaemonSet(ctx, "default", "agent", image("nginx:1"))
	})
}

// addNodeLike registers a node called name with the capacity and status of
// the first simulated node, Ready (the first may be down), and a pod range
// of its own (cidr), as its kubelet would on joining; nodesim then
// schedules onto it and runs its pods.
func (s *Sim) addNodeLike(ctx context.Context, name, cidr string) error {
	obj, err := s.user.Get(ctx, client.Nodes, "", s.nodes.NodeName(0), client.GetOptions{})
	if err != nil {
		return err
	}
	like := obj.(*api.Node)
	n := &api.Node{TypeMeta: like.TypeMeta, Metadata: api.ObjectMeta{Name: name, Labels: map[string]string{"kubernetes.io/hostname": name}},
		Spec: api.NodeSpec{PodCIDR: cidr, PodCIDRs: []string{cidr}}}
	created, err := s.user.Create(ctx, n)
	if err != nil {
		return err
	}
	withStatus := created.(*api.Node).DeepCopy()
	withStatus.Status = *like.Status.DeepCopy()
	withStatus.Status.Addresses = nil
	now := api.NewTime(s.clock.Now())
	withStatus.Status.Conditions = []api.NodeCondition{{Type: api.NodeReady, Status: api.ConditionTrue, LastHeartbeatTime: now, LastTransitionTime: now,
		Reason: "KubeletReady", Message: "kubelet is posting ready status"}}
	_, err = s.user.UpdateStatus(ctx, withStatus)
	return err
}

// changeDaemonSet changes a daemon set as its user would: read, change,
// write, again on a conflict.
func (s *Sim) changeDaemonSet(ctx context.Context, namespace, name string, change func(*api.DaemonSet)) error {
	for {
		obj, err := s.user.Get(ctx, client.DaemonSets, namespace, name, client.GetOptions{})
		if err != nil {
			return err
		}
		ds := obj.(*api.DaemonSet).DeepCopy()
		change(ds)
		_, err = s.user.Update(ctx, ds)
		if !apierrors.IsConflict(err) {
			return err
		}
	}
}

// NewDaemonSet returns a RollingUpdate daemon set (the defaults: one
// unavailable, no surge) of pods labelled app=<name>, one container
// running image.
func NewDaemonSet(namespace, name, image string) *api.DaemonSet {
	labels := map[string]string{"app": name}
	return &api.DaemonSet{
		TypeMeta: api.TypeMeta{APIVersion: "apps/v1", Kind: "DaemonSet"},
		Metadata: api.ObjectMeta{Namespace: namespace, Name: name},
		Spec: api.DaemonSetSpec{
			Selector: &api.LabelSelector{MatchLabels: labels},
			Template: api.PodTemplateSpec{
				Metadata: api.ObjectMeta{Labels: labels},
				Spec:     api.PodSpec{Containers: []api.Container{{Name: name, Image: image}}},
			},
		},
	}
}
