package api

import (
	"encoding/json"
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// allTopLevelTypes lists every kind, list and other top-level object of the package. The
// deep-copy and JSON tests walk everything reachable from these.
func allTopLevelTypes() []reflect.Type {
	values := []any{
		Pod{}, PodList{},
		ReplicationController{}, ReplicationControllerList{},
		Service{}, ServiceList{},
		Endpoints{}, EndpointsList{},
		Node{}, NodeList{},
		Lease{}, LeaseList{},
		Event{}, EventList{},
		EventsV1Event{}, EventsV1EventList{}, Eviction{},
		HorizontalPodAutoscaler{}, HorizontalPodAutoscalerList{},
		APIService{}, APIServiceList{},
		HorizontalPodAutoscalerV1{}, HorizontalPodAutoscalerV1List{},
		Namespace{}, NamespaceList{},
		ConfigMap{}, ConfigMapList{},
		Secret{}, SecretList{},
		ServiceAccount{}, ServiceAccountList{},
		ResourceQuota{}, ResourceQuotaList{},
		PersistentVolume{}, PersistentVolumeList{},
		PersistentVolumeClaim{}, PersistentVolumeClaimList{},
		StorageClass{}, StorageClassList{},
		CSINode{}, CSINodeList{},
		CSIDriver{}, CSIDriverList{},
		EndpointSlice{}, EndpointSliceList{},
		CSIStorageCapacity{}, CSIStorageCapacityList{},
		VolumeAttachment{}, VolumeAttachmentList{},
		PodDisruptionBudget{}, PodDisruptionBudgetList{},
		ReplicaSet{}, ReplicaSetList{}, Deployment{}, DeploymentList{},
		StatefulSet{}, StatefulSetList{},
		DaemonSet{}, DaemonSetList{}, ControllerRevision{}, ControllerRevisionList{},
		Job{}, JobList{}, CronJob{}, CronJobList{},
		PriorityClass{}, PriorityClassList{},
		Ingress{}, IngressList{}, IngressClass{}, IngressClassList{}, NetworkPolicy{}, NetworkPolicyList{},
		PodTemplate{}, PodTemplateList{},
		LimitRange{}, LimitRangeList{},
		Role{}, RoleList{}, RoleBinding{}, RoleBindingList{},
		ClusterRole{}, ClusterRoleList{}, ClusterRoleBinding{}, ClusterRoleBindingList{},
		RuntimeClass{}, RuntimeClassList{}, CertificateSigningRequest{}, CertificateSigningRequestList{},
		FlowSchema{}, FlowSchemaList{}, PriorityLevelConfiguration{}, PriorityLevelConfigurationList{},
		CustomResourceDefinition{}, CustomResourceDefinitionList{}, Unstructured{},
		ValidatingAdmissionPolicy{}, ValidatingAdmissionPolicyList{},
		ValidatingAdmissionPolicyBinding{}, ValidatingAdmissionPolicyBindingList{},
		ValidatingWebhookConfiguration{}, ValidatingWebhookConfigurationList{},
		MutatingWebhookConfiguration{}, MutatingWebhookConfigurationList{},
		Scale{}, Binding{}, Status{}, DeleteOptions{}, WatchEvent{},
	}
	types := make([]reflect.Type, len(values))
	for i, v := range values {
		types[i] = reflect.TypeOf(v)
	}
	return types
}

// allObjects returns a fresh, empty value of every kind that implements Object.
func allObjects() []Object {
	return []Object{
		&Pod{}, &ReplicationController{}, &Service{}, &Endpoints{}, &Node{},
		&Lease{}, &Event{}, &Namespace{}, &Scale{},
		&EventsV1Event{}, &Eviction{},
		&HorizontalPodAutoscaler{}, &HorizontalPodAutoscalerV1{}, &APIService{},
		&ConfigMap{}, &Secret{}, &ServiceAccount{}, &ResourceQuota{},
		&PersistentVolume{}, &PersistentVolumeClaim{}, &StorageClass{}, &CSINode{}, &CSIDriver{},
		&EndpointSlice{}, &CSIStorageCapacity{}, &VolumeAttachment{}, &PodDisruptionBudget{}, &ReplicaSet{}, &StatefulSet{}, &Deployment{},
		&DaemonSet{}, &ControllerRevision{}, &Job{}, &CronJob{},
		&PriorityClass{}, &PodTemplate{}, &LimitRange{},
		&Ingress{}, &IngressClass{}, &NetworkPolicy{},
		&Role{}, &RoleBinding{}, &ClusterRole{}, &ClusterRoleBinding{},
		&RuntimeClass{}, &CertificateSigningRequest{}, &FlowSchema{}, &PriorityLevelConfiguration{},
		&CustomResourceDefinition{}, &Unstructured{},
		&ValidatingAdmissionPolicy{}, &ValidatingAdmissionPolicyBinding{},
		&ValidatingWebhookConfiguration{}, &MutatingWebhookConfiguration{},
	}
}

var (
	timeType        = reflect.TypeFor[Time]()
	microTimeType   = reflect.TypeFor[MicroTime]()
	intOrStringType = reflect.TypeFor[IntOrString]()
	rawMessageType  = reflect.TypeFor[json.RawMessage]()
	jsonObjectType  = reflect.TypeFor[JSONObject]()
)

// filler sets every field it reaches to a distinct non-zero value: strings "s<n>", numbers
// n, bools true, pointers to filled values, slices and maps of two filled elements. Values
// that must stay well-formed for JSON (times, IntOrString, raw JSON) get valid ones.
type filler struct {
	t *testing.T
	n int
	// active counts the structs being filled by type: a recursive type
	// (JSONSchemaProps) is filled one level deep, its inner copies left zero.
	active map[reflect.Type]int
}

func newFilled(t *testing.T, typ reflect.Type) reflect.Value {
	ptr := reflect.New(typ)
	(&filler{t: t, active: map[reflect.Type]int{}}).fill(ptr.Elem())
	return ptr
}

func (f *filler) next() int {
	f.n++
	return f.n
}

func (f *filler) fill(v reflect.Value) {
	base := time.Date(2024, 5, 14, 9, 0, 0, 0, time.UTC)
	switch v.Type() {
	case timeType:
		v.Set(reflect.ValueOf(NewTime(base.Add(time.Duration(f.next()) * time.Second))))
		return
	case microTimeType:
		v.Set(reflect.ValueOf(NewMicroTime(base.Add(time.Duration(f.next()) * time.Microsecond))))
		return
	case intOrStringType:
		if n := f.next(); n%2 == 0 {
			v.Set(reflect.ValueOf(FromInt(n)))
		} else {
			v.Set(reflect.ValueOf(FromString(fmt.Sprintf("port%d", n))))
		}
		return
	case rawMessageType:
		v.SetBytes(fmt.Appendf(nil, `{"n":%d}`, f.next()))
		return
	case jsonObjectType:
		v.Set(reflect.ValueOf(JSONObject{
			"spec": map[string]any{"n": int64(f.next()), "list": []any{"s", 1.5, true, nil, map[string]any{"k": "v"}}},
		}))
		return
	}
	switch v.Kind() {
	case reflect.String:
		v.SetString(fmt.Sprintf("s%d", f.next()))
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		v.SetInt(int64(f.next()))
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		v.SetUint(uint64(f.next() % 100))
	case reflect.Float32, reflect.Float64:
		v.SetFloat(float64(f.next()) + 0.5)
	case reflect.Pointer:
		p := reflect.New(v.Type().Elem())
		f.fill(p.Elem())
		v.Set(p)
	case reflect.Slice:
		s := reflect.MakeSlice(v.Type(), 2, 2)
		for i := range s.Len() {
			f.fill(s.Index(i))
		}
		v.Set(s)
	case reflect.Map:
		m := reflect.MakeMapWithSize(v.Type(), 2)
		for range 2 {
			key := reflect.New(v.Type().Key()).Elem()
			f.fill(key)
			value := reflect.New(v.Type().Elem()).Elem()
			f.fill(value)
			m.SetMapIndex(key, value)
		}
		v.Set(m)
	case reflect.Struct:
		if f.active[v.Type()] > 0 {
			return // recursive: one level is enough
		}
		f.active[v.Type()]++
		defer func() { f.active[v.Type()]-- }()
		for i := range v.NumField() {
			field := v.Type().Field(i)
			if !field.IsExported() {
				f.t.Fatalf("filler: %s.%s is unexported; teach the filler about %s", v.Type(), field.Name, v.Type())
			}
			f.fill(v.Field(i))
		}
	default:
		f.t.Fatalf("filler: unexpected kind %s of %s", v.Kind(), v.Type())
	}
}

// mutate changes every value reachable from v: leaves get new values, every map gains a key
// and has each value changed, slices and pointers are followed. If a copy shares any map,
// slice or pointer with its original, mutating the copy changes the original.
func mutate(v reflect.Value) {
	switch v.Type() {
	case timeType:
		v.Set(reflect.ValueOf(Time{v.Interface().(Time).Add(time.Hour)}))
		return
	case microTimeType:
		v.Set(reflect.ValueOf(MicroTime{v.Interface().(MicroTime).Add(time.Hour)}))
		return
	}
	switch v.Kind() {
	case reflect.String:
		v.SetString(v.String() + "-mutated")
	case reflect.Bool:
		v.SetBool(!v.Bool())
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		v.SetInt(v.Int() + 1000)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		v.SetUint(v.Uint() + 1)
	case reflect.Float32, reflect.Float64:
		v.SetFloat(v.Float() + 1)
	case reflect.Pointer:
		if !v.IsNil() {
			mutate(v.Elem())
		}
	case reflect.Slice:
		for i := range v.Len() {
			mutate(v.Index(i))
		}
	case reflect.Map:
		if v.IsNil() {
			return // the zero inner level of a recursive type
		}
		for _, key := range v.MapKeys() {
			value := reflect.New(v.Type().Elem()).Elem()
			value.Set(v.MapIndex(key))
			mutate(value)
			v.SetMapIndex(key, value)
		}
		newKey := reflect.New(v.Type().Key()).Elem()
		newKey.SetString("added-by-mutate")
		v.SetMapIndex(newKey, reflect.New(v.Type().Elem()).Elem())
	case reflect.Struct:
		for i := range v.NumField() {
			mutate(v.Field(i))
		}
	}
}

// TestDeepCopySharesNothing fills every field of every top-level type, deep-copies it, and
// requires (1) the copy equals the original and (2) mutating everything reachable from the
// copy leaves the original unchanged. A field forgotten in a DeepCopyInto fails (2).
func TestDeepCopySharesNothing(t *testing.T) {
	for _, typ := range allTopLevelTypes() {
		t.Run(typ.Name(), func(t *testing.T) {
			original := newFilled(t, typ)
			pristine := newFilled(t, typ) // an identical, separate value to compare against
			require.Equal(t, pristine.Interface(), original.Interface())

			copied := original.MethodByName("DeepCopy").Call(nil)[0]
			require.Equal(t, original.Interface(), copied.Interface(), "DeepCopy must produce an equal value")

			mutate(copied.Elem())
			require.NotEqual(t, pristine.Interface(), copied.Interface(), "mutate must change the copy")
			assert.Equal(t, pristine.Interface(), original.Interface(), "mutating the copy changed the original")
		})
	}
}

// TestDeepCopyIntoOverwrites copies into a destination that already holds other values and
// requires the destination to end up equal to the source.
func TestDeepCopyIntoOverwrites(t *testing.T) {
	for _, typ := range allTopLevelTypes() {
		t.Run(typ.Name(), func(t *testing.T) {
			source := newFilled(t, typ)
			dest := newFilled(t, typ)
			mutate(dest.Elem())
			source.MethodByName("DeepCopyInto").Call([]reflect.Value{dest})
			assert.Equal(t, source.Interface(), dest.Interface())
		})
	}
}

// TestDeepCopyOfNil requires DeepCopy on a nil pointer to return nil, and DeepCopyObject to
// return a nil interface, not an interface holding a nil pointer.
func TestDeepCopyOfNil(t *testing.T) {
	for _, typ := range allTopLevelTypes() {
		t.Run(typ.Name(), func(t *testing.T) {
			nilPtr := reflect.Zero(reflect.PointerTo(typ))
			got := nilPtr.MethodByName("DeepCopy").Call(nil)[0]
			assert.True(t, got.IsNil())
		})
	}
	var pod *Pod
	assert.Nil(t, pod.DeepCopyObject())
}

// TestEveryTypeWithReferencesHasDeepCopy walks every struct type reachable from the
// top-level types and requires DeepCopy and DeepCopyInto on each one that holds a map, slice
// or pointer (directly or in a struct field), as the package promises.
func TestEveryTypeWithReferencesHasDeepCopy(t *testing.T) {
	seen := map[reflect.Type]bool{}
	var walk func(reflect.Type)
	walk = func(typ reflect.Type) {
		switch typ.Kind() {
		case reflect.Pointer, reflect.Slice:
			walk(typ.Elem())
			return
		case reflect.Map:
			walk(typ.Key())
			walk(typ.Elem())
			return
		case reflect.Struct:
		default:
			return
		}
		if seen[typ] || typ == timeType || typ == microTimeType {
			return
		}
		seen[typ] = true
		if holdsReferences(typ) {
			ptr := reflect.PointerTo(typ)
			for _, method := range []string{"DeepCopy", "DeepCopyInto"} {
				m, ok := ptr.MethodByName(method)
				if assert.True(t, ok, "%s holds references but has no %s", typ, method) {
					assert.Equal(t, typ.Name(), directReceiverName(ptr, m), "%s.%s is promoted from an embedded field", typ, method)
				}
			}
		}
		for i := range typ.NumField() {
			walk(typ.Field(i).Type)
		}
	}
	for _, typ := range allTopLevelTypes() {
		walk(typ)
	}
	assert.Greater(t, len(seen), 40, "the walk should reach every nested type")
}

// holdsReferences reports whether a value of typ contains a map, slice or pointer, other than
// inside a Time or MicroTime.
func holdsReferences(typ reflect.Type) bool {
	switch typ.Kind() {
	case reflect.Map, reflect.Slice, reflect.Pointer:
		return true
	case reflect.Struct:
		if typ == timeType || typ == microTimeType {
			return false
		}
		for i := range typ.NumField() {
			if holdsReferences(typ.Field(i).Type) {
				return true
			}
		}
	}
	return false
}

// directReceiverName returns the name of the type whose DeepCopy signature method m has: a
// method promoted from an embedded field would take and return the embedded type instead.
func directReceiverName(ptr reflect.Type, m reflect.Method) string {
	// Method types include the receiver as the first input; DeepCopy returns *T and
	// DeepCopyInto takes *T as the second input.
	if m.Type.NumOut() == 1 {
		return m.Type.Out(0).Elem().Name()
	}
	return m.Type.In(1).Elem().Name()
}

// TestObjects checks that every kind implements Object: the accessors point into the
// object itself, and DeepCopyObject returns an equal object of the same type.
func TestObjects(t *testing.T) {
	for _, obj := range allObjects() {
		name := reflect.TypeOf(obj).Elem().Name()
		t.Run(name, func(t *testing.T) {
			obj.GetObjectMeta().Name = "written-through-accessor"
			obj.GetTypeMeta().Kind = name
			value := reflect.ValueOf(obj).Elem()
			assert.Equal(t, "written-through-accessor", value.FieldByName("Metadata").FieldByName("Name").String())
			assert.Equal(t, name, value.FieldByName("Kind").String())

			copied := obj.DeepCopyObject()
			assert.IsType(t, obj, copied)
			assert.Equal(t, obj, copied)
			copied.GetObjectMeta().Name = "changed"
			assert.Equal(t, "written-through-accessor", obj.GetObjectMeta().Name)
		})
	}
}

// BenchmarkPodDeepCopy measures copying the fixture pod, a realistic full pod.
func BenchmarkPodDeepCopy(b *testing.B) {
	var pod Pod
	data, err := readTestdata("pod.json")
	require.NoError(b, err)
	require.NoError(b, json.Unmarshal(data, &pod))
	b.ReportAllocs()
	for b.Loop() {
		_ = pod.DeepCopy()
	}
}
