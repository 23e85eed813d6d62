// Package clientgo is an example of testing a controller written with
// plain client-go — a SharedInformerFactory, a TypedRateLimitingQueue and
// workers — against miniplane's plane in process, in virtual time, with
// seeded API faults.
//
// The controller (Runner) gives every ConfigMap labelled run=true one Pod
// that "runs" it, named by generateName, and finds that pod again by its
// label. It comes in two versions, chosen by Config.TrustCachedList: the
// planted bug lists the ConfigMap's pods with resourceVersion=0, the
// cheap read kube-apiserver may serve from its watch cache, and creates a
// pod when the list shows none — so a list served stale (from before its
// own create) makes it create a second pod. The fix lists with
// resourceVersion unset, a quorum read that is never stale. Only the
// Stale fault exposes the bug; the tests sweep seeds to find it.
package clientgo

import (
	"context"
	"fmt"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"
)

// Labels the controller reads and writes.
const (
	RunLabel   = "run"     // RunLabel=true on a ConfigMap asks for a runner pod
	OwnerLabel = "run-for" // OwnerLabel=<configmap> on the pod that runs it
)

// Config configures a Runner.
type Config struct {
	Client kubernetes.Interface
	// Workers is how many keys are reconciled at once; 0 means 2.
	Workers int
	// TrustCachedList plants the bug: list the pods with
	// resourceVersion=0, which may be served stale, to decide a create.
	TrustCachedList bool
}

// Runner is the controller. Create it with New, start it with Run.
type Runner struct {
	cfg     Config
	factory informers.SharedInformerFactory
	maps    corelisters.ConfigMapLister
	queue   workqueue.TypedRateLimitingInterface[string]
}

// New wires the informers and their handlers; it starts nothing.
func New(cfg Config) (*Runner, error) {
	if cfg.Client == nil {
		return nil, fmt.Errorf("clientgo: Config needs a Client")
	}
	if cfg.Workers == 0 {
		cfg.Workers = 2
	}
	factory := informers.NewSharedInformerFactory(cfg.Client, 10*time.Minute)
	r := &Runner{
		cfg:     cfg,
		factory: factory,
		maps:    factory.Core().V1().ConfigMaps().Lister(),
		queue: workqueue.NewTypedRateLimitingQueueWithConfig(workqueue.DefaultTypedControllerRateLimiter[string](),
			workqueue.TypedRateLimitingQueueConfig[string]{Name: "runner"}),
	}
	enqueue := func(obj any) {
		if key, err := cache.DeletionHandlingMetaNamespaceKeyFunc(obj); err == nil {
			r.queue.Add(key)
		}
	}
	if _, err := factory.Core().V1().ConfigMaps().Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    enqueue,
		UpdateFunc: func(_, obj any) { enqueue(obj) },
		DeleteFunc: enqueue,
	}); err != nil {
		return nil, err
	}
	// A runner pod's events bring its ConfigMap back.
	enqueueOwner := func(obj any) {
		if d, ok := obj.(cache.DeletedFinalStateUnknown); ok {
			obj = d.Obj
		}
		if p, ok := obj.(*corev1.Pod); ok && p.Labels[OwnerLabel] != "" {
			r.queue.Add(p.Namespace + "/" + p.Labels[OwnerLabel])
		}
	}
	if _, err := factory.Core().V1().Pods().Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    enqueueOwner,
		UpdateFunc: func(_, obj any) { enqueueOwner(obj) },
		DeleteFunc: enqueueOwner,
	}); err != nil {
		return nil, err
	}
	return r, nil
}

// Run starts the informers and the workers and returns once ctx ends and
// all of them have stopped.
func (r *Runner) Run(ctx context.Context) {
	defer utilruntime.HandleCrash()
	r.factory.Start(ctx.Done())
	defer r.factory.Shutdown()
	defer r.queue.ShutDown()
	if !cache.WaitForCacheSync(ctx.Done(), r.factory.Core().V1().ConfigMaps().Informer().HasSynced,
		r.factory.Core().V1().Pods().Informer().HasSynced) {
		return
	}
	var wg sync.WaitGroup
	for range r.cfg.Workers {
		wg.Go(func() {
			for r.processNext(ctx) {
			}
		})
	}
	<-ctx.Done()
	r.queue.ShutDown()
	wg.Wait()
}

func (r *Runner) processNext(ctx context.Context) bool {
	key, quit := r.queue.Get()
	if quit {
		return false
	}
	defer r.queue.Done(key)
	if err := r.sync(ctx, key); err != nil {
		utilruntime.HandleErrorWithContext(ctx, err, "syncing runner", "key", key)
		r.queue.AddRateLimited(key)
		return true
	}
	r.queue.Forget(key)
	return true
}

// sync makes sure the ConfigMap key names, if it asks to run, has a runner
// pod.
func (r *Runner) sync(ctx context.Context, key string) error {
	ns, name, err := cache.SplitMetaNamespaceKey(key)
	if err != nil {
		return nil // not ours to retry
	}
	cm, err := r.maps.ConfigMaps(ns).Get(name)
	switch {
	case apierrors.IsNotFound(err):
		return nil
	case err != nil:
		return err
	case cm.Labels[RunLabel] != "true":
		return nil
	}
	opts := metav1.ListOptions{LabelSelector: labels.Set{OwnerLabel: name}.String()}
	if r.cfg.TrustCachedList {
		opts.ResourceVersion = "0" // the bug: any state will do, however old
	}
	pods, err := r.cfg.Client.CoreV1().Pods(ns).List(ctx, opts)
	if err != nil {
		return err
	}
	if len(pods.Items) > 0 {
		return nil
	}
	_, err = r.cfg.Client.CoreV1().Pods(ns).Create(ctx, runnerPod(cm), metav1.CreateOptions{})
	return err
}

// runnerPod is the pod that runs cm.
func runnerPod(cm *corev1.ConfigMap) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{
			Namespace:    cm.Namespace,
			GenerateName: cm.Name + "-",
			Labels:       map[string]string{OwnerLabel: cm.Name},
			OwnerReferences: []metav1.OwnerReference{*metav1.NewControllerRef(cm,
				corev1.SchemeGroupVersion.WithKind("ConfigMap"))},
		},
		Spec: corev1.PodSpec{
			RestartPolicy: corev1.RestartPolicyNever,
			Containers:    []corev1.Container{{Name: "run", Image: "busybox"}},
		},
	}
}
