// Package ctrlruntime is an example of testing a controller-runtime
// reconciler against miniplane's plane in process, in virtual time, with
// seeded API faults.
//
// The reconciler (KeyCounter) writes on every ConfigMap labelled
// count=true an annotation saying how many data keys it has, with
// client.Update. It comes in two versions, chosen by
// KeyCounter.DropOnConflict: the planted bug treats a 409 Conflict as
// "someone else changed it, their change will bring us back" and drops
// the key. That holds when the conflicting write's event is still to come,
// which is why the bug survives review; it does not when the event came
// before the conflict, or when the 409 came with no write behind it — then
// nothing requeues the key and the annotation stays wrong for good. The
// fix returns the error, and controller-runtime requeues the key with
// backoff. Only the Conflict fault exposes the bug; the tests sweep seeds
// to find it.
package ctrlruntime

import (
	"context"
	"strconv"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
)

// Names the reconciler reads and writes.
const (
	CountLabel     = "count"                     // CountLabel=true asks for the annotation
	KeysAnnotation = "example.miniplane.io/keys" // how many data keys the ConfigMap has
)

// KeyCounter is the reconciler.
type KeyCounter struct {
	Client client.Client
	// DropOnConflict plants the bug: a 409 Conflict drops the key instead
	// of requeueing it.
	DropOnConflict bool
}

// SetupWithManager registers the reconciler for the labelled ConfigMaps.
func (k *KeyCounter) SetupWithManager(mgr ctrl.Manager) error {
	labelled, err := predicate.LabelSelectorPredicate(metav1LabelSelector())
	if err != nil {
		return err
	}
	return ctrl.NewControllerManagedBy(mgr).
		Named("key-counter").
		For(&corev1.ConfigMap{}, builder.WithPredicates(labelled)).
		Complete(k)
}

// Reconcile sets the annotation of one ConfigMap.
func (k *KeyCounter) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	var cm corev1.ConfigMap
	if err := k.Client.Get(ctx, req.NamespacedName, &cm); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	want := strconv.Itoa(len(cm.Data))
	if cm.Annotations[KeysAnnotation] == want {
		return ctrl.Result{}, nil
	}
	if cm.Annotations == nil {
		cm.Annotations = map[string]string{}
	}
	cm.Annotations[KeysAnnotation] = want
	err := k.Client.Update(ctx, &cm)
	if apierrors.IsConflict(err) && k.DropOnConflict {
		ctrl.LoggerFrom(ctx).V(1).Info("conflict; the newer version's event will bring the key back")
		return ctrl.Result{}, nil // the bug
	}
	return ctrl.Result{}, err
}

func metav1LabelSelector() metav1.LabelSelector {
	return metav1.LabelSelector{MatchLabels: map[string]string{CountLabel: "true"}}
}
