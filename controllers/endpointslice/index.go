package endpointslice

import (
	"fmt"
	"maps"
	"slices"

	"go.uber.org/zap"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/informer"
)

// The controller's indexes, so that a sync reads the pods its service
// selects and a pod's change finds the services that select it without a
// walk over the namespace: at 100,000 pods a walk per sync made the
// controller quadratic. Kubernetes lists the namespace's pods with the
// selector; the result, and its key order, are the same.
const (
	// podLabelIndex indexes a pod under each of its labels, as
	// "namespace/key=value".
	podLabelIndex = "endpointslice/podsByLabel"
	// serviceSelectorIndex indexes a service under each pair of its
	// selector, as podLabelIndex's values; one with a selector of no pairs
	// (it selects every pod of its namespace) under "namespace/*".
	serviceSelectorIndex = "endpointslice/servicesBySelector"
	// sliceServiceIndex indexes a slice this controller manages under its
	// service's key.
	sliceServiceIndex = "endpointslice/slicesByService"
)

func labelValue(ns, k, v string) string { return ns + "/" + k + "=" + v }

func podIndexFunc(obj api.Object) []string {
	m := obj.GetObjectMeta()
	out := make([]string, 0, len(m.Labels))
	for k, v := range m.Labels {
		out = append(out, labelValue(m.Namespace, k, v))
	}
	return out
}

func serviceIndexFunc(obj api.Object) []string {
	svc := obj.(*api.Service)
	sel := svc.Spec.Selector
	switch {
	case sel == nil:
		return nil
	case len(sel) == 0:
		return []string{svc.Metadata.Namespace + "/*"}
	}
	out := make([]string, 0, len(sel))
	for k, v := range sel {
		out = append(out, labelValue(svc.Metadata.Namespace, k, v))
	}
	return out
}

func sliceIndexFunc(obj api.Object) []string {
	m := obj.GetObjectMeta()
	if m.Labels[LabelManagedBy] != ControllerName || m.Labels[LabelServiceName] == "" {
		return nil
	}
	return []string{m.Namespace + "/" + m.Labels[LabelServiceName]}
}

// addIndex adds index name to inf's cache; one of that name already there
// is this package's, from an earlier New on the same factory.
func addIndex(inf *informer.Informer, name string, f informer.IndexFunc) error {
	x := inf.Indexer()
	err := x.AddIndexers(map[string]informer.IndexFunc{name: f})
	if err == nil {
		return nil
	}
	if _, lookupErr := x.IndexKeys(name, ""); lookupErr == nil {
		return nil
	}
	return fmt.Errorf("endpointslice.New: add index %q: %w", name, err)
}

// selectedPods returns the pods of namespace ns that selector sel (not
// nil) picks, in key order: those under its pair with the fewest pods,
// matched against the whole selector.
func (c *Controller) selectedPods(ns string, sel map[string]string) ([]*api.Pod, error) {
	if len(sel) == 0 {
		return c.pods.Namespace(ns).List(api.Selector{}), nil
	}
	best, fewest := "", -1
	for _, k := range slices.Sorted(maps.Keys(sel)) {
		value := labelValue(ns, k, sel[k])
		keys, err := c.podIndexer.IndexKeys(podLabelIndex, value)
		if err != nil {
			return nil, err
		}
		if fewest < 0 || len(keys) < fewest {
			best, fewest = value, len(keys)
		}
	}
	if fewest == 0 {
		return nil, nil
	}
	candidates, err := informer.ByIndexOf[*api.Pod](c.podIndexer, podLabelIndex, best)
	if err != nil {
		return nil, err
	}
	selector := api.SelectorFromSet(sel)
	return slices.DeleteFunc(candidates, func(p *api.Pod) bool { return !selector.Matches(p.Metadata.Labels) }), nil
}

// podServices appends to dst the keys of the services whose selector picks
// the pod, sorted. Kubernetes: GetPodServiceMemberships.
func (c *Controller) podServices(pod *api.Pod, dst []string) []string {
	start := len(dst)
	ns := pod.Metadata.Namespace
	add := func(value string) {
		svcs, err := informer.ByIndexOf[*api.Service](c.svcIndexer, serviceSelectorIndex, value)
		if err != nil {
			c.log.Error("reading the service index", zap.Error(err))
			return
		}
		for _, svc := range svcs {
			key := api.KeyOf(&svc.Metadata)
			if !slices.Contains(dst[start:], key) && api.SelectorFromSet(svc.Spec.Selector).Matches(pod.Metadata.Labels) {
				dst = append(dst, key)
			}
		}
	}
	add(ns + "/*")
	for k, v := range pod.Metadata.Labels {
		add(labelValue(ns, k, v))
	}
	slices.Sort(dst[start:])
	return dst
}
