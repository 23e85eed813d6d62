package endpointslice

import (
	"sync"
	"time"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/controllers/endpoints"
)

// triggerTracker computes the last-change-trigger-time of each sync: the
// service's creation on its first sync, later the earliest pod Ready
// transition that moved since the previous sync (zero if none did).
// Kubernetes: TriggerTimeTracker.ComputeEndpointLastChangeTriggerTime.
type triggerTracker struct {
	// mu guards byService: service key → what its last sync saw.
	mu        sync.Mutex
	byService map[string]triggerState
}

// triggerState is what a sync saw: the service's trigger time and each
// pod's, by name.
type triggerState struct {
	service time.Time
	pods    map[string]time.Time
}

func (t *triggerTracker) compute(key string, svc *api.Service, pods []*api.Pod) time.Time {
	t.mu.Lock()
	defer t.mu.Unlock()
	prev, known := t.byService[key]
	next := triggerState{service: svc.Metadata.CreationTimestamp.Time, pods: make(map[string]time.Time, len(pods))}
	var earliest time.Time
	moved := func(at, before time.Time) {
		if at.After(before) && (earliest.IsZero() || at.Before(earliest)) {
			earliest = at
		}
	}
	for _, pod := range pods {
		if at := endpoints.PodTriggerTime(pod); !at.IsZero() {
			next.pods[pod.Metadata.Name] = at
			moved(at, prev.pods[pod.Metadata.Name])
		}
	}
	moved(next.service, prev.service)
	t.byService[key] = next
	if !known {
		return svc.Metadata.CreationTimestamp.Time
	}
	return earliest
}

func (t *triggerTracker) forget(key string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	delete(t.byService, key)
}
