package apiserver

import (
	"context"
	"fmt"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/api/apierrors"
	"github.com/miniplane/miniplane/client"
	"github.com/miniplane/miniplane/store"
)

// DefaultServiceAccountName is the account a pod runs as when it names
// none; the service account controller keeps it in every namespace.
// Kubernetes: serviceaccount.DefaultServiceAccountName.
const DefaultServiceAccountName = "default"

// mirrorPodAnnotation marks the API server's copy of a static pod, which
// the kubelet creates. Kubernetes: corev1.MirrorPodAnnotationKey.
const mirrorPodAnnotation = "kubernetes.io/config.mirror"

// admitServiceAccount is kube-apiserver's ServiceAccount admission plugin
// (plugin/pkg/admission/serviceaccount, Admit) for a pod being created,
// when Config.ServiceAccounts is on: it defaults spec.serviceAccountName to
// "default" (taking the deprecated spec.serviceAccount when only that is
// set, and mirroring the name back into it), and refuses the pod with 403
// Forbidden when the account does not exist in the pod's namespace:
//
//	pods "x" is forbidden: error looking up service account ns/name: serviceaccount "name" not found
//
// As kube-apiserver's lookup retries the "default" account (the
// controller may not have made it yet in a namespace just created), a
// missing "default" is waited for, up to Config.DefaultServiceAccountWait;
// another account is looked up once. Kubernetes then mounts the account's
// token as the projected volume kube-api-access-xxxxx; miniplane adds no
// volume, and the simulated kubelet mounts the account's files itself
// (DESIGN.md, "Deliberately left out").
// Mirror pods (a static pod's, annotated kubernetes.io/config.mirror) are
// left alone, as in Kubernetes.
func (s *Server) admitServiceAccount(ctx context.Context, pod *api.Pod) error {
	if _, mirror := pod.Metadata.Annotations[mirrorPodAnnotation]; mirror {
		return nil
	}
	if pod.Spec.ServiceAccountName == "" {
		pod.Spec.ServiceAccountName = pod.Spec.DeprecatedServiceAccount
	}
	if pod.Spec.ServiceAccountName == "" {
		pod.Spec.ServiceAccountName = DefaultServiceAccountName
	}
	pod.Spec.DeprecatedServiceAccount = pod.Spec.ServiceAccountName
	name, namespace := pod.Spec.ServiceAccountName, pod.Metadata.Namespace
	if s.serviceAccountExists(ctx, namespace, name) {
		return nil
	}
	notFound := apierrors.NewNotFound(apierrors.GroupResource{Resource: "serviceaccount"}, name)
	return apierrors.NewForbidden(apierrors.GroupResource{Resource: client.Pods}, admissionName(&pod.Metadata),
		fmt.Sprintf("error looking up service account %s/%s: %s", namespace, name, notFound.Error()))
}

// serviceAccountExists reports whether the account is stored, waiting for
// the "default" one as admitServiceAccount says: until it is created, the
// wait is over or ctx ends. The wait watches the store, so it ends as soon
// as the account is written, on any clock.
func (s *Server) serviceAccountExists(ctx context.Context, namespace, name string) bool {
	key := s.kinds[client.ServiceAccounts].key(namespace, name)
	rev := s.store.Rev()
	if _, err := s.store.Get(key, 0); err == nil {
		return true
	}
	if name != DefaultServiceAccountName || s.defaultAccountWait <= 0 {
		return false
	}
	w, err := s.store.Watch(key, rev+1)
	if err != nil {
		return false
	}
	defer w.Stop()
	timer := s.clock.NewTimer(s.defaultAccountWait)
	defer timer.Stop()
	var events []store.Event[api.Object]
	for {
		select {
		case <-w.Ready():
		case <-timer.C():
			return false
		case <-ctx.Done():
			return false
		}
		if events, _, err = w.Poll(events[:0], 0); err != nil {
			return false
		}
		if _, err := s.store.Get(key, 0); err == nil {
			return true
		}
	}
}
