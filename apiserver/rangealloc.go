package apiserver

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math/bits"
	"sync"

	"go.uber.org/zap"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/api/protobuf"
	"github.com/miniplane/miniplane/etcdstore"
)

// errRangeFull and errAllocated are the refusals of a rangeAllocator.
var (
	errRangeFull = errors.New("range is full")
	errAllocated = errors.New("already allocated")
)

// refusal is why a client's chosen value cannot be had, in
// kube-apiserver's words: a 422 on the field, where any other allocation
// error (etcd's) is a 500.
type refusal string

func (r refusal) Error() string { return string(r) }

// isRefusal reports whether err refuses a chosen value.
func isRefusal(err error) bool {
	var r refusal
	return errors.As(err, &r)
}

// bitmap is a set of offsets, bit i of words[i/64] holding offset i; words
// grow as offsets are set. Kubernetes: allocator.AllocationBitmap, whose
// big.Int it stores in the same bytes (see bytes).
type bitmap struct {
	words []uint64
}

func (b *bitmap) has(i int) bool {
	w := i / 64
	return w < len(b.words) && b.words[w]&(1<<(i%64)) != 0
}

func (b *bitmap) set(i int) {
	w := i / 64
	for len(b.words) <= w {
		b.words = append(b.words, 0)
	}
	b.words[w] |= 1 << (i % 64)
}

func (b *bitmap) clear(i int) {
	if w := i / 64; w < len(b.words) {
		b.words[w] &^= 1 << (i % 64)
	}
}

// nextFree returns the first offset from i up to end (excluded) that is not
// set, or end.
func (b *bitmap) nextFree(i, end int) int {
	for i < end {
		w := i / 64
		if w >= len(b.words) {
			return i
		}
		free := ^b.words[w] >> (i % 64)
		if free != 0 {
			return min(i+bits.TrailingZeros64(free), end)
		}
		i = (w + 1) * 64
	}
	return end
}

// each calls fn with every offset set, in order.
func (b *bitmap) each(fn func(int)) {
	for w, word := range b.words {
		for word != 0 {
			fn(w*64 + bits.TrailingZeros64(word))
			word &= word - 1
		}
	}
}

// bytes is the set as kube-apiserver's RangeAllocation.data holds it: the
// big-endian bytes of the integer whose bit i is offset i, without leading
// zeros (big.Int.Bytes).
func (b *bitmap) bytes() []byte {
	out := make([]byte, 8*len(b.words))
	for w, word := range b.words {
		binary.BigEndian.PutUint64(out[len(out)-8*(w+1):], word)
	}
	lead := 0
	for lead < len(out) && out[lead] == 0 {
		lead++
	}
	return out[lead:]
}

// restore makes the set the one data holds (bytes' form).
func (b *bitmap) restore(data []byte) {
	b.words = make([]uint64, (len(data)+7)/8)
	for i := range data {
		b.words[i/8] |= uint64(data[len(data)-1-i]) << (8 * (i % 8))
	}
}

// rangeAllocator hands out the offsets 0 to size-1 of a range: the next
// free one after the last handed out (Kubernetes draws them at random;
// sequential keeps a run reproducible without touching the shared random
// source), or one a client chose, never one held. With shared set every
// change is also a compare-and-swap of the range's snapshot in etcd, so that
// API servers over one etcd never hand out one offset twice.
// Kubernetes: allocator.AllocationBitmap behind allocator/storage.Etcd.
type rangeAllocator struct {
	// mu guards every field below, across a shared change's round trip to
	// etcd, as storage.Etcd's lock does.
	mu   sync.Mutex
	size int
	// spec names the range in the stored snapshot ("10.96.0.0/12",
	// "30000-32767"), which must match for another server's to be used.
	spec string
	used bitmap
	next int // where the search for a free offset starts
	// skip is an offset allocateNext never hands out (the kubernetes
	// Service's address, which it asks for by name); -1: none.
	skip   int
	shared *sharedRange
}

func newRangeAllocator(spec string, size int) rangeAllocator {
	return rangeAllocator{spec: spec, size: size, skip: -1}
}

// allocateNext takes a free offset; dry, it only finds one, in the
// server's copy of the bitmap, as kube-apiserver's dry-run allocator.
func (a *rangeAllocator) allocateNext(dry bool) (int, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.shared == nil || dry {
		return a.nextLocked(dry)
	}
	var got int
	err := a.shared.change(a, func() (err error) {
		got, err = a.nextLocked(false)
		return err
	})
	return got, err
}

// nextLocked finds the first free offset from next on, wrapping around,
// and takes it unless dry.
func (a *rangeAllocator) nextLocked(dry bool) (int, error) {
	i := a.used.nextFree(a.next, a.size)
	if i == a.skip {
		i = a.used.nextFree(i+1, a.size)
	}
	if i == a.size {
		i = a.used.nextFree(0, a.next)
		if i == a.skip {
			i = a.used.nextFree(i+1, a.next)
		}
		if i == a.next {
			return 0, errRangeFull
		}
	}
	if !dry {
		a.used.set(i)
		a.next = (i + 1) % a.size
	}
	return i, nil
}

// allocate takes the offset i, which is in the range; dry, it only checks
// that the server's copy of the bitmap has it free.
func (a *rangeAllocator) allocate(i int, dry bool) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.shared == nil || dry {
		return a.takeLocked(i, dry)
	}
	return a.shared.change(a, func() error { return a.takeLocked(i, false) })
}

func (a *rangeAllocator) takeLocked(i int, dry bool) error {
	if a.used.has(i) {
		return errAllocated
	}
	if !dry {
		a.used.set(i)
	}
	return nil
}

// release gives back offset i; one not held is ignored. A release that
// cannot reach etcd leaves the offset held there, for repair to find
// (kube-apiserver's callers only log it, too).
func (a *rangeAllocator) release(i int) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.shared == nil {
		a.used.clear(i)
		return
	}
	err := a.shared.change(a, func() error {
		a.used.clear(i)
		return nil
	})
	if err != nil {
		a.shared.log.Warn("releasing an allocation", zap.String("range", a.shared.key), zap.Int("offset", i), zap.Error(err))
	}
}

// rangeKV is where shared allocators keep their snapshots: etcd, read and
// written past the store's watch cache (*etcdstore.Client).
type rangeKV interface {
	Get(ctx context.Context, key string) ([]byte, int64, error)
	CompareAndSwap(ctx context.Context, key string, value []byte, rev int64) (etcdstore.Swap, error)
}

// The keys kube-apiserver keeps its allocators' RangeAllocations under.
const (
	serviceIPsKey       = "/registry/ranges/serviceips"
	serviceNodePortsKey = "/registry/ranges/servicenodeports"
)

// sharedRange is a rangeAllocator's snapshot in etcd. Kubernetes:
// allocator/storage.Etcd.
type sharedRange struct {
	kv  rangeKV
	key string
	// resource names the allocations in errors, as kube-apiserver's
	// ("serviceipallocations", "servicenodeportallocations").
	resource string
	// last is the ModRevision the bitmap was read at or written with; -1:
	// unknown, after a write whose outcome was lost. Guarded by the
	// allocator's mu.
	last int64
	log  *zap.Logger
}

// change applies fn to a's bitmap, then swaps the result in for the
// snapshot the bitmap was last in step with. When another server changed
// the snapshot since, the bitmap is restored from the stored one and fn
// applied again; when fn refuses (the offset is held, the range full) on a
// bitmap not read in this change, the stored one decides.
func (r *sharedRange) change(a *rangeAllocator, fn func() error) error {
	ctx, cancel := context.WithTimeout(context.Background(), etcdstore.RequestTimeout)
	defer cancel()
	fresh := false // the bitmap is the stored one as of this call
	for {
		if err := fn(); err != nil {
			if fresh || !(errors.Is(err, errAllocated) || errors.Is(err, errRangeFull)) {
				return err
			}
			data, rev, err := r.kv.Get(ctx, r.key)
			if err != nil {
				return err
			}
			if err := r.restore(a, data, rev); err != nil {
				return err
			}
			fresh = true
			continue
		}
		sw, err := r.kv.CompareAndSwap(ctx, r.key, encodeRange(a.spec, a.used.bytes()), r.last)
		if err != nil {
			r.last = -1 // the bitmap may be ahead of etcd: read it back next time
			return err
		}
		if sw.Swapped {
			r.last = sw.Rev
			return nil
		}
		if err := r.restore(a, sw.Current, sw.Rev); err != nil {
			return err
		}
		fresh = true
	}
}

// restore makes a's bitmap the snapshot stored at rev.
func (r *sharedRange) restore(a *rangeAllocator, data []byte, rev int64) error {
	if rev == 0 {
		// Not made yet: repair makes it at start, as kube-apiserver's.
		return fmt.Errorf("cannot allocate resources of type %s at this time", r.resource)
	}
	spec, bits, err := decodeRange(data)
	if err != nil {
		return err
	}
	if spec != a.spec {
		return fmt.Errorf("the provided range does not match the current range")
	}
	a.used.restore(bits)
	r.last = rev
	return nil
}

// rangeAllocation is core/v1's RangeAllocation, which kube-apiserver
// stores and does not serve: a range and its allocation bitmap.
type rangeAllocation struct {
	Metadata api.ObjectMeta `protobuf:"bytes,1,opt,name=metadata"`
	Range    string         `protobuf:"bytes,2,opt,name=range"`
	Data     []byte         `protobuf:"bytes,3,opt,name=data"`
}

// encodeRange is the RangeAllocation kube-apiserver would store, in its
// protobuf envelope.
func encodeRange(spec string, data []byte) []byte {
	b, err := protobuf.MarshalObject("v1", "RangeAllocation", &rangeAllocation{Range: spec, Data: data})
	if err != nil {
		panic(fmt.Sprintf("apiserver: encoding a RangeAllocation: %v", err)) // a fixed, plain type
	}
	return b
}

// decodeRange reads a stored RangeAllocation.
func decodeRange(b []byte) (spec string, data []byte, err error) {
	env, err := protobuf.UnmarshalEnvelope(b)
	if err != nil {
		return "", nil, fmt.Errorf("reading a RangeAllocation: %w", err)
	}
	if env.Kind != "RangeAllocation" {
		return "", nil, fmt.Errorf("reading a RangeAllocation: the key holds a %s", env.Kind)
	}
	var ra rangeAllocation
	if err := protobuf.Unmarshal(env.Raw, &ra); err != nil {
		return "", nil, fmt.Errorf("reading a RangeAllocation: %w", err)
	}
	return ra.Range, ra.Data, nil
}
