package main

import (
	"context"
	"fmt"
	"slices"
	"strings"
)

// restartPlane stops the control plane's process — its API server,
// controller managers and simulated nodes — and starts another over the
// same etcd, then compares what the new API server serves with what the
// old one did. kube-apiserver keeps no object of its own either: this is
// what etcd is for (and what a cluster in memory loses).
func (s *story) restartPlane(ctx context.Context) error {
	s.plain("The API server keeps no object of its own: each is a key in etcd, and its")
	s.plain("resourceVersion is etcd's revision of that key. The process stops now, API server,")
	s.plain("controller managers and nodes together; etcd keeps running.")
	old := s.p
	before, at, err := storedObjects(ctx, old.Server(), "")
	if err != nil {
		return err
	}
	s.plain("Before: the API server serves %d objects at revision %s.", len(before), at)
	told, err := s.restart(ctx)
	if err != nil {
		return fmt.Errorf("demo: restarting: %w", err)
	}
	s.n.sayAfter(told, s.p.Clock().Now(), youRestart, "stopped the process at revision %d; started a new one on %s", old.Server().Store().Rev(), s.p.URL())
	s.n.unhold()
	after, _, err := storedObjects(ctx, s.p.Server(), at)
	if err != nil {
		return err
	}
	var lost, changed []string
	for key, rv := range before {
		if got, ok := after[key]; !ok {
			lost = append(lost, key)
		} else if got != rv {
			changed = append(changed, key)
		}
	}
	slices.Sort(lost)
	slices.Sort(changed)
	s.plain("The new API server read etcd back: at revision %s it serves %d objects,", at, len(after))
	s.plain("%d lost, %d at another resourceVersion%s; it starts at revision %d.", len(lost), len(changed), listed(append(lost, changed...)), s.rev())
	s.stats.kept = len(before) - len(lost)
	s.plain("The narration goes on watching from the revision the old process handed out.")
	if err := s.waitFor(ctx, "a leader in the new process", func() (bool, error) { return s.p.Leader() != "", nil }); err != nil {
		return err
	}
	if len(lost)+len(changed) > 0 {
		return fmt.Errorf("demo: the restart lost or changed objects: %s", strings.Join(append(lost, changed...), ", "))
	}
	return nil
}

// listed is ": a, b" for keys, or nothing.
func listed(keys []string) string {
	if len(keys) == 0 {
		return ""
	}
	return ": " + strings.Join(keys, ", ")
}
