package apiserver

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"

	"go.uber.org/zap"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/api/protobuf"
)

// The mutation check holds the server to its first contract (DESIGN.md,
// "Contracts every package keeps"): what the store holds is shared with
// every reader, so nobody may change it, the server included. Like
// client-go's cache mutation detector (KUBE_CACHE_MUTATION_DETECTOR), it is
// for tests and the simulator (Config.CheckMutations): it keeps the
// fingerprint (encode) of every object the store takes, when the store
// takes it, and compares the object with it when Get hands it out again,
// when a write replaces or deletes it, and on demand (CheckMutations, and
// CheckSomeMutations a few at a time) — which the simulator asks after
// every step that wrote and planetest at a test's cleanup. Lists and
// watches hand out many objects at once and are left to those checks: an
// encoding per object listed or delivered would cost more than the rest of
// a simulated run. Every version still in the store's history window is
// kept, as a watcher or a read at an older revision may be handed it; a
// version that left the window is dropped.

// mutationCheck is the record of what every stored version looked like.
// mu guards everything below it; the store calls stored under its own lock
// and takes mu after it, so nothing holds mu while it calls the store.
type mutationCheck struct {
	log *zap.Logger

	mu sync.Mutex
	// byObj holds an entry per stored version still tracked, by its
	// pointer: a version is one object, never stored twice.
	byObj map[api.Object]*mutEntry
	// order holds the same entries in the order they were stored, and
	// next is where a partial check (checkSome) goes on from: the order,
	// unlike a map's, is the same on every run of one simulation.
	order []*mutEntry
	next  int
	// current is the live version of each object, by mutKey.
	current map[string]*mutEntry
	// failures are the mutations found by a check that could not return
	// an error (a read, a write's replacing), first first, until
	// CheckMutations reports them.
	failures []error
}

// mutEntry is one stored version.
type mutEntry struct {
	obj api.Object
	rev int64  // the revision that stored it
	enc []byte // its fingerprint when stored (encode)
	// goneAt is the revision that replaced or deleted it (0 while live);
	// once the store's history no longer reaches goneAt, nobody can be
	// handed it any more and the entry is dropped.
	goneAt int64
}

func newMutationCheck(log *zap.Logger) *mutationCheck {
	return &mutationCheck{log: log, byObj: map[api.Object]*mutEntry{}, current: map[string]*mutEntry{}}
}

// mutKey names an object's key across versions ("Pod default/web-x").
func mutKey(obj api.Object) string {
	return reflect.TypeOf(obj).Elem().Name() + " " + api.KeyOf(obj.GetObjectMeta())
}

// encode returns the fingerprint compared: obj's apiVersion and kind, which
// the protobuf encoding leaves to its envelope, then its protobuf encoding.
// The encoder writes maps in key order, so equal objects encode equal.
func encode(obj api.Object) []byte {
	tm := obj.GetTypeMeta()
	b := append(append(append([]byte(tm.APIVersion), 0), tm.Kind...), 0)
	b, err := protobuf.Append(b, obj)
	if err != nil {
		panic(fmt.Sprintf("apiserver: the mutation check cannot encode %T: %v", obj, err)) // every stored kind has protobuf tags (TestProtobufTags)
	}
	return b
}

// stored records obj, which the store is about to hold at rev, and checks
// the version it replaces. The store calls it (through stampWrite) under
// its lock, with the object's server-set metadata final.
func (m *mutationCheck) stored(obj api.Object, rev int64) {
	e := &mutEntry{obj: obj, rev: rev, enc: encode(obj)}
	key := mutKey(obj)
	m.mu.Lock()
	prev := m.current[key]
	if old := m.byObj[obj]; old != nil {
		// The same object stored again: the writer kept one it had
		// handed over, or the server changed a stored one and wrote it.
		m.failLocked(m.diffLocked(old))
		old.goneAt = rev
	}
	m.byObj[obj], m.current[key] = e, e
	m.order = append(m.order, e)
	if prev != nil && prev.obj != obj {
		prev.goneAt = rev
		m.failLocked(m.diffLocked(prev))
	}
	m.mu.Unlock()
}

// deleted records that the live version of obj's key left the store at
// rev, and checks it.
func (m *mutationCheck) deleted(obj api.Object, rev int64) {
	key := mutKey(obj)
	m.mu.Lock()
	defer m.mu.Unlock()
	if e := m.current[key]; e != nil {
		delete(m.current, key)
		e.goneAt = rev
		m.failLocked(m.diffLocked(e))
	}
}

// read checks obj, a stored version about to be handed out.
func (m *mutationCheck) read(obj api.Object) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if e := m.byObj[obj]; e != nil {
		m.failLocked(m.diffLocked(e))
	}
}

// failLocked keeps err (nil: nothing found) for CheckMutations, and logs it.
func (m *mutationCheck) failLocked(err error) {
	if err == nil {
		return
	}
	m.log.Error("a stored object was changed", zap.Error(err))
	m.failures = append(m.failures, err)
}

// check compares n tracked versions with their fingerprints, going on from
// where the last partial check stopped (n ≤ 0: every version), and returns
// every mutation found since the last check. Coming round to the first
// version again, it drops those replaced before oldest (the oldest revision
// the store's history still holds).
func (m *mutationCheck) check(oldest int64, n int) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if n <= 0 || n > len(m.order) {
		n = len(m.order)
	}
	for range n {
		if m.next >= len(m.order) {
			m.pruneLocked(oldest)
			if len(m.order) == 0 {
				break
			}
		}
		m.failLocked(m.diffLocked(m.order[m.next]))
		m.next++
	}
	errs := m.failures
	m.failures = nil
	slices.SortFunc(errs, func(a, b error) int { return strings.Compare(a.Error(), b.Error()) }) // map order must not show
	return errors.Join(slices.Compact(errs)...)
}

// pruneLocked drops the versions replaced before oldest and starts the
// round again.
func (m *mutationCheck) pruneLocked(oldest int64) {
	m.order = slices.DeleteFunc(m.order, func(e *mutEntry) bool {
		if e.goneAt != 0 && e.goneAt < oldest {
			if m.byObj[e.obj] == e {
				delete(m.byObj, e.obj)
			}
			return true
		}
		return false
	})
	m.next = 0
}

// diffLocked returns a *MutationError if e's object no longer encodes as it
// did when stored, and nil if it does. A mutation found is recorded anew
// so that it is reported once: the entry then holds the changed object's
// encoding.
func (m *mutationCheck) diffLocked(e *mutEntry) error {
	now := encode(e.obj)
	if bytes.Equal(now, e.enc) {
		return nil
	}
	err := &MutationError{Object: mutKey(e.obj), ResourceVersion: e.rev, Changes: changes(e.obj, e.enc)}
	e.enc = now
	return err
}

// MutationError says that an object the store holds, shared with every
// reader, was changed in place after it was stored.
type MutationError struct {
	// Object is the object's kind and key ("Pod default/web-x").
	Object string
	// ResourceVersion is the version that was changed.
	ResourceVersion int64
	// Changes are the JSON fields that differ from what was stored, as
	// "path: stored → now", in path order; empty when only the encoding
	// shows the change.
	Changes []string
}

func (e *MutationError) Error() string {
	what := "its encoding changed"
	if len(e.Changes) > 0 {
		what = strings.Join(e.Changes, "; ")
	}
	return fmt.Sprintf("stored object %s at resourceVersion %d was changed in place (deep-copy before changing a shared object): %s",
		e.Object, e.ResourceVersion, what)
}

// changes lists the JSON fields in which obj differs from the object enc
// encodes.
func changes(obj api.Object, enc []byte) []string {
	was := reflect.New(reflect.TypeOf(obj).Elem()).Interface().(api.Object)
	parts := bytes.SplitN(enc, []byte{0}, 3)
	if len(parts) != 3 || protobuf.Unmarshal(parts[2], was) != nil {
		return nil
	}
	*was.GetTypeMeta() = api.TypeMeta{APIVersion: string(parts[0]), Kind: string(parts[1])}
	var a, b any
	if !asJSON(was, &a) || !asJSON(obj, &b) {
		return nil
	}
	var out []string
	diffJSON("", a, b, &out)
	slices.Sort(out)
	return out
}

// asJSON sets *out to v's JSON as generic values.
func asJSON(v any, out *any) bool {
	b, err := json.Marshal(v)
	return err == nil && json.Unmarshal(b, out) == nil
}

// diffJSON appends "path: a → b" for every leaf in which a and b differ.
func diffJSON(path string, a, b any, out *[]string) {
	am, aok := a.(map[string]any)
	bm, bok := b.(map[string]any)
	if aok && bok {
		keys := make([]string, 0, len(am)+len(bm))
		for k := range am {
			keys = append(keys, k)
		}
		for k := range bm {
			if _, ok := am[k]; !ok {
				keys = append(keys, k)
			}
		}
		for _, k := range keys {
			p := k
			if path != "" {
				p = path + "." + k
			}
			diffJSON(p, am[k], bm[k], out)
		}
		return
	}
	as, aok := a.([]any)
	bs, bok := b.([]any)
	if aok && bok && len(as) == len(bs) {
		for i := range as {
			diffJSON(fmt.Sprintf("%s[%d]", path, i), as[i], bs[i], out)
		}
		return
	}
	if !reflect.DeepEqual(a, b) {
		aj, _ := json.Marshal(a)
		bj, _ := json.Marshal(b)
		*out = append(*out, fmt.Sprintf("%s: %s → %s", path, aj, bj))
	}
}

// CheckMutations compares every object the store holds, and every older
// version still in its history, with what it was when stored, and returns
// the mutations found since the last check, each a *MutationError
// (joined). It returns nil when Config.CheckMutations is off.
func (s *Server) CheckMutations() error { return s.CheckSomeMutations(0) }

// CheckSomeMutations is CheckMutations for the next n stored versions only,
// in the order they were stored, taking up where its last call stopped and
// coming round again: a check after every step of a simulation that costs
// n encodings rather than one per stored object. A mutation found on a
// read or a write since the last check is returned too.
func (s *Server) CheckSomeMutations(n int) error {
	if s.mut == nil {
		return nil
	}
	st := s.store.Stats()
	return s.mut.check(st.Rev-int64(st.History), n)
}
