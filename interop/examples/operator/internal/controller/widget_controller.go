// Package controller is the example operator's reconciler, laid out as
// kubebuilder lays out internal/controller: WidgetReconciler keeps, for
// every Widget, a ConfigMap "<name>-config" holding its spec, owned by the
// Widget through a controller reference (so that the garbage collector
// deletes it with the Widget, and a change to it requeues the Widget), and
// records in the Widget's status which ConfigMap and which generation it
// made.
//
// It comes in two versions, chosen by SwallowStatusErrors. The planted
// bug treats the status write as best effort: an error is logged and
// dropped, "the next event will bring the widget back". It holds while
// more events are to come, which is why the bug survives review; when the
// failed write was the last one, nothing requeues the Widget and its
// status stays behind its spec for good. Only an API fault on that write
// (a 409 Conflict, a 500, a 429 beyond client-go's retries) exposes it:
// the tests sweep seeds to find it. The fix returns the error, and
// controller-runtime requeues the key with backoff.
package controller

import (
	"context"
	"strconv"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	examplev1 "github.com/miniplane/miniplane/interop/examples/operator/api/v1"
)

// WidgetReconciler reconciles Widgets.
type WidgetReconciler struct {
	client.Client
	Scheme *runtime.Scheme
	// SwallowStatusErrors plants the bug: a failed status write is
	// dropped instead of retried.
	SwallowStatusErrors bool
}

// ConfigMapName is the name of the ConfigMap a Widget owns.
func ConfigMapName(w *examplev1.Widget) string { return w.Name + "-config" }

// ConfigMapData is what a Widget's ConfigMap holds.
func ConfigMapData(spec examplev1.WidgetSpec) map[string]string {
	return map[string]string{"message": spec.Message, "size": spec.Size, "replicas": strconv.Itoa(int(spec.Replicas))}
}

// +kubebuilder:rbac:groups=example.miniplane.io,resources=widgets,verbs=get;list;watch;update;patch
// +kubebuilder:rbac:groups=example.miniplane.io,resources=widgets/status,verbs=get;update;patch
// +kubebuilder:rbac:groups="",resources=configmaps,verbs=get;list;watch;create;update;patch;delete

// Reconcile brings one Widget's ConfigMap and status in line with its
// spec.
func (r *WidgetReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	var w examplev1.Widget
	if err := r.Get(ctx, req.NamespacedName, &w); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if !w.DeletionTimestamp.IsZero() {
		return ctrl.Result{}, nil // the garbage collector takes the ConfigMap
	}
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: w.Namespace, Name: ConfigMapName(&w)}}
	if _, err := controllerutil.CreateOrUpdate(ctx, r.Client, cm, func() error {
		cm.Data = ConfigMapData(w.Spec)
		return controllerutil.SetControllerReference(&w, cm, r.Scheme)
	}); err != nil {
		return ctrl.Result{}, err
	}
	if w.Status.ConfigMap == cm.Name && w.Status.ObservedGeneration == w.Generation {
		return ctrl.Result{}, nil
	}
	w.Status.ConfigMap, w.Status.ObservedGeneration = cm.Name, w.Generation
	if err := r.Status().Update(ctx, &w); err != nil {
		if r.SwallowStatusErrors {
			ctrl.LoggerFrom(ctx).V(1).Info("status not written; the next event will bring the widget back", "error", err.Error())
			return ctrl.Result{}, nil // the bug
		}
		return ctrl.Result{}, err
	}
	return ctrl.Result{}, nil
}

// SetupWithManager registers the reconciler for Widgets and the
// ConfigMaps they own.
func (r *WidgetReconciler) SetupWithManager(mgr ctrl.Manager) error {
	return ctrl.NewControllerManagedBy(mgr).
		For(&examplev1.Widget{}).
		Owns(&corev1.ConfigMap{}).
		Named("widget").
		Complete(r)
}
