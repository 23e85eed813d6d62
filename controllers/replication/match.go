package replication

import (
	"reflect"

	"github.com/miniplane/miniplane/api"
)

// labelMatcher answers api.MatchesLabelPairs(pairs, labels), or
// sel.Matches(labels) for a selector with set-based requirements, for the pods
// of one sync, remembering its last answer by labels map: the pods of a
// controller share its template's labels map (newPod), which later
// versions keep, so a sync that checks a hundred pods looks their labels
// up once rather than a hundred times. Maps read from the cache are
// immutable (DESIGN.md, "Contracts every package keeps"), so one map gives
// one answer; last keeps the map it answered for alive, so that no other
// map can take its address while the matcher compares addresses. A matcher
// lives for one sync.
type labelMatcher struct {
	pairs []api.LabelPair
	// sel, if set, is the selector matched instead of pairs: a ReplicaSet's
	// with matchExpressions.
	sel     *api.Selector
	last    map[string]string
	lastPtr uintptr // the address of last's map, valid while last is set
	result  bool
}

// newLabelMatcher returns a matcher of the pairs of set, read into buf.
func newLabelMatcher(buf []api.LabelPair, set map[string]string) labelMatcher {
	return labelMatcher{pairs: api.AppendLabelPairs(buf, set, "")}
}

// matches reports whether labels hold every pair of the matcher's set.
func (m *labelMatcher) matches(labels map[string]string) bool {
	if labels == nil { // no map to tell apart: a nil map holds no label
		if m.sel != nil {
			return m.sel.Matches(nil) // NotIn and DoesNotExist match no labels
		}
		return len(m.pairs) == 0
	}
	ptr := reflect.ValueOf(labels).Pointer()
	if m.last != nil && ptr == m.lastPtr {
		return m.result
	}
	m.last, m.lastPtr = labels, ptr
	if m.sel != nil {
		m.result = m.sel.Matches(labels)
	} else {
		m.result = api.MatchesLabelPairs(m.pairs, labels)
	}
	return m.result
}
