package apiserver

import (
	"bytes"
	"context"
	"fmt"
	"maps"
	"net/netip"
	"slices"
	"strconv"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/api/apierrors"
	"github.com/miniplane/miniplane/client"
	"github.com/miniplane/miniplane/etcdstore"
	"github.com/miniplane/miniplane/store"
)

// RangeRepairInterval is how often a server over etcd checks its cluster IP
// and node port allocations against the Services, as kube-apiserver's
// repair controllers do (its ServiceClusterIPRange and NodePort repair
// intervals).
const RangeRepairInterval = 3 * time.Minute

// repairsBeforeLeakCleanup is how many repairs in a row must find an
// allocation no Service holds before it is freed: an allocation is stored
// before its Service, so one repair may see it between the two.
// Kubernetes: numRepairsBeforeLeakCleanup.
const repairsBeforeLeakCleanup = 3

// rangeRepair checks one shared allocator's snapshot against the Services:
// it frees what none holds (after repairsBeforeLeakCleanup repairs), marks
// what one holds and the snapshot lacks, and reports, as Events on the
// Service and in the log, two Services holding one value and a value out of
// the range. Kubernetes: ipallocator/controller/repair.go and
// portallocator/controller/repair.go.
type rangeRepair struct {
	alloc *rangeAllocator
	// held lists the values a Service holds in the range.
	held func(*api.Service) []heldValue
	// component reports the Events; subject, logSubject and rangeName
	// name a value and the range in them; reason prefixes the reasons.
	component, subject, logSubject, rangeName, reason string
	// leaks counts down, per offset the snapshot holds and no Service
	// does, the repairs left before it is freed. mu guards it.
	mu    sync.Mutex
	leaks map[int]int
}

// heldValue is one value a Service holds: its offset in the range (ok
// false: not in it) and its name in messages.
type heldValue struct {
	off  int
	ok   bool
	name string
}

// shareRanges keeps the server's allocators in kv, under kube-apiserver's
// keys, and makes their repairs.
func (s *Server) shareRanges(kv rangeKV) {
	log := s.log.Named("ranges")
	s.ips.shared = &sharedRange{kv: kv, key: serviceIPsKey, resource: "serviceipallocations", last: -1, log: log}
	s.nodePorts.shared = &sharedRange{kv: kv, key: serviceNodePortsKey, resource: "servicenodeportallocations", last: -1, log: log}
	s.repairs = []*rangeRepair{
		{
			alloc: &s.ips.rangeAllocator, held: s.clusterIPsOf, component: "ipallocator-repair-controller",
			subject: "Cluster IP", logSubject: "the cluster IP", rangeName: "the service CIDR", reason: "ClusterIP",
			leaks: map[int]int{},
		},
		{
			alloc: &s.nodePorts.rangeAllocator, held: s.nodePortValuesOf, component: "portallocator-repair-controller",
			subject: "Port", logSubject: "the node port", rangeName: "the port range", reason: "Port",
			leaks: map[int]int{},
		},
	}
}

func (s *Server) clusterIPsOf(svc *api.Service) []heldValue {
	ip := svc.Spec.ClusterIP
	if ip == "" || ip == api.ClusterIPNone {
		return nil
	}
	addr, err := netip.ParseAddr(ip)
	if err != nil {
		s.log.Warn(fmt.Sprintf("the cluster IP %s for service %s/%s is not a valid IP; please recreate", ip, svc.Metadata.Name, svc.Metadata.Namespace))
		return nil
	}
	off, ok := s.ips.offset(addr)
	return []heldValue{{off: off, ok: ok, name: "[IPv4]:" + ip}}
}

func (s *Server) nodePortValuesOf(svc *api.Service) []heldValue {
	var out []heldValue
	for _, p := range slices.Sorted(maps.Keys(nodePortsOf(svc))) {
		out = append(out, heldValue{off: int(p - s.nodePorts.r.base), ok: s.nodePorts.r.contains(p), name: strconv.Itoa(int(p))})
	}
	return out
}

// repairRanges runs every repair once; it returns the first error.
func (s *Server) repairRanges() error {
	for _, r := range s.repairs {
		if err := s.repairRange(r); err != nil {
			return fmt.Errorf("apiserver: repairing %s: %w", r.alloc.shared.key, err)
		}
	}
	return nil
}

// repairRange runs r once: it reads the snapshot, then the Services, and
// swaps the rebuilt snapshot in for the one read, again from the start
// when an allocation changed it in between (as RetryOnConflict around
// kube-apiserver's runOnce).
func (s *Server) repairRange(r *rangeRepair) error {
	sh := r.alloc.shared
	ctx, cancel := context.WithTimeout(context.Background(), etcdstore.RequestTimeout)
	defer cancel()
	for attempt := 1; ; attempt++ {
		data, rev, err := sh.kv.Get(ctx, sh.key)
		if err != nil {
			return err
		}
		var stored bitmap
		if rev != 0 {
			spec, bits, err := decodeRange(data)
			switch {
			case err != nil:
				return err
			case spec != r.alloc.spec:
				s.log.Warn("the stored allocations are of another range: rebuilding them from the Services",
					zap.String("key", sh.key), zap.String("stored", spec), zap.String("range", r.alloc.spec))
			default:
				stored.restore(bits)
			}
		}
		res, err := s.store.List(s.kinds[client.Services].prefix(""), store.ListOptions{})
		if err != nil {
			return fmt.Errorf("listing Services: %w", err)
		}
		rebuilt := s.rebuildRange(r, &stored, res.Records)
		value := encodeRange(r.alloc.spec, rebuilt.bytes())
		if rev != 0 && bytes.Equal(value, data) {
			// Nothing to repair: no write, as GuaranteedUpdate skips
			// one that changes nothing (and the revision stays).
			r.alloc.mu.Lock()
			r.alloc.used, sh.last = rebuilt, rev
			r.alloc.mu.Unlock()
			return nil
		}
		sw, err := sh.kv.CompareAndSwap(ctx, sh.key, value, rev)
		if err != nil {
			return err
		}
		if sw.Swapped {
			r.alloc.mu.Lock()
			r.alloc.used, sh.last = rebuilt, sw.Rev
			r.alloc.mu.Unlock()
			return nil
		}
		if attempt == 5 {
			return fmt.Errorf("the allocations kept changing while being repaired")
		}
	}
}

// rebuildRange is the snapshot the Services call for: what they hold, and
// the leaks stored still holds that have not yet waited out their
// repairs. It takes what the Services hold out of stored.
func (s *Server) rebuildRange(r *rangeRepair, stored *bitmap, services []store.Record[api.Object]) bitmap {
	r.mu.Lock()
	defer r.mu.Unlock()
	var rebuilt bitmap
	for _, rec := range services {
		svc, ok := rec.Value.(*api.Service)
		if !ok {
			continue
		}
		for _, v := range r.held(svc) {
			switch {
			case !v.ok:
				s.repairEvent(r, svc, "OutOfRange", fmt.Sprintf("%s %s is not within %s %s; please recreate service", r.subject, v.name, r.rangeName, r.alloc.spec),
					fmt.Sprintf("%s %s for service %s/%s is not within %s %s; please recreate", r.logSubject, v.name, svc.Metadata.Name, svc.Metadata.Namespace, r.rangeName, r.alloc.spec))
			case rebuilt.has(v.off):
				s.repairEvent(r, svc, "AlreadyAllocated", fmt.Sprintf("%s %s was assigned to multiple services; please recreate service", r.subject, v.name),
					fmt.Sprintf("%s %s for service %s/%s was assigned to multiple services; please recreate", r.logSubject, v.name, svc.Metadata.Name, svc.Metadata.Namespace))
			default:
				rebuilt.set(v.off)
				if stored.has(v.off) {
					stored.clear(v.off)
				} else {
					s.repairEvent(r, svc, "NotAllocated", fmt.Sprintf("%s %s is not allocated; repairing", r.subject, v.name),
						fmt.Sprintf("%s %s for service %s/%s is not allocated; repairing", r.logSubject, v.name, svc.Metadata.Name, svc.Metadata.Namespace))
				}
				delete(r.leaks, v.off)
			}
		}
	}
	// What stored still holds, no Service does.
	stored.each(func(off int) {
		left, seen := r.leaks[off]
		if !seen {
			left = repairsBeforeLeakCleanup
			s.log.Info(fmt.Sprintf("%s at offset %d of %s may have leaked: flagging for later clean up", r.logSubject, off, r.alloc.spec))
		}
		if left > 1 {
			r.leaks[off] = left - 1
			rebuilt.set(off) // held until it waited out its repairs
			return
		}
		delete(r.leaks, off)
		s.log.Info(fmt.Sprintf("%s at offset %d of %s appears to have leaked: cleaning up", r.logSubject, off, r.alloc.spec))
	})
	return rebuilt
}

// repairEvent reports a Service's broken allocation: a Warning Event on
// it, as kube-apiserver's repair controllers record, and a log line.
func (s *Server) repairEvent(r *rangeRepair, svc *api.Service, reason, note, logLine string) {
	s.log.Warn(logLine)
	now := s.clock.Now()
	ev := &api.Event{
		InvolvedObject: api.ObjectReference{Kind: "Service", APIVersion: "v1", Namespace: svc.Metadata.Namespace, Name: svc.Metadata.Name,
			UID: svc.Metadata.UID, ResourceVersion: svc.Metadata.ResourceVersion},
		Reason: r.reason + reason, Message: note, Type: api.EventTypeWarning, Action: r.reason + "Allocation",
		EventTime: api.NewMicroTime(now), ReportingController: r.component, ReportingInstance: r.component,
	}
	// kube-apiserver's recorder names it <service>.<time in hex
	// nanoseconds>; one repair's Events at one time of a fake clock take
	// the next nanoseconds.
	for ns := now.UnixNano(); ; ns++ {
		ev.Metadata = api.ObjectMeta{Namespace: svc.Metadata.Namespace, Name: fmt.Sprintf("%s.%x", svc.Metadata.Name, ns)}
		_, err := s.Create(context.Background(), ev)
		if !apierrors.IsAlreadyExists(err) {
			if err != nil {
				s.log.Debug("recording a repair event", zap.Error(err))
			}
			return
		}
	}
}

// repairLoop repairs the allocations every RangeRepairInterval, on the
// server's clock, until ctx is done.
func (s *Server) repairLoop(ctx context.Context) {
	for {
		t := s.clock.NewTimer(RangeRepairInterval)
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C():
		}
		if err := s.repairRanges(); err != nil {
			s.log.Warn("repairing the allocations", zap.Error(err))
		}
	}
}
