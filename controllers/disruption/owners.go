package disruption

import (
	"context"
	"fmt"
	"strings"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/api/apierrors"
	"github.com/miniplane/miniplane/client"
)

// findOwner returns the scale of the controller ref names: a
// ReplicationController, a Deployment through its ReplicaSet, a ReplicaSet
// no Deployment controls, a StatefulSet (from the listers), else whatever
// has a scale subresource. nil when the owner is gone or is another object
// of that name. Kubernetes: finders, in the same order.
func (c *Controller) findOwner(ctx context.Context, ref *api.OwnerReference, namespace string) (*OwnerScale, error) {
	group := groupOf(ref.APIVersion)
	switch {
	case ref.Kind == "ReplicationController" && group == "":
		rc, err := c.rcs.Namespace(namespace).Get(ref.Name)
		if err != nil || rc.Metadata.UID != ref.UID {
			return nil, nil
		}
		return &OwnerScale{rc.Metadata.UID, replicas(rc.Spec.Replicas)}, nil
	case ref.Kind == "ReplicaSet" && (group == "apps" || group == "extensions"):
		rs, err := c.rss.Namespace(namespace).Get(ref.Name)
		if err != nil || rs.Metadata.UID != ref.UID {
			return nil, nil
		}
		if d := api.GetControllerOf(&rs.Metadata); d != nil && d.Kind == "Deployment" {
			if g := groupOf(d.APIVersion); g == "apps" || g == "extensions" {
				dep, err := c.deployments.Namespace(namespace).Get(d.Name)
				if err == nil && dep.Metadata.UID == d.UID {
					return &OwnerScale{dep.Metadata.UID, replicas(dep.Spec.Replicas)}, nil
				}
			}
			// A ReplicaSet whose Deployment is not found: upstream's
			// ReplicaSet finder skips it and the scale finder reads the
			// ReplicaSet's own scale.
		}
		return &OwnerScale{rs.Metadata.UID, replicas(rs.Spec.Replicas)}, nil
	case ref.Kind == "StatefulSet" && group == "apps":
		ss, err := c.sets.Namespace(namespace).Get(ref.Name)
		if err != nil || ss.Metadata.UID != ref.UID {
			return nil, nil
		}
		return &OwnerScale{ss.Metadata.UID, replicas(ss.Spec.Replicas)}, nil
	}
	return c.customScale(ctx, ref, namespace)
}

// customScale reads the desired replicas of an owner none of the listers
// knows: a custom resource whose definition declares a scale subresource.
// Kubernetes: getScaleController (a RESTMapping, then the scale client).
func (c *Controller) customScale(ctx context.Context, ref *api.OwnerReference, namespace string) (*OwnerScale, error) {
	group := groupOf(ref.APIVersion)
	for _, t := range api.RegisteredTypes() {
		if t.Group == group && t.Kind == ref.Kind {
			// A built-in kind without a scale subresource (a Job, a Pod).
			return nil, fmt.Errorf("%s does not implement the scale subresource", apierrors.GroupResource{Group: group, Resource: t.Resource})
		}
	}
	crds, err := c.client.List(ctx, client.CustomResourceDefinitions, "", client.ListOptions{})
	if err != nil {
		return nil, err
	}
	for _, o := range crds.Items {
		crd := o.(*api.CustomResourceDefinition)
		if crd.Spec.Group != group || crd.Spec.Names.Kind != ref.Kind {
			continue
		}
		gr := apierrors.GroupResource{Group: group, Resource: crd.Spec.Names.Plural}
		path := scalePath(crd)
		if path == "" {
			return nil, fmt.Errorf("%s does not implement the scale subresource", gr)
		}
		obj, err := c.client.Get(ctx, gr.String(), namespace, ref.Name, client.GetOptions{})
		if apierrors.IsNotFound(err) {
			return nil, nil
		}
		if err != nil {
			return nil, err
		}
		u := obj.(*api.Unstructured)
		if u.Metadata.UID != ref.UID {
			return nil, nil
		}
		return &OwnerScale{u.Metadata.UID, specReplicas(u.Content, path)}, nil
	}
	return nil, fmt.Errorf("no matches for kind %q in version %q", ref.Kind, ref.APIVersion)
}

// scalePath is the specReplicasPath of crd's storage version's scale
// subresource, or "" when it has none.
func scalePath(crd *api.CustomResourceDefinition) string {
	for _, v := range crd.Spec.Versions {
		if v.Storage && v.Subresources != nil && v.Subresources.Scale != nil {
			return v.Subresources.Scale.SpecReplicasPath
		}
	}
	return ""
}

// specReplicas reads the integer at a JSON path such as ".spec.replicas";
// a missing value is 0, as the scale subresource reports it.
func specReplicas(content api.JSONObject, path string) int32 {
	var v any = map[string]any(content)
	for _, f := range strings.Split(strings.TrimPrefix(path, "."), ".") {
		m, ok := v.(map[string]any)
		if !ok {
			return 0
		}
		v = m[f]
	}
	switch n := v.(type) {
	case int64:
		return int32(n)
	case float64:
		return int32(n)
	}
	return 0
}

// replicas is a spec.replicas, nil meaning 1.
func replicas(r *int32) int32 {
	if r == nil {
		return 1
	}
	return *r
}
