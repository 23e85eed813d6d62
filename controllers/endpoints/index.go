package endpoints

import (
	"fmt"
	"slices"
	"strings"
	"sync"

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

// labelValues makes index values (labelValue) and keeps the ones it made
// (and services' keys),
// so that the same label costs no new string the next time: the pod
// informer calls podIndexFunc on every pod event, and the pods of one
// workload, and their services, share their labels. A pod with one label
// (most pods of the benchmark; a Deployment's have two) gets a list shared
// with every pod with that label, read only, as the Indexer only reads the
// lists it is given. It is safe for concurrent use.
type labelValues struct {
	// mu guards values, which holds at most maxLabelValues entries: it is
	// emptied when full, so that labels that come and go (a label per
	// pod) do not grow it for ever.
	mu     sync.Mutex
	values map[labelTriple]*internedValue
	// all holds matchAllValue by namespace, and keys services' keys by
	// UID (podServices), each bounded the same way.
	all  map[string]string
	keys map[api.UID]string
}

// maxLabelValues bounds labelValues: the distinct labels of a large
// cluster's running pods, at about 150 bytes each.
const maxLabelValues = 1 << 14

// labelTriple is a label of a namespace: what labelValue joins.
type labelTriple struct{ ns, key, value string }

// internedValue is labelValue of a triple, and a one-element list of it
// for an object with that one label.
type internedValue struct {
	value string
	one   []string
}

func newLabelValues() *labelValues {
	return &labelValues{values: make(map[labelTriple]*internedValue), all: make(map[string]string), keys: make(map[api.UID]string)}
}

// keyOf is api.KeyOf(m), kept by m's UID: podServices gives the keys of a
// pod's services on every pod event. A key is checked against the name it
// is asked for, so a UID reused under another name gets its own.
func (l *labelValues) keyOf(m *api.ObjectMeta) string {
	l.mu.Lock()
	defer l.mu.Unlock()
	if k, ok := l.keys[m.UID]; ok && api.IsKeyOf(k, m) {
		return k
	}
	if len(l.keys) >= maxLabelValues {
		clear(l.keys)
	}
	k := api.KeyOf(m)
	l.keys[m.UID] = k
	return k
}

// matchAll is matchAllValue(ns), interned: podServices looks it up on
// every pod event.
func (l *labelValues) matchAll(ns string) string {
	l.mu.Lock()
	defer l.mu.Unlock()
	v, ok := l.all[ns]
	if !ok {
		if len(l.all) >= maxLabelValues {
			clear(l.all)
		}
		v = matchAllValue(ns)
		l.all[ns] = v
	}
	return v
}

// get returns the interned value of label key=value in namespace ns,
// making it if it is new.
func (l *labelValues) get(ns, key, value string) *internedValue {
	t := labelTriple{ns, key, value}
	l.mu.Lock()
	defer l.mu.Unlock()
	iv := l.values[t]
	if iv == nil {
		if len(l.values) >= maxLabelValues {
			clear(l.values)
		}
		v := labelValue(ns, key, value)
		iv = &internedValue{value: v, one: []string{v}}
		l.values[t] = iv
	}
	return iv
}

// value is labelValue(ns, key, value), interned.
func (l *labelValues) value(ns, key, value string) string { return l.get(ns, key, value).value }

// fromSet returns the index values of a set of labels in namespace ns,
// sorted, so that an object whose labels did not change gets an equal
// list whatever the map's order. The list must not be changed.
func (l *labelValues) fromSet(ns string, set map[string]string) []string {
	if len(set) == 1 {
		for k, v := range set {
			return l.get(ns, k, v).one
		}
	}
	out := make([]string, 0, len(set))
	for k, v := range set {
		out = append(out, l.value(ns, k, v))
	}
	slices.Sort(out)
	return out
}

// podIndexFunc is podLabelIndex's function: a pod under each of its
// labels.
func (l *labelValues) podIndexFunc(obj api.Object) []string {
	meta := obj.GetObjectMeta()
	if len(meta.Labels) == 0 {
		return nil
	}
	return l.fromSet(meta.Namespace, meta.Labels)
}

// serviceIndexFunc is serviceSelectorIndex's function: a service under
// each pair of its selector, or matchAllValue for an empty one.
func (l *labelValues) serviceIndexFunc(obj api.Object) []string {
	svc, ok := obj.(*api.Service)
	if !ok || svc.Spec.Selector == nil {
		return nil
	}
	ns := svc.Metadata.Namespace
	if len(svc.Spec.Selector) == 0 {
		return []string{l.matchAll(ns)}
	}
	return l.fromSet(ns, svc.Spec.Selector)
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
// The lists are read into b's buffers: the result is valid until b is
// reset or used again.
func (c *Controller) selectedPods(ns string, selector map[string]string, b *podBuffers) []*api.Pod {
	if len(selector) == 0 {
		return c.pods.Namespace(ns).List(api.Selector{})
	}
	// The rarest label's pods, the first key in order among equals: map
	// order must not choose.
	rarestKey, found := "", false
	for k, v := range selector {
		var err error
		b.next, err = informer.AppendByIndexOf(reread(b.next), c.podIndexer, podLabelIndex, c.labels.value(ns, k, v))
		if err != nil {
			panic(err) // New added the index
		}
		if !found || len(b.next) < len(b.rarest) || len(b.next) == len(b.rarest) && k < rarestKey {
			b.rarest, b.next = b.next, b.rarest
			rarestKey, found = k, true
		}
		if len(b.rarest) == 0 {
			return b.rarest
		}
	}
	rarest := b.rarest
	if !plainTriple(ns, rarestKey, selector[rarestKey]) {
		rarestKey = "" // check every pair, the namespace too
	} else if len(selector) == 1 {
		// Every pod listed is in ns and carries the selector's one pair:
		// the usual service reads no pod's labels.
		return rarest
	}
	// The pairs to check, read once: ranging over the selector's map for
	// every pod would cost more than the lookups.
	var buf [4]api.LabelPair
	pairs := api.AppendLabelPairs(buf[:0], selector, rarestKey)
	out := rarest[:0] // the buffer is this call's own
	for _, p := range rarest {
		if (rarestKey != "" || p.Metadata.Namespace == ns) && api.MatchesLabelPairs(pairs, p.Metadata.Labels) {
			out = append(out, p)
		}
	}
	clear(rarest[len(out):])
	return out
}

// podBuffers are the lists selectedPods reads the index into, lent with a
// packer, so that a sync's read allocates nothing once they have grown.
// Past its length, each holds nil: it keeps no pod it does not list.
type podBuffers struct{ rarest, next []*api.Pod }

// reread empties buf for another read, letting go of what it listed.
func reread(buf []*api.Pod) []*api.Pod {
	clear(buf)
	return buf[:0]
}

// reset lets go of the pods b lists and keeps its space.
func (b *podBuffers) reset() {
	b.rarest, b.next = reread(b.rarest), reread(b.next)
}

// podServices appends to dst the keys of the services whose selector
// picks the pod, sorted, and returns it. Services without a selector pick
// nothing. The candidates are the services indexed under one of the pod's
// labels or with an empty selector; each is checked against its full
// selector. Kubernetes: GetPodServiceMemberships.
func (c *Controller) podServices(pod *api.Pod, dst []string) []string {
	ns := pod.Metadata.Namespace
	svcs, _ := c.svcBuffers.Get().(*[]*api.Service)
	if svcs == nil {
		svcs = new([]*api.Service)
	}
	defer func() {
		clear(*svcs)
		*svcs = (*svcs)[:0]
		c.svcBuffers.Put(svcs)
	}()
	start := len(dst)
	// plain: the services are listed under a plain triple, so one with a
	// single pair picks the pod (plainTriple).
	candidates := func(value string, plain bool) {
		var err error
		clear(*svcs)
		*svcs, err = informer.AppendByIndexOf((*svcs)[:0], c.svcIndexer, serviceSelectorIndex, value)
		if err != nil {
			panic(err) // New added the index
		}
		for _, svc := range *svcs {
			if svc.Metadata.Namespace != ns || svc.Spec.Selector == nil {
				continue
			}
			if (!plain || len(svc.Spec.Selector) != 1) && !matchesSet(svc.Spec.Selector, pod.Metadata.Labels) {
				continue
			}
			// A service indexed under several of the pod's labels is
			// found once for each.
			if !slices.ContainsFunc(dst[start:], func(k string) bool { return api.IsKeyOf(k, &svc.Metadata) }) {
				dst = append(dst, c.labels.keyOf(&svc.Metadata))
			}
		}
	}
	candidates(c.labels.matchAll(ns), false)
	for k, v := range pod.Metadata.Labels {
		candidates(c.labels.value(ns, k, v), plainTriple(ns, k, v))
	}
	slices.Sort(dst[start:])
	return dst
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
