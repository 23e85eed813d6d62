package faults

import (
	"fmt"
	"strings"
)

// Kind is one kind of fault the Injector can inject.
type Kind uint8

// The kinds of fault, in the order their draws are taken for each request
// (see Injector). Each is something kube-apiserver in front of etcd does on
// its own.
const (
	// WatchClose ends a watch cleanly after a few events (1 to
	// MaxEventsBeforeClose), as kube-apiserver does when a watch times out
	// or the server shuts down: the client re-watches from the last
	// resourceVersion it saw.
	WatchClose Kind = iota
	// Gone answers a watch that resumes from a resourceVersion with a
	// single ERROR event carrying 410 Expired, as the watch cache does when
	// that version has left its window: the client must relist.
	Gone
	// Conflict refuses an update (PUT) with 409 Conflict, as a write that
	// lost a race with another writer is refused; nothing is stored.
	Conflict
	// Throttle refuses a request with 429 TooManyRequests and a Retry-After
	// of 1 to MaxRetryAfterSeconds seconds, as priority and fairness or the
	// initializing watch cache do; client-go waits and retries.
	Throttle
	// Error refuses a request with 500 InternalError, as a failed etcd
	// request is answered; nothing is stored.
	Error
	// Latency delays a request by MinLatency up to MaxLatency on the
	// injected clock before serving it.
	Latency
	// Stale serves a read that allows it (resourceVersion=0, or a
	// not-older-than resourceVersion) at an older revision still in the
	// store's history, as the watch cache does when it lags etcd. A quorum
	// read (resourceVersion unset) is never stale.
	Stale
	// Lag delays every event of a watch by MinLag up to MaxLag on the
	// injected clock, as a watch cache that lags etcd does; no event is
	// lost or reordered.
	Lag

	numKinds = iota
)

var kindNames = [numKinds]string{"watch-close", "gone", "conflict", "throttle", "error", "latency", "stale", "lag"}

// String returns the kind's name, as Parse reads it.
func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return fmt.Sprintf("Kind(%d)", uint8(k))
}

// Kinds returns every kind, in order.
func Kinds() []Kind {
	out := make([]Kind, numKinds)
	for i := range out {
		out[i] = Kind(i)
	}
	return out
}

// Set is a set of kinds of fault. The zero value is the empty set: no
// faults.
type Set uint16

// None and All are the empty set and the set of every kind.
const (
	None Set = 0
	All  Set = 1<<numKinds - 1
)

// SetOf returns the set of the kinds given.
func SetOf(kinds ...Kind) Set {
	var s Set
	for _, k := range kinds {
		s |= 1 << k
	}
	return s
}

// Has reports whether k is in s.
func (s Set) Has(k Kind) bool { return k < numKinds && s&(1<<k) != 0 }

// String names the kinds in s in Parse's form: "none", "all", or a
// comma-separated list in Kind order.
func (s Set) String() string {
	switch s & All {
	case None:
		return "none"
	case All:
		return "all"
	}
	var names []string
	for _, k := range Kinds() {
		if s.Has(k) {
			names = append(names, k.String())
		}
	}
	return strings.Join(names, ",")
}

// Parse reads a set of faults as a flag gives it: "all", "none" (or the
// empty string), or a comma-separated list of kind names such as
// "watch-close,gone,conflict,throttle,error,latency,stale,lag". Spaces
// around names are ignored; an unknown name, an empty item, or "all" or
// "none" inside a list is an error that names the item.
func Parse(list string) (Set, error) {
	switch strings.TrimSpace(list) {
	case "", "none":
		return None, nil
	case "all":
		return All, nil
	}
	var s Set
	for i, item := range strings.Split(list, ",") {
		name := strings.TrimSpace(item)
		switch name {
		case "":
			return None, fmt.Errorf("faults: item %d of %q is empty", i+1, list)
		case "all", "none":
			return None, fmt.Errorf("faults: %q in %q: all and none stand alone, not in a list", name, list)
		}
		k, ok := kindNamed(name)
		if !ok {
			return None, fmt.Errorf("faults: unknown fault %q in %q: the faults are %s (or all, or none)",
				name, list, strings.Join(kindNames[:], ", "))
		}
		s |= SetOf(k)
	}
	return s, nil
}

func kindNamed(name string) (Kind, bool) {
	for i, n := range kindNames {
		if n == name {
			return Kind(i), true
		}
	}
	return 0, false
}
