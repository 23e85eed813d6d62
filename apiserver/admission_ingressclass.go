package apiserver

import (
	"context"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/client"
)

// admitDefaultIngressClass is kube-apiserver's DefaultIngressClass
// admission plugin (plugin/pkg/admission/network/defaultingressclass) for
// an Ingress being created: one that names no class (no ingressClassName
// and no kubernetes.io/ingress.class annotation) gets the default class's
// name. The default is an IngressClass annotated
// ingressclass.kubernetes.io/is-default-class "true"; of several, the
// newest wins, then the first by name (v1.32's getDefaultClass). With none,
// the ingress is left as it is.
func (s *Server) admitDefaultIngressClass(ctx context.Context, in *api.Ingress) error {
	if in.Spec.IngressClassName != nil {
		return nil
	}
	if _, ok := in.Metadata.Annotations[api.AnnotationIngressClass]; ok {
		return nil
	}
	l, err := s.List(ctx, client.IngressClasses, "", client.ListOptions{})
	if err != nil {
		return err
	}
	classes := make([]*api.IngressClass, len(l.Items))
	for i, o := range l.Items {
		classes[i] = o.(*api.IngressClass)
	}
	if c := defaultIngressClassOf(classes); c != nil {
		in.Spec.IngressClassName = ptr(c.Metadata.Name)
	}
	return nil
}

// defaultIngressClassOf returns the default among classes: the newest of
// those annotated default, ties to the first by name; nil when none is.
func defaultIngressClassOf(classes []*api.IngressClass) *api.IngressClass {
	var chosen *api.IngressClass
	for _, c := range classes {
		if c.Metadata.Annotations[api.AnnotationIsDefaultIngressClass] != "true" {
			continue
		}
		t, ct := c.Metadata.CreationTimestamp.Time, api.Time{}.Time
		if chosen != nil {
			ct = chosen.Metadata.CreationTimestamp.Time
		}
		if chosen == nil || t.After(ct) || t.Equal(ct) && c.Metadata.Name < chosen.Metadata.Name {
			chosen = c
		}
	}
	return chosen
}
