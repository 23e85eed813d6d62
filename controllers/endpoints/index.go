package endpoints

import (
	"encoding/binary"
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

// labelValue is the index value of label key=value in namespace ns: the
// namespace and the key, each after its length as a uvarint, then the
// value. Lengths make it injective whatever the strings hold, so every
// object listed under it is in ns and carries key=value: a lookup needs
// no check of that pair (selectedPods, podServices).
func labelValue(ns, key, value string) string {
	var b strings.Builder
	b.Grow(uvarintLen(len(ns)) + len(ns) + uvarintLen(len(key)) + len(key) + len(value))
	writeLen(&b, len(ns))
	b.WriteString(ns)
	writeLen(&b, len(key))
	b.WriteString(key)
	b.WriteString(value)
	return b.String()
}

// uvarintLen is how many bytes writeLen writes for n.
func uvarintLen(n int) int {
	l := 1
	for ; n >= 0x80; n >>= 7 {
		l++
	}
	return l
}

// writeLen writes n as a uvarint.
func writeLen(b *strings.Builder, n int) {
	var buf [binary.MaxVarintLen64]byte
	b.Write(binary.AppendUvarint(buf[:0], uint64(n)))
}

// matchAllValue is the index value of the services of namespace ns whose
// empty selector picks every pod: labelValue's namespace part alone,
// which every labelValue extends by at least the key's length.
func matchAllValue(ns string) string {
	var b strings.Builder
	b.Grow(uvarintLen(len(ns)) + len(ns))
	writeLen(&b, len(ns))
	b.WriteString(ns)
	return b.String()
}

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
	if len(selector) == 1 {
		// Every pod under the selector's one pair is in ns and carries
		// it (labelValue): the usual service costs no label lookup.
		return rarest
	}
	out := rarest[:0] // rarest is this call's own
	for _, p := range rarest {
		if matchesSetBut(selector, rarestKey, p.Metadata.Labels) {
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
	candidates := func(value string) {
		svcs, err := informer.ByIndexOf[*api.Service](c.svcIndexer, serviceSelectorIndex, value)
		if err != nil {
			panic(err) // New added the index
		}
		for _, svc := range svcs {
			// A service is indexed in its namespace, under the pairs of
			// its selector (labelValue), so one with a single pair was
			// found under it and picks the pod.
			if len(svc.Spec.Selector) > 1 && !matchesSet(svc.Spec.Selector, pod.Metadata.Labels) {
				continue
			}
			// A service indexed under several of the pod's labels is
			// found once for each.
			if key := api.KeyOf(&svc.Metadata); !slices.Contains(keys, key) {
				keys = append(keys, key)
			}
		}
	}
	candidates(matchAllValue(ns))
	for k, v := range pod.Metadata.Labels {
		candidates(labelValue(ns, k, v))
	}
	slices.Sort(keys)
	return keys
}

// matchesSetBut is matchesSet but for set's pair under skip, which the
// caller knows labels hold.
func matchesSetBut(set map[string]string, skip string, labels map[string]string) bool {
	for k, v := range set {
		if k == skip {
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
