package disruption

import (
	"context"
	"fmt"
	"strings"
	"time"

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

// Client is what the controller reads owners it has no lister for through
// (custom resources with a scale subresource, and their definitions) and
// writes budgets' status through. client.Client and *apiserver.Server
// satisfy it.
type Client interface {
	Get(ctx context.Context, resource, namespace, name string, opts client.GetOptions) (api.Object, error)
	List(ctx context.Context, resource, namespace string, opts client.ListOptions) (*client.List, error)
	UpdateStatus(ctx context.Context, obj api.Object, opts ...client.WriteOption) (api.Object, error)
}

// Config configures a Controller. Client, Factory and Clock are required.
type Config struct {
	// Client carries every write.
	Client Client
	// Factory gives the shared informers: budgets, pods and the workload
	// kinds whose scale a percentage budget counts.
	Factory *informer.Factory
	// Clock times disruptedPods' expiry, conditions and the queue.
	Clock clock.Clock
	// Logger is named "disruption" by New; nil means no logs.
	Logger *zap.Logger
	// Recorder, if set, receives the budgets' events (NoPods,
	// CalculateExpectedPodCountFailed, UnmanagedPods) and the pods'
	// (NotDeleted).
	Recorder *record.EventRecorder
	// RateLimiter is the queue's; nil means the default controller limiter.
	RateLimiter workqueue.RateLimiter[string]
	// Observer, if set, is told of every sync (loop.Observer).
	Observer loop.Observer
}

// Controller is the disruption controller. See the package documentation.
type Controller struct {
	client   Client
	clock    clock.Clock
	log      *zap.Logger
	recorder *record.EventRecorder

	pdbs        informer.Lister[*api.PodDisruptionBudget]
	pods        informer.Lister[*api.Pod]
	rcs         informer.Lister[*api.ReplicationController]
	rss         informer.Lister[*api.ReplicaSet]
	deployments informer.Lister[*api.Deployment]
	sets        informer.Lister[*api.StatefulSet]

	informers []*informer.Informer
	regs      []*informer.Registration

	// queue holds the keys ("namespace/name") of budgets to sync.
	queue *workqueue.Queue[string]

	*loop.Loop // HasSynced, ProcessOne and Run: a manager.Controller
}

// New returns a controller whose handlers are registered on cfg.Factory's
// budget and pod informers (and whose listers read its workload
// informers). It starts nothing.
func New(cfg Config) (*Controller, error) {
	if err := loop.CheckRequired("disruption", cfg.Client, cfg.Factory, cfg.Clock); err != nil {
		return nil, err
	}
	log := loop.Logger(cfg.Logger)
	c := &Controller{
		client: cfg.Client, clock: cfg.Clock, log: log.Named("disruption"), recorder: cfg.Recorder,
		queue: loop.NewQueue("disruption", cfg.Clock, cfg.RateLimiter),
	}
	f := cfg.Factory
	pdbInf, podInf := f.ForResource(client.PodDisruptionBudgets), f.ForResource(client.Pods)
	rcInf, rsInf := f.ForResource(client.ReplicationControllers), f.ForResource(client.ReplicaSets)
	dInf, ssInf := f.ForResource(client.Deployments), f.ForResource(client.StatefulSets)
	c.pdbs = informer.NewLister[*api.PodDisruptionBudget](pdbInf, apierrors.GroupResource{Group: "policy", Resource: client.PodDisruptionBudgets})
	c.pods = informer.NewLister[*api.Pod](podInf, apierrors.GroupResource{Resource: client.Pods})
	c.rcs = informer.NewLister[*api.ReplicationController](rcInf, apierrors.GroupResource{Resource: client.ReplicationControllers})
	c.rss = informer.NewLister[*api.ReplicaSet](rsInf, apierrors.GroupResource{Group: "apps", Resource: client.ReplicaSets})
	c.deployments = informer.NewLister[*api.Deployment](dInf, apierrors.GroupResource{Group: "apps", Resource: client.Deployments})
	c.sets = informer.NewLister[*api.StatefulSet](ssInf, apierrors.GroupResource{Group: "apps", Resource: client.StatefulSets})
	onPod := func(obj api.Object) {
		if key, ok := c.budgetOf(obj.(*api.Pod)); ok {
			c.queue.Add(key)
		}
	}
	c.informers = []*informer.Informer{pdbInf, podInf, rcInf, rsInf, dInf, ssInf}
	c.regs = []*informer.Registration{
		pdbInf.AddEventHandler(informer.HandlerFuncs{
			AddFunc:    func(obj api.Object, _ bool) { c.queue.Add(informer.KeyOf(obj)) },
			UpdateFunc: func(_, cur api.Object) { c.queue.Add(informer.KeyOf(cur)) },
			DeleteFunc: func(obj any) {
				if o, _ := informer.DeletedObject(obj); o != nil {
					c.queue.Add(informer.KeyOf(o))
				}
			},
		}, 0),
		podInf.AddEventHandler(informer.HandlerFuncs{
			AddFunc:    func(obj api.Object, _ bool) { onPod(obj) },
			UpdateFunc: func(_, cur api.Object) { onPod(cur) },
			DeleteFunc: func(obj any) {
				if o, _ := informer.DeletedObject(obj); o != nil {
					onPod(o)
				}
			},
		}, 0),
	}
	var err error
	c.Loop, err = loop.New(loop.Config{
		Registrations: c.regs,
		Name:          "disruption", Queue: c.queue, Sync: c.sync, Logger: c.log,
		Observer: cfg.Observer, Clock: cfg.Clock,
		Informers: c.informers,
	})
	if err != nil {
		return nil, fmt.Errorf("disruption: %w", err)
	}
	return c, nil
}

// budgetOf is the key of the first budget (in key order) that selects p:
// a pod's change wakes that budget only, as upstream's getPdbForPod does.
func (c *Controller) budgetOf(p *api.Pod) (string, bool) {
	for _, pdb := range c.pdbs.Namespace(p.Metadata.Namespace).List(api.Selector{}) {
		if Selects(pdb, p.Metadata.Labels) {
			return informer.KeyOf(pdb), true
		}
	}
	return "", false
}

// Selects reports whether pdb counts pods labelled labels: an empty
// selector selects every pod of the namespace (policy/v1's rule), a missing
// or invalid one none. The eviction subresource is stricter
// (api.BudgetSelects). Kubernetes: the policy/v1 lister's
// GetPodPodDisruptionBudgets and getPodsForPdb.
func Selects(pdb *api.PodDisruptionBudget, labels map[string]string) bool {
	if pdb.Spec.Selector == nil {
		return false
	}
	sel, err := api.LabelSelectorAsSelector(pdb.Spec.Selector)
	return err == nil && sel.Matches(labels)
}

// sync reconciles one budget's status. A failure other than a conflict
// writes the fail-safe status (no disruption allowed) and is not retried
// when that write succeeds; the next change of the budget or its pods
// brings the key back. Kubernetes: sync.
func (c *Controller) sync(ctx context.Context, key string) error {
	namespace, name, err := api.SplitKey(key)
	if err != nil {
		c.log.Error("bad key", zap.String("key", key), zap.Error(err))
		return nil
	}
	pdb, err := c.pdbs.Namespace(namespace).Get(name)
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return err
	}
	err = c.trySync(ctx, key, pdb)
	if err == nil || apierrors.IsConflict(err) {
		return err
	}
	c.log.Info("failed to sync budget", zap.String("key", key), zap.Error(err))
	return c.writeStatus(ctx, pdb, FailSafe(pdb, err, c.clock.Now()))
}

// trySync is observe (the budget's pods and their owners' scale), decide
// (ExpectedPods, DisruptedPods, CountHealthy, Status), act (the status
// write, the events, the recheck). Kubernetes: trySync.
func (c *Controller) trySync(ctx context.Context, key string, pdb *api.PodDisruptionBudget) error {
	pods, err := c.podsOf(pdb)
	if err != nil {
		c.event(ctx, pdb, api.EventTypeWarning, "NoPods", "Failed to get pods: "+err.Error())
		return err
	}
	if len(pods) == 0 {
		c.event(ctx, pdb, api.EventTypeNormal, "NoPods", "No matching pods found")
	}
	expected, desired, unmanaged, err := ExpectedPods(pdb, pods, func(ref *api.OwnerReference, ns string) (*OwnerScale, error) {
		return c.findOwner(ctx, ref, ns)
	})
	if err != nil {
		c.event(ctx, pdb, api.EventTypeWarning, "CalculateExpectedPodCountFailed", "Failed to calculate the number of expected pods: "+err.Error())
		return err
	}
	if len(unmanaged) > 0 {
		c.event(ctx, pdb, api.EventTypeWarning, "UnmanagedPods", unmanagedMessage(pdb))
	}
	now := c.clock.Now()
	disrupted, recheck, expired := DisruptedPods(pdb, pods, now)
	for _, p := range expired {
		c.event(ctx, p, api.EventTypeWarning, "NotDeleted",
			fmt.Sprintf("Pod was expected by PDB %s/%s to be deleted but it wasn't", pdb.Metadata.Namespace, pdb.Metadata.Name))
	}
	st, changed := Status(pdb, Counts{
		CurrentHealthy: CountHealthy(pods, disrupted, now), DesiredHealthy: desired, Expected: expected, Disrupted: disrupted,
	}, now)
	if changed {
		if err := c.writeStatus(ctx, pdb, st); err != nil {
			return err
		}
	}
	if !recheck.IsZero() {
		// One instant past the expiry: DisruptedPods keeps an entry
		// until its deadline is strictly behind now.
		c.queue.AddAfter(key, recheck.Sub(now)+time.Second)
	}
	return nil
}

// unmanagedMessage is upstream's UnmanagedPods event, the selector printed
// as the API writes it.
func unmanagedMessage(pdb *api.PodDisruptionBudget) string {
	sel := "nil"
	if s, err := api.LabelSelectorAsSelector(pdb.Spec.Selector); err == nil && pdb.Spec.Selector != nil {
		sel = s.String()
	}
	return "Pods selected by this PodDisruptionBudget (selector: " + sel + ") were found " +
		"to be unmanaged. As a result, the status of the PDB cannot be calculated correctly, which may result in undefined behavior. " +
		"To account for these pods please set \".spec.minAvailable\" field of the PDB to an integer value."
}

// podsOf are the pods pdb's selector selects in its namespace: every pod
// for an empty selector, none for a missing one. Kubernetes: getPodsForPdb.
func (c *Controller) podsOf(pdb *api.PodDisruptionBudget) ([]*api.Pod, error) {
	if pdb.Spec.Selector == nil {
		return nil, nil
	}
	sel, err := api.LabelSelectorAsSelector(pdb.Spec.Selector)
	if err != nil {
		return nil, err
	}
	return c.pods.Namespace(pdb.Metadata.Namespace).List(sel), nil
}

func (c *Controller) writeStatus(ctx context.Context, pdb *api.PodDisruptionBudget, st api.PodDisruptionBudgetStatus) error {
	next := *pdb
	next.Status = st
	_, err := c.client.UpdateStatus(ctx, &next)
	return err
}

func (c *Controller) event(ctx context.Context, obj api.Object, typ, reason, msg string) {
	if c.recorder != nil {
		_ = c.recorder.Event(ctx, obj, typ, reason, msg)
	}
}

// groupOf is the group of an apiVersion: "" for "v1", "apps" for "apps/v1".
func groupOf(apiVersion string) string {
	g, _, found := strings.Cut(apiVersion, "/")
	if !found {
		return ""
	}
	return g
}
