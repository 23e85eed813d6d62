package apiserver

import (
	"math/rand/v2"
	"reflect"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/miniplane/miniplane/api"
)

// TestEqualPodStatusIsDeepEqual checks the typed equality against the one
// it replaces, reflect.DeepEqual, on pairs of generated statuses (see
// checkIsDeepEqual).
func TestEqualPodStatusIsDeepEqual(t *testing.T) {
	checkIsDeepEqual(t, rand.New(rand.NewPCG(18, 2)), equalPodStatus)
}

// checkIsDeepEqual checks eq against reflect.DeepEqual on 20,000 pairs of
// generated values: a value and its deep copy with a few leaves changed
// (often to an equal value), and a value and its shallow copy (slices,
// maps and pointers shared). The generator fills every field reflection
// finds, so a field eq does not compare makes it fail.
func checkIsDeepEqual[T any, P interface {
	*T
	DeepCopy() *T
}](t *testing.T, rng *rand.Rand, eq func(a, b P) bool) {
	t.Helper()
	g := statusGen{rng: rng}
	var equal, differ int
	for i := range 20000 {
		a := P(new(T))
		g.fill(reflect.ValueOf(a).Elem())
		b := P(a.DeepCopy())
		switch i % 4 {
		case 0: // a deep copy: equal, nothing shared
		case 1: // a shallow copy: equal, slices and pointers shared
			c := *a
			b = &c
		default:
			for range 1 + rng.IntN(3) {
				g.mutate(reflect.ValueOf(b).Elem())
			}
		}
		want := reflect.DeepEqual(a, b)
		if want {
			equal++
		} else {
			differ++
		}
		require.Equal(t, want, eq(a, b), "case %d:\n%#v\n%#v", i, a, b)
		require.Equal(t, want, eq(b, a), "case %d, reversed", i)
	}
	// Both answers must be common, or the test checks only one of them.
	assert.Greater(t, equal, 5000)
	assert.Greater(t, differ, 5000)
}

func TestStatusEqual(t *testing.T) {
	pod := statusEqual[api.PodStatus]()
	assert.Equal(t, reflect.ValueOf(equalPodStatus).Pointer(), reflect.ValueOf(pod).Pointer(), "pods use the typed equality")

	rc := statusEqual[api.ReplicationControllerStatus]()
	a := &api.ReplicationControllerStatus{Replicas: 3}
	b := &api.ReplicationControllerStatus{Replicas: 3, Conditions: []api.ReplicationControllerCondition{}}
	assert.True(t, rc(a, &api.ReplicationControllerStatus{Replicas: 3}))
	assert.False(t, rc(a, b), "other statuses use reflect.DeepEqual: an empty slice is not a nil one")
}

func TestEqualTime(t *testing.T) {
	at := time.Date(2026, 5, 14, 9, 21, 7, 0, time.UTC)
	tests := []struct {
		name string
		a, b time.Time
	}{
		{name: "equal", a: at, b: at},
		{name: "zero", a: time.Time{}, b: time.Time{}},
		{name: "zero and not", a: time.Time{}, b: at},
		{name: "another second", a: at, b: at.Add(time.Second)},
		{name: "the same instant elsewhere", a: at, b: at.In(time.FixedZone("CEST", 2*3600))},
		{name: "equal locations, distinct pointers", a: at.In(time.FixedZone("X", 3600)), b: at.In(time.FixedZone("X", 3600))},
		{name: "different locations", a: at.In(time.FixedZone("X", 3600)), b: at.In(time.FixedZone("Y", 3600))},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, b := api.Time{Time: tt.a}, api.Time{Time: tt.b}
			assert.Equal(t, reflect.DeepEqual(a, b), equalTime(&a, &b))
		})
	}
}

// statusGen fills and changes API values with leaves from small sets, so
// that a changed leaf is often changed to the value it had.
type statusGen struct{ rng *rand.Rand }

var (
	genAt    = time.Date(2026, 5, 14, 9, 21, 7, 0, time.UTC)
	genTimes = []time.Time{
		{}, genAt, genAt.Add(time.Second),
		genAt.In(time.FixedZone("X", 3600)), genAt.In(time.FixedZone("X", 3600)), // equal, distinct locations
		genAt.In(time.FixedZone("Y", 3600)),
	}
	timeType      = reflect.TypeFor[api.Time]()
	microTimeType = reflect.TypeFor[api.MicroTime]()
)

func (g statusGen) fill(v reflect.Value) {
	switch v.Kind() {
	case reflect.String:
		v.SetString([]string{"", "a", "b"}[g.rng.IntN(3)])
	case reflect.Bool:
		v.SetBool(g.rng.IntN(2) == 0)
	case reflect.Int32, reflect.Int64:
		v.SetInt(int64(g.rng.IntN(2)))
	case reflect.Uint8:
		v.SetUint(uint64(g.rng.IntN(2)))
	case reflect.Map:
		n := g.rng.IntN(4) - 1 // -1 is nil
		if n < 0 {
			v.SetZero()
			return
		}
		m := reflect.MakeMap(v.Type())
		for range n {
			k, e := reflect.New(v.Type().Key()).Elem(), reflect.New(v.Type().Elem()).Elem()
			g.fill(k)
			g.fill(e)
			m.SetMapIndex(k, e)
		}
		v.Set(m)
	case reflect.Pointer:
		if g.rng.IntN(3) == 0 {
			v.SetZero()
			return
		}
		p := reflect.New(v.Type().Elem())
		g.fill(p.Elem())
		v.Set(p)
	case reflect.Slice:
		n := g.rng.IntN(4) - 1 // -1 is nil
		if n < 0 {
			v.SetZero()
			return
		}
		s := reflect.MakeSlice(v.Type(), n, n)
		for i := range n {
			g.fill(s.Index(i))
		}
		v.Set(s)
	case reflect.Struct:
		switch v.Type() {
		case timeType:
			v.Set(reflect.ValueOf(api.Time{Time: genTimes[g.rng.IntN(len(genTimes))]}))
			return
		case microTimeType:
			v.Set(reflect.ValueOf(api.MicroTime{Time: genTimes[g.rng.IntN(len(genTimes))]}))
			return
		}
		for i := range v.NumField() {
			g.fill(v.Field(i))
		}
	default:
		panic("statusGen: no values for " + v.Type().String())
	}
}

// mutate gives one leaf of v (or a whole slice or pointer) a new value.
func (g statusGen) mutate(v reflect.Value) {
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() || g.rng.IntN(3) == 0 {
			g.fill(v)
			return
		}
		g.mutate(v.Elem())
	case reflect.Slice:
		if v.Len() == 0 || g.rng.IntN(3) == 0 {
			g.fill(v)
			return
		}
		g.mutate(v.Index(g.rng.IntN(v.Len())))
	case reflect.Map:
		if v.Len() == 0 || g.rng.IntN(3) == 0 {
			g.fill(v)
			return
		}
		k, e := reflect.New(v.Type().Key()).Elem(), reflect.New(v.Type().Elem()).Elem()
		g.fill(k)
		g.fill(e)
		v.SetMapIndex(k, e) // a new entry, or an old one's value, perhaps the same
	case reflect.Struct:
		if v.Type() == timeType || v.Type() == microTimeType {
			g.fill(v)
			return
		}
		g.mutate(v.Field(g.rng.IntN(v.NumField())))
	default:
		g.fill(v)
	}
}
