package main

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/api/apierrors"
	"github.com/miniplane/miniplane/client"
	"github.com/miniplane/miniplane/controllers/deployment"
	"github.com/miniplane/miniplane/controllers/replication"
	"github.com/miniplane/miniplane/plane"
)

// story is the demo's script: each chapter acts as a user would (through
// the in-process Client, as kubectl would over HTTP) and waits, on the
// narrator's view of the system, for the control loop to answer.
type story struct {
	p     *plane.Plane
	n     *narrator
	c     client.Client
	pace  float64
	wait  time.Duration // how long any one wait may take before the demo fails
	stats storyStats
	// restart, set over etcd, stops the control plane's process and
	// starts another over the same etcd, which the story goes on with. It
	// returns the revision the narration had told through, and leaves
	// the narrator held.
	restart func(context.Context) (int64, error)
}

// storyStats feed the closing summary.
type storyStats struct {
	failover     time.Duration // leader crash to the new leader's first write
	oldLeader    string
	newLeader    string
	deletedFirst []string // the pods the scale-down removed, in the order the controller deleted them
	shopRevision string   // the deployment's revision after the rollback
	shopRollback string   // the replica set the rollback made new again
	kept         int      // objects the restarted process read back from etcd
}

const (
	demoNS   = "default"
	demoName = "web"
)

var demoLabels = map[string]string{"app": "web"}

// pause lets the reader catch up: base times the pace.
func (s *story) pause(ctx context.Context, base time.Duration) {
	d := time.Duration(float64(base) * s.pace)
	if d <= 0 {
		return
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C:
	}
}

// waitFor returns once cond holds, re-checking at each change the narrator
// sees (and every 100ms, for conditions that only time changes), or fails
// after s.wait.
func (s *story) waitFor(ctx context.Context, what string, cond func() (bool, error)) error {
	deadline := time.NewTimer(s.wait)
	defer deadline.Stop()
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for {
		changed := s.n.Changed()
		ok, err := cond()
		if err != nil {
			return fmt.Errorf("demo: waiting for %s: %w", what, err)
		}
		if ok {
			return nil
		}
		select {
		case <-ctx.Done():
			return context.Cause(ctx)
		case <-deadline.C:
			return fmt.Errorf("demo: gave up after %s waiting for %s", s.wait, what)
		case <-changed:
		case <-tick.C:
		}
	}
}

// webPods returns the demo RC's pods that are not terminating, by name.
func (s *story) webPods(ctx context.Context) ([]*api.Pod, error) {
	pods, _, err := client.For[*api.Pod](s.c).List(ctx, demoNS, client.ListOptions{LabelSelector: "app=web"})
	if err != nil {
		return nil, err
	}
	pods = slices.DeleteFunc(pods, func(p *api.Pod) bool {
		return p.Metadata.DeletionTimestamp != nil || !api.IsPodActive(p)
	})
	return pods, nil
}

// settled reports whether the RC has exactly n active pods, all ready, and
// the Service's endpoints list exactly their IPs as ready.
func (s *story) settled(ctx context.Context, n int) (bool, error) {
	pods, err := s.webPods(ctx)
	if err != nil || len(pods) != n {
		return false, err
	}
	var ips []string
	for _, p := range pods {
		if !api.IsPodReady(p) {
			return false, nil
		}
		ips = append(ips, p.Status.PodIP)
	}
	slices.Sort(ips)
	ep, err := client.For[*api.Endpoints](s.c).Get(ctx, demoNS, demoName)
	if apierrors.IsNotFound(err) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	ready, notReady := endpointIPs(ep)
	return slices.Equal(ready, ips) && len(notReady) == 0, nil
}

// Who "you" are in a line: kubectl for what goes through the API, and what
// else you do to the machines, which is not kubectl's.
const (
	youKubectl = "you (kubectl)"
	youKill    = "you (kill -9)"
	youFault   = "you (fault)"
	youPower   = "you (power switch)"
	youRestart = "you (restart)"
)

// rev is the store's revision now.
func (s *story) rev() int64 { return s.p.Server().Store().Rev() }

// chapter prints a heading after what has happened so far.
func (s *story) chapter(format string, a ...any) { s.n.chapterAfter(s.rev(), format, a...) }

// plain prints a line of explanation after what has happened so far.
func (s *story) plain(format string, a ...any) { s.n.plainAfter(s.rev(), format, a...) }

// act does something as actor and tells it before anything it causes: do
// returns the line. Nothing is told while it runs.
func (s *story) act(actor string, do func() (string, error)) error {
	s.n.hold()
	defer s.n.unhold()
	before := s.rev()
	text, err := do()
	if err != nil {
		return err
	}
	s.n.sayAfter(before, s.p.Clock().Now(), actor, "%s", text)
	return nil
}

// catchUp waits until the narrator has told everything written so far.
func (s *story) catchUp(ctx context.Context) error {
	rev := s.rev()
	return s.waitFor(ctx, "the narration to catch up", func() (bool, error) { return s.n.told(rev), nil })
}

// run tells the whole story.
func (s *story) run(ctx context.Context) error {
	type chapter struct {
		title string
		do    func(context.Context) error
	}
	steps := []chapter{
		{"Who runs the controllers? Three controller managers elect a leader", s.election},
		{"Declare what you want: a ReplicationController and a Service", s.create},
		{"Scale up to 5, then down to 2: which pods go first, and why", s.scale},
		{"Things break: a container crashes, then a node goes down", s.crash},
		{"The leading controller manager dies; another takes the lease", s.failover},
		{"Delete the ReplicationController; the garbage collector cleans up", s.cleanup},
	}
	if s.restart != nil {
		steps = append(steps, chapter{"Restart the control plane's process: etcd kept every object", s.restartPlane})
	}
	steps = append(steps, chapter{"Roll out a new version: a Deployment's rolling update, step by step, and a rollback", s.rollout})
	for i, st := range steps {
		s.chapter("%d. %s", i+1, st.title)
		if err := st.do(ctx); err != nil {
			return err
		}
		s.pause(ctx, 1500*time.Millisecond)
	}
	return nil
}

func (s *story) election(ctx context.Context) error {
	s.plain("Each instance runs the same controllers, but only the one holding the Lease")
	s.plain("kube-system/kube-controller-manager may act; the others wait to take over.")
	return s.waitFor(ctx, "a leader", func() (bool, error) { return s.p.Leader() != "", nil })
}

func (s *story) create(ctx context.Context) error {
	three := int32(3)
	rc := &api.ReplicationController{
		Metadata: api.ObjectMeta{Namespace: demoNS, Name: demoName},
		Spec: api.ReplicationControllerSpec{Replicas: &three, Selector: demoLabels, Template: &api.PodTemplateSpec{
			Metadata: api.ObjectMeta{Labels: demoLabels},
			Spec: api.PodSpec{Containers: []api.Container{{Name: "web", Image: "nginx:1.27",
				Ports: []api.ContainerPort{{Name: "http", ContainerPort: 80}}}}},
		}},
	}
	if err := s.act(youKubectl, func() (string, error) {
		if _, err := s.c.Create(ctx, rc); err != nil {
			return "", fmt.Errorf("demo: creating the RC: %w", err)
		}
		return "created replicationcontroller web: 3 replicas of nginx, label app=web", nil
	}); err != nil {
		return err
	}
	svc := &api.Service{
		Metadata: api.ObjectMeta{Namespace: demoNS, Name: demoName},
		Spec:     api.ServiceSpec{Selector: demoLabels, Ports: []api.ServicePort{{Port: 80, TargetPort: api.FromString("http")}}},
	}
	if err := s.act(youKubectl, func() (string, error) {
		created, err := s.c.Create(ctx, svc)
		if err != nil {
			return "", fmt.Errorf("demo: creating the Service: %w", err)
		}
		return fmt.Sprintf("created service web (cluster IP %s) selecting app=web, port 80 -> named port http", created.(*api.Service).Spec.ClusterIP), nil
	}); err != nil {
		return err
	}
	s.plain("The replication controller sees 0 of 3 pods. It records an expectation of 3")
	s.plain("creations, so that its next sync waits for the informer to see them instead of")
	s.plain("creating 3 more, and creates them in slow-start batches of 1, then 2.")
	if err := s.waitFor(ctx, "3 ready pods behind the service", func() (bool, error) { return s.settled(ctx, 3) }); err != nil {
		return err
	}
	s.plain("Desired state reached: 3 pods ready, and the Service's Endpoints list all 3.")
	return nil
}

func (s *story) scale(ctx context.Context) error {
	if err := s.setReplicas(ctx, 5); err != nil {
		return err
	}
	if err := s.waitFor(ctx, "5 ready pods", func() (bool, error) { return s.settled(ctx, 5) }); err != nil {
		return err
	}
	s.pause(ctx, time.Second)
	pods, err := s.webPods(ctx)
	if err != nil {
		return err
	}
	ranked, now, err := s.stableRanking(ctx, pods)
	if err != nil {
		return err
	}
	const goes = 3
	var names []string
	for _, p := range ranked[:goes] {
		names = append(names, p.Metadata.Name)
	}
	s.plain("Scaling down, the controller ranks its pods: unscheduled before scheduled, pending")
	s.plain("before running, not ready before ready, then ready for the shortest time first,")
	s.plain("more restarts first, newest first. It compares the pods as the API stores them:")
	s.plain("times to the second (it is %s UTC now), ages in log2 buckets, so pods made", now.UTC().Format("15:04:05.0"))
	s.plain("within a second or so tie, and then their uid decides. replication.PodsToDelete:")
	for i, p := range ranked {
		fate := "goes"
		if i >= goes {
			fate = "stays"
		}
		s.plain("  %d. %s %-5s  %s", i+1, p.Metadata.Name, fate, podRankFacts(p))
		if i+1 < len(ranked) {
			s.plain("       before %s: %s", ranked[i+1].Metadata.Name, replication.RankRuleOf(p, ranked[i+1], nil, now))
		}
	}
	if err := s.setReplicas(ctx, 2); err != nil {
		return err
	}
	if err := s.waitFor(ctx, "2 ready pods", func() (bool, error) { return s.settled(ctx, 2) }); err != nil {
		return err
	}
	return s.compareRanking(ctx, pods, names, now)
}

// compareRanking tells whether the controller deleted the pods predicted,
// from what it recorded on its SuccessfulDelete events: which pods, and
// the time it ranked them at. When it chose others, it says why, by
// ranking the same pods at the controller's time: a moment later, two
// pods' ages may fall in one log2 bucket and their uids decide.
func (s *story) compareRanking(ctx context.Context, pods []*api.Pod, predicted []string, predictedAt time.Time) error {
	var deleted []string
	var rankedAt time.Time
	// The controller records each SuccessfulDelete after its delete: the
	// pods can be gone before the last event is written, so wait for one
	// event per deleted pod.
	err := s.waitFor(ctx, "the controller's SuccessfulDelete events", func() (bool, error) {
		evs, _, err := client.For[*api.Event](s.c).List(ctx, demoNS, client.ListOptions{FieldSelector: "involvedObject.name=" + demoName})
		if err != nil {
			return false, err
		}
		deleted, rankedAt = deleted[:0], time.Time{}
		for _, e := range evs {
			name, ok := strings.CutPrefix(e.Message, "Deleted pod: ")
			if e.Reason != replication.ReasonSuccessfulDelete || !ok {
				continue
			}
			deleted = append(deleted, name)
			if t, err := time.Parse(time.RFC3339Nano, e.Metadata.Annotations[replication.AnnotationRankedAt]); err == nil {
				rankedAt = t
			}
		}
		return len(deleted) >= len(predicted), nil
	})
	if err != nil {
		return err
	}
	s.stats.deletedFirst = deleted
	at := rankedAt.UTC().Format("15:04:05.00")
	if slices.Equal(slices.Sorted(slices.Values(deleted)), slices.Sorted(slices.Values(predicted))) {
		s.plain("The controller ranked them at %s UTC (its SuccessfulDelete events say so) and deleted", at)
		s.plain("the three predicted.")
		return nil
	}
	s.plain("The controller ranked them at %s UTC, %.1fs after the prediction, and deleted %s.",
		at, rankedAt.Sub(predictedAt).Seconds(), strings.Join(deleted, ", "))
	var went, stayed *api.Pod
	for _, p := range pods {
		switch name := p.Metadata.Name; {
		case slices.Contains(deleted, name) && !slices.Contains(predicted, name) && went == nil:
			went = p
		case slices.Contains(predicted, name) && !slices.Contains(deleted, name) && stayed == nil:
			stayed = p
		}
	}
	again := replication.PodsToDelete(pods, nil, len(deleted), rankedAt)
	var againNames []string
	for _, p := range again {
		againNames = append(againNames, p.Metadata.Name)
	}
	if went != nil && stayed != nil && slices.Equal(slices.Sorted(slices.Values(againNames)), slices.Sorted(slices.Values(deleted))) {
		s.plain("Ranked at that time, %s goes before %s: %s.", went.Metadata.Name, stayed.Metadata.Name,
			replication.RankRuleOf(went, stayed, nil, rankedAt))
		return nil
	}
	s.plain("Ranked at that time, the pods as the story saw them give %s: the controller's cache", strings.Join(againNames, ", "))
	s.plain("held other versions of them.")
	return nil
}

// rankingWindow is how far ahead a prediction of the scale-down must hold:
// the controller ranks the pods with its own clock a moment after the
// story does, and a pod's age may cross a log2 bucket's bound meanwhile.
const rankingWindow = time.Second

// stableRanking returns every pod in the order replication.PodsToDelete
// ranks them, and the time it ranked them at, once that order is the same
// at every point of the next rankingWindow (it waits, a tenth of a second
// at a time, while a bucket bound is near).
func (s *story) stableRanking(ctx context.Context, pods []*api.Pod) ([]*api.Pod, time.Time, error) {
	// The demo's RC has no owner, so no other pods are related to its own:
	// the controller passes none (relatedPods), and so does the prediction.
	rank := func(now time.Time) []*api.Pod {
		ranked := replication.PodsToDelete(pods, nil, len(pods)-1, now)
		for _, p := range pods {
			if !slices.Contains(ranked, p) {
				ranked = append(ranked, p) // the last, which nothing outranks
			}
		}
		return ranked
	}
	var ranked []*api.Pod
	var now time.Time
	err := s.waitFor(ctx, "a scale-down ranking that holds for a second", func() (bool, error) {
		now = s.p.Clock().Now()
		ranked = rank(now)
		for d := rankingWindow / 10; d <= rankingWindow; d += rankingWindow / 10 {
			if !slices.Equal(rank(now.Add(d)), ranked) {
				return false, nil
			}
		}
		return true, nil
	})
	return ranked, now, err
}

func (s *story) setReplicas(ctx context.Context, n int32) error {
	return s.act(youKubectl, func() (string, error) {
		for range 5 { // a conflict means the RC moved under us; read and retry
			scale, err := s.p.Server().GetScale(ctx, client.ReplicationControllers, demoNS, demoName)
			if err != nil {
				return "", fmt.Errorf("demo: reading the scale: %w", err)
			}
			scale.Spec.Replicas = n
			if _, err = s.p.Server().UpdateScale(ctx, client.ReplicationControllers, demoNS, scale); err == nil {
				return fmt.Sprintf("scaled replicationcontroller web to %d", n), nil
			}
			if !apierrors.IsConflict(err) {
				return "", fmt.Errorf("demo: scaling: %w", err)
			}
		}
		return "", fmt.Errorf("demo: scaling web to %d kept conflicting", n)
	})
}

func (s *story) crash(ctx context.Context) error {
	pods, err := s.webPods(ctx)
	if err != nil || len(pods) == 0 {
		return fmt.Errorf("demo: no pod to crash: %w", err)
	}
	victim := pods[0]
	// The victim is running by the API server; the kubelets act on their
	// cache, which may be a write behind.
	if err := s.waitFor(ctx, "the kubelet to see "+victim.Metadata.Name+" running", func() (bool, error) {
		return s.p.Nodes().Running(demoNS, victim.Metadata.Name), nil
	}); err != nil {
		return err
	}
	s.plain("restartPolicy is Always, so the kubelet restarts a crashed container in place;")
	s.plain("while it is down the pod is not ready and the endpoints controller moves it aside.")
	if err := s.act(youFault, func() (string, error) {
		if err := s.p.Nodes().CrashPod(ctx, demoNS, victim.Metadata.Name); err != nil {
			return "", fmt.Errorf("demo: crashing %s: %w", victim.Metadata.Name, err)
		}
		return fmt.Sprintf("crashed the container of pod %s (exit code 1)", victim.Metadata.Name), nil
	}); err != nil {
		return err
	}
	if err := s.waitFor(ctx, "the crashed pod to restart", func() (bool, error) {
		p, err := client.For[*api.Pod](s.c).Get(ctx, demoNS, victim.Metadata.Name)
		if err != nil {
			return false, err
		}
		return restarts(p) > 0 && api.IsPodReady(p), nil
	}); err != nil {
		return err
	}
	if err := s.waitFor(ctx, "endpoints to settle", func() (bool, error) { return s.settled(ctx, 2) }); err != nil {
		return err
	}

	pods, err = s.webPods(ctx)
	if err != nil || len(pods) == 0 {
		return fmt.Errorf("demo: no pod left to lose: %w", err)
	}
	node := pods[len(pods)-1].Spec.NodeName
	s.plain("A whole node now: its pods are marked not ready at once, and Failed (NodeLost)")
	s.plain("after the eviction timeout. A failed pod no longer counts, so the RC replaces it.")
	if err := s.act(youPower, func() (string, error) {
		if err := s.p.Nodes().NodeDown(ctx, node); err != nil {
			return "", fmt.Errorf("demo: taking %s down: %w", node, err)
		}
		return fmt.Sprintf("pulled the plug on %s", node), nil
	}); err != nil {
		return err
	}
	if err := s.waitFor(ctx, "the lost pods to be replaced", func() (bool, error) {
		ok, err := s.settled(ctx, 2)
		if !ok || err != nil {
			return ok, err
		}
		now, err := s.webPods(ctx)
		for _, p := range now {
			if p.Spec.NodeName == node {
				return false, err
			}
		}
		return true, err
	}); err != nil {
		return err
	}
	return s.act(youPower, func() (string, error) {
		if err := s.p.Nodes().NodeUp(ctx, node); err != nil {
			return "", fmt.Errorf("demo: bringing %s back: %w", node, err)
		}
		return fmt.Sprintf("brought %s back", node), nil
	})
}

func (s *story) failover(ctx context.Context) error {
	var old string // the lease's holder, which KillLeader kills
	lease := s.p.Options().LeaderElection
	s.plain("The leader is killed without releasing its lease. The others must wait one lease")
	s.plain("duration (%s) after the last renewal they saw; the dead leader's write guard", lease.LeaseDuration)
	s.plain("closed %s after its last renewal, so two leaders never write at once.", lease.RenewDeadline)
	killedAt := s.p.Clock().Now()
	if err := s.act(youKill, func() (string, error) {
		var err error
		if old, err = s.p.KillLeader(ctx); err != nil {
			return "", err
		}
		return fmt.Sprintf("killed controller manager %s (no clean shutdown)", old), nil
	}); err != nil {
		return err
	}
	// Ask for work while nobody leads: the new leader's first reconcile does it.
	if err := s.setReplicas(ctx, 3); err != nil {
		return err
	}
	s.plain("Nobody acts on that yet: no instance holds the lease.")
	if err := s.waitFor(ctx, "a new leader", func() (bool, error) {
		l := s.p.Leader()
		return l != "" && l != old, nil
	}); err != nil {
		return err
	}
	s.stats.oldLeader, s.stats.newLeader = old, s.p.Leader()
	if err := s.waitFor(ctx, "3 ready pods under the new leader", func() (bool, error) { return s.settled(ctx, 3) }); err != nil {
		return err
	}
	if first, ok := s.p.FirstWriteAfter(killedAt); ok {
		s.stats.failover = first.Sub(killedAt)
		s.plain("From the crash to the new leader's first write: %.1fs (its caches were built from", s.stats.failover.Seconds())
		s.plain("scratch and its expectations start empty, as in a restarted process).")
	}
	return nil
}

func (s *story) cleanup(ctx context.Context) error {
	s.plain("Deleting with propagationPolicy=Background removes the RC at once; its pods carry")
	s.plain("an ownerReference to it, so the garbage collector deletes them next.")
	bg := api.DeletePropagationBackground
	if err := s.act(youKubectl, func() (string, error) {
		if _, err := s.c.Delete(ctx, client.ReplicationControllers, demoNS, demoName, api.DeleteOptions{PropagationPolicy: &bg}); err != nil {
			return "", fmt.Errorf("demo: deleting the RC: %w", err)
		}
		return "deleted replicationcontroller web (cascade: background)", nil
	}); err != nil {
		return err
	}
	return s.waitFor(ctx, "the pods and their endpoints to be gone", func() (bool, error) {
		pods, _, err := client.For[*api.Pod](s.c).List(ctx, demoNS, client.ListOptions{LabelSelector: "app=web"})
		if err != nil || len(pods) > 0 {
			return false, err
		}
		ep, err := client.For[*api.Endpoints](s.c).Get(ctx, demoNS, demoName)
		if err != nil {
			return false, err
		}
		ready, notReady := endpointIPs(ep)
		return len(ready)+len(notReady) == 0, nil
	})
}

// summary is the closing screen, once the narration has caught up (its
// counts are of the events it told).
func (s *story) summary(ctx context.Context, elapsed time.Duration) error {
	if err := s.catchUp(ctx); err != nil {
		return err
	}
	s.chapter("Summary (%.1fs)", elapsed.Seconds())
	s.plain("pods created by the replication controller: %d; deleted by it: %d; by the garbage collector: the rest",
		s.n.count("replication-controller", replication.ReasonSuccessfulCreate), s.n.count("replication-controller", replication.ReasonSuccessfulDelete))
	s.plain("scale-down removed first, as the controller ranked them: %s", strings.Join(s.stats.deletedFirst, ", "))
	if s.stats.newLeader != "" {
		s.plain("leader %s crashed; %s took over, first write %.1fs after the crash (lease %s)",
			s.stats.oldLeader, s.stats.newLeader, s.stats.failover.Seconds(), s.p.Options().LeaderElection.LeaseDuration)
	}
	if s.stats.shopRevision != "" {
		s.plain("deployment %s: %d replica set scales (ScalingReplicaSet); the replica set controller created %d pods",
			shopName, s.n.count("deployment-controller", deployment.ReasonScalingReplicaSet), s.n.count("replicaset-controller", replication.ReasonSuccessfulCreate))
		s.plain("and deleted %d; rolled back to replica set %s, now revision %s",
			s.n.count("replicaset-controller", replication.ReasonSuccessfulDelete), s.stats.shopRollback, s.stats.shopRevision)
	}
	if s.stats.kept > 0 {
		s.plain("restart: the new process read back all %d objects the old one served, none lost", s.stats.kept)
	}
	s.plain("store revision %d: every write, by anyone, moved it by exactly one", s.p.Server().Store().Rev())
	s.plain("")
	s.plain("Read next: controllers/replication (expectations, ranking), controllers/deployment")
	s.plain("(rolling.go: ReconcileNewReplicaSet, ReconcileOldReplicaSets), controllers/endpoints,")
	s.plain("election (the write guard), and sim: replay any run, faults included, from a seed.")
	s.plain("Run it again with --keep-running and point kubectl at it.")
	return nil
}

// podRankFacts says what the deletion ranking compares of a pod, as the
// API stores it: its timestamps are whole seconds (UTC), so a pod that
// became ready at 4.9s past a second shows, and ranks, as ready at that
// second.
func podRankFacts(p *api.Pod) string {
	const clock = "15:04:05"
	var state string
	switch {
	case p.Spec.NodeName == "":
		state = "not scheduled"
	case p.Status.Phase != api.PodRunning:
		state = string(p.Status.Phase)
	case !api.IsPodReady(p):
		state = "not ready"
	default:
		state = "ready"
		if c := readyCondition(p); c != nil && !c.LastTransitionTime.IsZero() {
			state = "ready since " + c.LastTransitionTime.UTC().Format(clock)
		}
	}
	return fmt.Sprintf("%s, %d restarts, created %s, uid %s…", state, restarts(p),
		p.Metadata.CreationTimestamp.UTC().Format(clock), string(p.Metadata.UID)[:8])
}
