package apiserver

import (
	"context"
	"fmt"
	"slices"
	"strings"

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
// another account is looked up once. Then, unless the pod or else the
// account says automountServiceAccountToken: false, it mounts the account's
// token as kube-apiserver does (mountServiceAccountToken): a projected
// volume kube-api-access-xxxxx (the token, the namespace's kube-root-ca.crt
// and the namespace) mounted read-only at
// /var/run/secrets/kubernetes.io/serviceaccount in every container and
// init container that mounts nothing there itself.
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
	if sa, ok := s.lookupServiceAccount(ctx, namespace, name); ok {
		if automount(pod, sa) {
			s.mountServiceAccountToken(pod)
		}
		return nil
	}
	notFound := apierrors.NewNotFound(apierrors.GroupResource{Resource: "serviceaccount"}, name)
	return apierrors.NewForbidden(apierrors.GroupResource{Resource: client.Pods}, admissionName(&pod.Metadata),
		fmt.Sprintf("error looking up service account %s/%s: %s", namespace, name, notFound.Error()))
}

// lookupServiceAccount returns the stored account, waiting for the
// "default" one as admitServiceAccount says: until it is created, the wait
// is over or ctx ends. The wait watches the store, so it ends as soon as
// the account is written, on any clock.
func (s *Server) lookupServiceAccount(ctx context.Context, namespace, name string) (*api.ServiceAccount, bool) {
	key := s.kinds[client.ServiceAccounts].key(namespace, name)
	rev := s.store.Rev()
	get := func() (*api.ServiceAccount, bool) {
		obj, err := s.store.Get(key, 0)
		if err != nil {
			return nil, false
		}
		sa, ok := obj.Value.(*api.ServiceAccount)
		return sa, ok
	}
	if sa, ok := get(); ok {
		return sa, true
	}
	if name != DefaultServiceAccountName || s.defaultAccountWait <= 0 {
		return nil, false
	}
	w, err := s.store.Watch(key, rev+1)
	if err != nil {
		return nil, false
	}
	defer w.Stop()
	timer := s.clock.NewTimer(s.defaultAccountWait)
	defer timer.Stop()
	var events []store.Event[api.Object]
	for {
		select {
		case <-w.Ready():
		case <-timer.C():
			return nil, false
		case <-ctx.Done():
			return nil, false
		}
		if events, _, err = w.Poll(events[:0], 0); err != nil {
			return nil, false
		}
		if sa, ok := get(); ok {
			return sa, true
		}
	}
}

// The service account volume kube-apiserver's admission adds. Kubernetes:
// serviceaccount.ServiceAccountVolumeName, DefaultAPITokenMountPath,
// WarnOnlyBoundTokenExpirationSeconds and TokenVolumeSource.
const (
	serviceAccountVolumePrefix = "kube-api-access-"
	serviceAccountMountPath    = "/var/run/secrets/kubernetes.io/serviceaccount"
	serviceAccountTokenSeconds = 3607
	// rootCAConfigMap is the ConfigMap the root-ca-cert-publisher keeps in
	// every namespace.
	rootCAConfigMap = "kube-root-ca.crt"
)

// automount says whether pod gets its account's token: the pod's
// automountServiceAccountToken if set, else the account's, else yes.
// Kubernetes: shouldAutomount.
func automount(pod *api.Pod, sa *api.ServiceAccount) bool {
	switch {
	case pod.Spec.AutomountServiceAccountToken != nil:
		return *pod.Spec.AutomountServiceAccountToken
	case sa.AutomountServiceAccountToken != nil:
		return *sa.AutomountServiceAccountToken
	}
	return true
}

// mountServiceAccountToken mounts the token volume in every container of
// pod that mounts nothing at its path, adding the volume (named
// kube-api-access- and five random characters) unless the pod has one
// already. The pod's slices may be shared with the object it was made from
// (a controller's template): each one changed is copied first.
// Kubernetes: mountServiceAccountToken.
func (s *Server) mountServiceAccountToken(pod *api.Pod) {
	volume := ""
	for _, v := range pod.Spec.Volumes {
		if strings.HasPrefix(v.Name, serviceAccountVolumePrefix) {
			volume = v.Name
			break
		}
	}
	hasVolume := volume != ""
	if !hasVolume {
		volume = serviceAccountVolumePrefix + s.randomSuffix(serviceAccountVolumePrefix)
	}
	mount := api.VolumeMount{Name: volume, ReadOnly: true, MountPath: serviceAccountMountPath}
	needed := false
	addMounts := func(containers []api.Container) []api.Container {
		out, copied := containers, false
		for i, c := range containers {
			if slices.ContainsFunc(c.VolumeMounts, func(m api.VolumeMount) bool { return m.MountPath == serviceAccountMountPath }) {
				continue
			}
			if !copied {
				out, copied = slices.Clone(containers), true
			}
			out[i].VolumeMounts = append(slices.Clip(c.VolumeMounts), mount)
			needed = true
		}
		return out
	}
	pod.Spec.InitContainers = addMounts(pod.Spec.InitContainers)
	pod.Spec.Containers = addMounts(pod.Spec.Containers)
	if hasVolume || !needed {
		return
	}
	mode := int32(0o644)
	expiration := int64(serviceAccountTokenSeconds)
	pod.Spec.Volumes = append(slices.Clip(pod.Spec.Volumes), api.Volume{
		Name: volume,
		VolumeSource: api.VolumeSource{Projected: &api.ProjectedVolumeSource{
			DefaultMode: &mode,
			Sources: []api.VolumeProjection{
				{ServiceAccountToken: &api.ServiceAccountTokenProjection{Path: "token", ExpirationSeconds: &expiration}},
				{ConfigMap: &api.ConfigMapProjection{
					LocalObjectReference: api.LocalObjectReference{Name: rootCAConfigMap},
					Items:                []api.KeyToPath{{Key: "ca.crt", Path: "ca.crt"}},
				}},
				{DownwardAPI: &api.DownwardAPIProjection{Items: []api.DownwardAPIVolumeFile{{
					Path: "namespace", FieldRef: &api.ObjectFieldSelector{APIVersion: "v1", FieldPath: "metadata.namespace"},
				}}}},
			},
		}},
	})
}
