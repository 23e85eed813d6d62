package manager_test

// The benchmark's cost per pod by component: a CPU profile of the run,
// read back, each sample charged to the component whose code was running.
// The profile is protobuf (profile.proto of github.com/google/pprof); the
// few fields needed are read here with a varint reader of a dozen lines, so
// the module takes no dependency for a benchmark.

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"runtime/pprof"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/miniplane/miniplane/clock"
	"github.com/miniplane/miniplane/controllers/workqueue"
)

// Components, in the order the benchmark reports them.
const (
	compStore       = "store"
	compAPIServer   = "apiserver"
	compRecorder    = "event-recorder" // record.EventRecorder: client-go's record, in Kubernetes
	compInformer    = "informer"
	compWorkqueue   = "workqueue"
	compReplication = "replication" // the replication and replica set controllers
	compDeployment  = "deployment"
	compEndpoints   = "endpoints"
	compGC          = "garbagecollector"
	compJob         = "job" // the job controller
	compNodeSim     = "nodesim"
	compGoGC        = "go-gc" // the Go runtime's garbage collector
	compOther       = "other" // the scheduler, the benchmark's own polling, the rest
	modulePath      = "github.com/miniplane/miniplane/"
)

var components = []string{compStore, compAPIServer, compRecorder, compInformer, compWorkqueue, compReplication, compDeployment, compEndpoints, compGC, compJob, compNodeSim, compGoGC, compOther}

// componentPrefixes maps a function-name prefix to the component whose
// code it is; the first that matches counts. Packages not listed (api, the standard library, zap, the
// runtime's allocator) are charged to their caller: a deep copy made by
// the API server is the API server's cost, an allocation by the endpoints
// controller the controller's.
var componentPrefixes = []struct{ prefix, component string }{
	{modulePath + "store.", compStore},
	{"github.com/google/btree.", compStore},
	{modulePath + "client/record.", compRecorder},
	{modulePath + "apiserver.", compAPIServer},
	{modulePath + "informer.", compInformer},
	{modulePath + "controllers/workqueue.", compWorkqueue},
	{modulePath + "controllers/replication.", compReplication},
	{modulePath + "controllers/deployment.", compDeployment},
	{modulePath + "controllers/endpoints.", compEndpoints},
	{modulePath + "controllers/garbagecollector.", compGC},
	{modulePath + "controllers/job.", compJob},
	{modulePath + "controllers/nodesim.", compNodeSim},
}

// goGCFrames are the runtime functions that mark a sample as the garbage
// collector's work: its background workers, the marking assists charged to
// allocating goroutines, sweeping and scavenging.
var goGCFrames = []string{"runtime.gcBgMarkWorker", "runtime.gcAssistAlloc", "runtime.bgsweep", "runtime.bgscavenge", "runtime.sweepone", "runtime.gcStart", "runtime.gcMarkDone", "runtime.markroot"}

// classify returns the component a sample's stack (function names, leaf
// first) is charged to: the Go GC if any frame is its work, else the
// component of the frame nearest the leaf that belongs to one, else other.
func classify(stack []string) string {
	for _, fn := range stack {
		for _, gc := range goGCFrames {
			if strings.HasPrefix(fn, gc) {
				return compGoGC
			}
		}
	}
	for _, fn := range stack {
		for _, p := range componentPrefixes {
			if strings.HasPrefix(fn, p.prefix) {
				return p.component
			}
		}
	}
	return compOther
}

// cpuShares records a CPU profile between start and stop and charges its
// samples to components.
type cpuShares struct {
	buf bytes.Buffer
}

// start begins profiling; it fails when the test binary already profiles
// (go test -cpuprofile), which the runtime allows only once at a time.
func (c *cpuShares) start() error { return pprof.StartCPUProfile(&c.buf) }

// stop ends profiling and returns the CPU time charged to each component.
func (c *cpuShares) stop() (map[string]int64, error) {
	pprof.StopCPUProfile()
	return sharesOf(c.buf.Bytes())
}

// sharesOf reads a gzipped CPU profile and returns the CPU nanoseconds of
// its samples by component.
func sharesOf(gz []byte) (map[string]int64, error) {
	zr, err := gzip.NewReader(bytes.NewReader(gz))
	if err != nil {
		return nil, err
	}
	raw, err := io.ReadAll(zr)
	if err != nil {
		return nil, err
	}
	p, err := parseProfile(raw)
	if err != nil {
		return nil, err
	}
	cpu := slices.Index(p.sampleTypes, "cpu")
	if cpu < 0 {
		return nil, errors.New("profile has no cpu sample type")
	}
	out := map[string]int64{}
	var stack []string
	for _, s := range p.samples {
		stack = stack[:0]
		for _, id := range s.locations {
			stack = append(stack, p.locations[id]...)
		}
		if cpu < len(s.values) {
			out[classify(stack)] += s.values[cpu]
		}
	}
	return out, nil
}

// profile is what sharesOf needs of a profile.proto Profile.
type profile struct {
	sampleTypes []string            // the type name of each sample value
	samples     []sample            //
	locations   map[uint64][]string // location id → function names, innermost first
}

type sample struct {
	locations []uint64 // leaf first
	values    []int64
}

// Field numbers of profile.proto.
const (
	fProfileSampleType  = 1
	fProfileSample      = 2
	fProfileLocation    = 4
	fProfileFunction    = 5
	fProfileStringTable = 6
	fValueTypeType      = 1
	fSampleLocationID   = 1
	fSampleValue        = 2
	fLocationID         = 1
	fLocationLine       = 4
	fLineFunctionID     = 1
	fFunctionID         = 1
	fFunctionName       = 2
)

func parseProfile(b []byte) (*profile, error) {
	var (
		strs       []string
		typeIdx    []uint64
		rawSamples [][]byte
		rawLocs    [][]byte
		funcName   = map[uint64]uint64{} // function id → string index
	)
	err := eachField(b, func(num int, v uint64, data []byte) error {
		switch num {
		case fProfileStringTable:
			strs = append(strs, string(data))
		case fProfileSampleType:
			return eachField(data, func(num int, v uint64, _ []byte) error {
				if num == fValueTypeType {
					typeIdx = append(typeIdx, v)
				}
				return nil
			})
		case fProfileSample:
			rawSamples = append(rawSamples, data)
		case fProfileLocation:
			rawLocs = append(rawLocs, data)
		case fProfileFunction:
			var id, name uint64
			if err := eachField(data, func(num int, v uint64, _ []byte) error {
				switch num {
				case fFunctionID:
					id = v
				case fFunctionName:
					name = v
				}
				return nil
			}); err != nil {
				return err
			}
			funcName[id] = name
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	str := func(i uint64) string {
		if i < uint64(len(strs)) {
			return strs[i]
		}
		return ""
	}
	p := &profile{locations: map[uint64][]string{}}
	for _, i := range typeIdx {
		p.sampleTypes = append(p.sampleTypes, str(i))
	}
	for _, data := range rawLocs {
		var id uint64
		var names []string
		err := eachField(data, func(num int, v uint64, line []byte) error {
			switch num {
			case fLocationID:
				id = v
			case fLocationLine:
				return eachField(line, func(num int, v uint64, _ []byte) error {
					if num == fLineFunctionID {
						names = append(names, str(funcName[v]))
					}
					return nil
				})
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
		p.locations[id] = names
	}
	for _, data := range rawSamples {
		var s sample
		err := eachField(data, func(num int, v uint64, packed []byte) error {
			switch num {
			case fSampleLocationID:
				if packed != nil {
					return eachVarint(packed, func(v uint64) { s.locations = append(s.locations, v) })
				}
				s.locations = append(s.locations, v)
			case fSampleValue:
				if packed != nil {
					return eachVarint(packed, func(v uint64) { s.values = append(s.values, int64(v)) })
				}
				s.values = append(s.values, int64(v))
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
		p.samples = append(p.samples, s)
	}
	return p, nil
}

// eachField calls f with each field of a protobuf message: its number and
// either its varint value (data nil) or its length-delimited bytes. Fixed
// 32- and 64-bit fields are skipped; profile.proto has none.
func eachField(b []byte, f func(num int, v uint64, data []byte) error) error {
	for len(b) > 0 {
		tag, n := binary.Uvarint(b)
		if n <= 0 {
			return errors.New("profile: bad tag")
		}
		b = b[n:]
		num, wire := int(tag>>3), tag&7
		switch wire {
		case 0: // varint
			v, n := binary.Uvarint(b)
			if n <= 0 {
				return errors.New("profile: bad varint")
			}
			b = b[n:]
			if err := f(num, v, nil); err != nil {
				return err
			}
		case 2: // length-delimited
			l, n := binary.Uvarint(b)
			if n <= 0 || uint64(len(b)-n) < l {
				return errors.New("profile: bad length")
			}
			data := b[n : n+int(l)]
			b = b[n+int(l):]
			if data == nil {
				data = []byte{}
			}
			if err := f(num, 0, data); err != nil {
				return err
			}
		case 1:
			if len(b) < 8 {
				return errors.New("profile: short fixed64")
			}
			b = b[8:]
		case 5:
			if len(b) < 4 {
				return errors.New("profile: short fixed32")
			}
			b = b[4:]
		default:
			return fmt.Errorf("profile: wire type %d", wire)
		}
	}
	return nil
}

// eachVarint calls f with each varint of a packed repeated field.
func eachVarint(b []byte, f func(uint64)) error {
	for len(b) > 0 {
		v, n := binary.Uvarint(b)
		if n <= 0 {
			return errors.New("profile: bad packed varint")
		}
		f(v)
		b = b[n:]
	}
	return nil
}

func TestClassify(t *testing.T) {
	tests := []struct {
		name  string
		stack []string // leaf first
		want  string
	}{
		{"the leaf's component", []string{modulePath + "store.(*Store[...]).Update", modulePath + "apiserver.(*Server).update", modulePath + "controllers/nodesim.(*Controller).runPod"}, compStore},
		{"helpers are charged to their caller", []string{"runtime.mallocgc", modulePath + "api.(*Pod).DeepCopy", modulePath + "apiserver.(*Server).update", modulePath + "controllers/nodesim.(*Controller).runPod"}, compAPIServer},
		{"a handler runs controller code on the informer's goroutine", []string{"runtime.mapaccess2_faststr", modulePath + "controllers/endpoints.(*Controller).podServices", modulePath + "informer.(*Registration).DispatchOne"}, compEndpoints},
		{"the event recorder apart from the server it writes to", []string{modulePath + "client/record.(*EventRecorder).aggregateLocked", modulePath + "client/record.(*EventRecorder).Eventf", modulePath + "controllers/nodesim.(*Controller).event"}, compRecorder},
		{"the recorder's writes are the server's", []string{modulePath + "apiserver.(*Server).create", modulePath + "client/record.(*EventRecorder).Eventf"}, compAPIServer},
		{"a GC assist is the GC's, whoever allocates", []string{"runtime.scanobject", "runtime.gcDrainN", "runtime.gcAssistAlloc1", "runtime.mallocgc", modulePath + "controllers/replication.(*Controller).sync"}, compGoGC},
		{"the GC's workers", []string{"runtime.scanobject", "runtime.gcDrain", "runtime.gcBgMarkWorker"}, compGoGC},
		{"btree is the store's", []string{"github.com/google/btree.(*node[...]).get", modulePath + "store.(*Store[...]).Get"}, compStore},
		{"nothing of ours", []string{"runtime.futex", "runtime.findRunnable", "runtime.schedule"}, compOther},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, classify(tt.stack))
		})
	}
}

// TestSharesOfARealProfile profiles a loop over the workqueue and checks
// that the reader finds its samples, charged to the workqueue.
func TestSharesOfARealProfile(t *testing.T) {
	var c cpuShares
	if err := c.start(); err != nil {
		t.Skipf("cannot profile: %v", err) // go test -cpuprofile holds the profiler
	}
	q := workqueue.New(workqueue.Config[int]{Clock: clock.NewFake(time.Unix(0, 0))})
	deadline := cpuTime() + 300*time.Millisecond
	for i := 0; cpuTime() < deadline; i++ {
		for j := range 10_000 {
			q.Add(i*10_000 + j)
		}
		for range 10_000 {
			k, _, _ := q.TryGet()
			q.Done(k)
		}
	}
	shares, err := c.stop()
	require.NoError(t, err)
	var total int64
	for _, ns := range shares {
		total += ns
	}
	require.Positive(t, total, "samples found")
	// Of the components, the workqueue ran the most. (Not necessarily
	// most of all samples: under -race the detector's own C code, which
	// the profile cannot unwind into Go frames, is other.)
	for comp, ns := range shares {
		assert.Contains(t, components, comp)
		if comp != compWorkqueue && comp != compOther {
			assert.Greater(t, shares[compWorkqueue], ns, "the workqueue's samples against %s's: %v", comp, shares)
		}
	}
}
