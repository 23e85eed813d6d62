package endpoints

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/informer"
)

// The controller's indexes on the shared pod and service informers. Their
// names carry the package's name, so that another controller sharing the
// informers cannot have taken them; a name already present was added by an
// earlier New on the same factory and indexes the same way.
const (
	// podLabelIndex indexes a pod under each of its labels, as labelValue.
	podLabelIndex = "endpoints/podsByLabel"
	// serviceSelectorIndex indexes a selector service under each pair of
	// its selector, as labelValue, or under matchAllValue if the selector is
	// empty. A service without a selector is not indexed: it picks nothing.
	serviceSelectorIndex = "endpoints/servicesBySelectorLabel"
)

// labelValue is the index value of label key=value in namespace ns. Two
// different triples could only share a value if a key held the separator;
// that would add candidates, never lose one, and every candidate is checked
// against the full selector.
func labelValue(ns, key, value string) string { return ns + "\x00" + key + "=" + value }

// plainTriple reports whether ns, key and value hold neither separator of
// labelValue. The value of a plain triple then has one "\x00" and one "=",
// so another triple can only share it by being plain and equal: every
// object listed under it is in ns and carries key=value, and a lookup
// needs no check of that pair. The server's validation makes every
// namespace, label key and label value plain (a DNS label, a qualified
// name, a label value); the lookups check it all the same, on the
// triple they hold, which costs no read of an object.
func plainTriple(ns, key, value string) bool {
	return !strings.ContainsAny(ns, "\x00=") && !strings.ContainsAny(key, "\x00=") && !strings.ContainsAny(value, "\x00=")
}

// matchAllValue is the index value of the services of namespace ns whose
// empty selector picks every pod. It differs from every labelValue, which
// holds a "=".
func matchAllValue(ns string) string { return ns + "\x00" }

func podLabelIndexFunc(obj api.Object) []string {
	meta := obj.GetObjectMeta()
	out := make([]string, 0, len(meta.Labels))
	for k, v := range meta.Labels {
		out = append(out, labelValue(meta.Namespace, k, v))
	}
	return out
}

func serviceSelectorIndexFunc(obj api.Object) []string {
	svc, ok := obj.(*api.Service)
	if !ok || svc.Spec.Selector == nil {
		return nil
	}
	ns := svc.Metadata.Namespace
	if len(svc.Spec.Selector) == 0 {
		return []string{matchAllValue(ns)}
	}
	out := make([]string, 0, len(svc.Spec.Selector))
	for k, v := range svc.Spec.Selector {
		out = append(out, labelValue(ns, k, v))
	}
	return out
}

// addIndex adds the index name to an informer's cache, unless an earlier
// New already did.
func addIndex(inf *informer.Informer, name string, f informer.IndexFunc) error {
	x := inf.Indexer()
	err := x.AddIndexers(map[string]informer.IndexFunc{name: f})
	if err == nil {
		return nil
	}
	if _, lookupErr := x.IndexKeys(name, ""); lookupErr == nil {
		return nil // ours, from an earlier New: the name is this package's
	}
	return fmt.Errorf("endpoints.New: add index %q: %w", name, err)
}

// selectedPods returns the pods of namespace ns the service selector picks,
// in key order: what c.pods.Namespace(ns).List(SelectorFromSet(selector))
// returns, found through the pods under the selector's rarest label rather
// than by scanning the namespace. An empty selector picks every pod of ns.
func (c *Controller) selectedPods(ns string, selector map[string]string) []*api.Pod {
	if len(selector) == 0 {
		return c.pods.Namespace(ns).List(api.Selector{})
	}
	var rarest []*api.Pod
	var rarestKey string
	for _, k := range slices.Sorted(maps.Keys(selector)) {
		pods, err := informer.ByIndexOf[*api.Pod](c.podIndexer, podLabelIndex, labelValue(ns, k, selector[k]))
		if err != nil {
			panic(err) // New added the index
		}
		if rarest == nil || len(pods) < len(rarest) {
			rarest, rarestKey = pods, k
		}
		if len(rarest) == 0 {
			break
		}
	}
	if !plainTriple(ns, rarestKey, selector[rarestKey]) {
		rarestKey = "" // check every pair, the namespace too
	} else if len(selector) == 1 {
		// Every pod listed is in ns and carries the selector's one pair:
		// the usual service reads no pod's labels.
		return rarest
	}
	out := rarest[:0] // rarest is this call's own
	for _, p := range rarest {
		if (rarestKey != "" || p.Metadata.Namespace == ns) && matchesSetBut(selector, rarestKey, p.Metadata.Labels) {
			out = append(out, p)
		}
	}
	clear(rarest[len(out):])
	return out
}

// podServices returns the keys of the services whose selector picks the
// pod, sorted. Services without a selector pick nothing. The candidates
// are the services indexed under one of the pod's labels or with an empty
// selector; each is checked against its full selector. Kubernetes:
// GetPodServiceMemberships.
func (c *Controller) podServices(pod *api.Pod) []string {
	ns := pod.Metadata.Namespace
	var keys []string
	// plain: the services are listed under a plain triple, so one with a
	// single pair picks the pod (plainTriple).
	candidates := func(value string, plain bool) {
		svcs, err := informer.ByIndexOf[*api.Service](c.svcIndexer, serviceSelectorIndex, value)
		if err != nil {
			panic(err) // New added the index
		}
		for _, svc := range svcs {
			if svc.Metadata.Namespace != ns || svc.Spec.Selector == nil {
				continue
			}
			if (!plain || len(svc.Spec.Selector) != 1) && !matchesSet(svc.Spec.Selector, pod.Metadata.Labels) {
				continue
			}
			// A service indexed under several of the pod's labels is
			// found once for each.
			if key := api.KeyOf(&svc.Metadata); !slices.Contains(keys, key) {
				keys = append(keys, key)
			}
		}
	}
	candidates(matchAllValue(ns), false)
	for k, v := range pod.Metadata.Labels {
		candidates(labelValue(ns, k, v), plainTriple(ns, k, v))
	}
	slices.Sort(keys)
	return keys
}

// matchesSetBut is matchesSet but for set's pair under skip, which the
// caller knows labels hold ("" skips nothing: a label key is never empty).
func matchesSetBut(set map[string]string, skip string, labels map[string]string) bool {
	for k, v := range set {
		if k == skip && skip != "" {
			continue
		}
		if got, ok := labels[k]; !ok || got != v {
			return false
		}
	}
	return true
}

// matchesSet reports whether labels hold every pair of set:
// api.SelectorFromSet(set).Matches(labels), without making the selector,
// for the handlers that ask it of every pod event.
func matchesSet(set, labels map[string]string) bool {
	for k, v := range set {
		if got, ok := labels[k]; !ok || got != v {
			return false
		}
	}
	return true
}
