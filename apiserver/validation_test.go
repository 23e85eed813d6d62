package apiserver

import (
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/api/apierrors"
)

// cause is the type and field of one expected FieldError.
type cause struct {
	typ   api.CauseType
	field string
}

// Short names for the cause types, to keep the tables readable.
const (
	required     = api.CauseTypeFieldValueRequired
	invalid      = api.CauseTypeFieldValueInvalid
	duplicate    = api.CauseTypeFieldValueDuplicate
	notSupported = api.CauseTypeFieldValueNotSupported
	forbidden    = api.CauseTypeFieldValueForbidden
	tooLong      = api.CauseTypeFieldValueTooLong
	notFound     = api.CauseTypeFieldValueNotFound
)

// assertErrors checks errs against the exact message Kubernetes would give
// (want, "" for none) and the type and field of each cause, in order.
func assertErrors(t *testing.T, errs apierrors.FieldErrors, want string, causes []cause) {
	t.Helper()
	if want == "" {
		assert.Nil(t, errs, "want no errors, got %v", errs)
		return
	}
	require.NotNil(t, errs, "want %s", want)
	assert.Equal(t, want, errs.Error())
	got := make([]cause, len(errs))
	for i, e := range errs {
		got[i] = cause{e.Type, e.Field}
	}
	assert.Equal(t, causes, got)
}

// Kubernetes' format messages, spelled out once in full here; the other
// tables use the constants.
func TestFormatMessagesAreKubernetes(t *testing.T) {
	for _, tc := range []struct{ got, want string }{
		{msgDNS1123Label, `a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')`},
		{msgDNS1123Subdomain, `a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`},
		{msgDNS1035Label, `a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')`},
		{msgQualifiedNamePart, `must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')`},
		{msgLabelValue, `a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')`},
	} {
		assert.Equal(t, tc.want, tc.got)
	}
}

func TestFormats(t *testing.T) {
	long := func(n int) string { return strings.Repeat("a", n) }
	for _, tc := range []struct {
		name  string
		check func(string) []string
		value string
		want  []string
	}{
		{"label ok", dns1123LabelMsgs, "my-name", nil},
		{"label digits first", dns1123LabelMsgs, "123-abc", nil},
		{"label upper", dns1123LabelMsgs, "My-name", []string{msgDNS1123Label}},
		{"label dots", dns1123LabelMsgs, "a.b", []string{"must not contain dots"}},
		{"label empty", dns1123LabelMsgs, "", []string{msgDNS1123Label}},
		{"label trailing dash", dns1123LabelMsgs, "web-", []string{msgDNS1123Label}},
		{"label 63", dns1123LabelMsgs, long(63), nil},
		{"label 64", dns1123LabelMsgs, long(64), []string{"must be no more than 63 characters"}},
		{"subdomain ok", dns1123SubdomainMsgs, "web.example.com", nil},
		{"subdomain empty part", dns1123SubdomainMsgs, "web..com", []string{msgDNS1123Subdomain}},
		{"subdomain underscore", dns1123SubdomainMsgs, "my_pod", []string{msgDNS1123Subdomain}},
		{"subdomain 254", dns1123SubdomainMsgs, long(254), []string{"must be no more than 253 characters"}},
		{"subdomain 254 and bad", dns1123SubdomainMsgs, long(253) + "-", []string{"must be no more than 253 characters", msgDNS1123Subdomain}},
		{"1035 ok", dns1035LabelMsgs, "web-1", nil},
		{"1035 digit first", dns1035LabelMsgs, "1web", []string{msgDNS1035Label}},
		{"qualified ok", qualifiedNameMsgs, "app.kubernetes.io/Name_1", nil},
		{"qualified plain", qualifiedNameMsgs, "MyName", nil},
		{"qualified two slashes", qualifiedNameMsgs, "a/b/c", []string{"a qualified name " + msgQualifiedNamePart + " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')"}},
		{"qualified empty prefix", qualifiedNameMsgs, "/name", []string{"prefix part must be non-empty"}},
		{"qualified bad prefix", qualifiedNameMsgs, "Example.com/name", []string{"prefix part " + msgDNS1123Subdomain}},
		{"qualified empty name", qualifiedNameMsgs, "example.com/", []string{"name part must be non-empty", "name part " + msgQualifiedNamePart}},
		{"qualified long name", qualifiedNameMsgs, long(64), []string{"name part must be no more than 63 characters"}},
		{"qualified bad name", qualifiedNameMsgs, "-x", []string{"name part " + msgQualifiedNamePart}},
		{"label value empty", labelValueMsgs, "", nil},
		{"label value ok", labelValueMsgs, "My_value.1", nil},
		{"label value space", labelValueMsgs, "a b", []string{msgLabelValue}},
		{"label value 64", labelValueMsgs, long(64), []string{"must be no more than 63 characters"}},
		{"port name ok", portNameMsgs, "http-alt", nil},
		{"port name long", portNameMsgs, "abcdefghijklmnop", []string{"must be no more than 15 characters"}},
		{"port name digits", portNameMsgs, "8080", []string{"must contain at least one letter (a-z)"}},
		{"port name upper", portNameMsgs, "Http", []string{"must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)"}},
		{"port name hyphens", portNameMsgs, "-a--b", []string{"must not contain consecutive hyphens", "must not begin or end with a hyphen"}},
		{"name dot", func(s string) []string { return nameIsDNSSubdomain(s, false) }, "..", []string{msgDNS1123Subdomain}},
		{"name slash percent", func(s string) []string { return nameIsDNSSubdomain(s, false) }, "a/%", []string{msgDNS1123Subdomain}},
		{"generateName dash", func(s string) []string { return nameIsDNSSubdomain(s, true) }, "web-", nil},
		{"generateName bad", func(s string) []string { return nameIsDNSSubdomain(s, true) }, "Web-", []string{msgDNS1123Subdomain}},
		{"namespace name dash", func(s string) []string { return nameIsDNSLabel(s, false) }, "kube-system", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, tc.check(tc.value))
		})
	}
}

func TestQuantities(t *testing.T) {
	for _, tc := range []struct {
		in      string
		problem string
		milli   int64 // the value in thousandths, when valid
	}{
		{"1", "", 1000},
		{"500m", "", 500},
		{"1.5", "", 1500},
		{".5", "", 500},
		{"2.", "", 2000},
		{"1Ki", "", 1024 * 1000},
		{"1.5Gi", "", 3 << 29 * 1000},
		{"1e3", "", 1000 * 1000},
		{"1E-3", "", 1},
		{"+2k", "", 2000 * 1000},
		{"-1", "", -1000},
		{"", msgQuantityFormat, 0},
		{"abc", msgQuantityFormat, 0},
		{"1.2.3", msgQuantityFormat, 0},
		{"1 Gi", msgQuantityFormat, 0},
		{"1KK", msgQuantitySuffix, 0},
		{"1e", msgQuantitySuffix, 0},
	} {
		t.Run(tc.in, func(t *testing.T) {
			q, problem := parseQuantity(tc.in)
			assert.Equal(t, tc.problem, problem)
			if problem == "" {
				milli := q.value()
				milli.Mul(milli, bigRat(1000))
				assert.Equal(t, bigRat(tc.milli).String(), milli.String())
				nanos, ok := q.nanos()
				require.True(t, ok)
				assert.Equal(t, tc.milli*1_000_000, nanos)
			}
		})
	}
}

func bigRat(n int64) *big.Rat { return big.NewRat(n, 1) }

func TestFieldPath(t *testing.T) {
	p := pathAt("spec").child("containers").index(2).child("resources").child("limits").key("cpu")
	assert.Equal(t, Path("spec.containers[2].resources.limits[cpu]"), p.path())
	assert.Equal(t, Path("metadata"), metadataPath.path())
}

func TestObjectMeta(t *testing.T) {
	yes := true
	owner := func(kind, name string, controller bool) api.OwnerReference {
		ref := api.OwnerReference{APIVersion: "v1", Kind: kind, Name: name, UID: "u-" + api.UID(name)}
		if controller {
			ref.Controller = &yes
		}
		return ref
	}
	for _, tc := range []struct {
		name   string
		rules  metaRules
		meta   api.ObjectMeta
		want   string
		causes []cause
	}{
		{name: "valid namespaced", rules: podMeta, meta: api.ObjectMeta{
			Name: "web-1", Namespace: "default", GenerateName: "web-",
			Labels:          map[string]string{"app": "web", "app.kubernetes.io/name": ""},
			Annotations:     map[string]string{"Example.com/Note": "anything at all"},
			OwnerReferences: []api.OwnerReference{owner("ReplicationController", "web", true), owner("Node", "n1", false)},
			Finalizers:      []string{"example.com/cleanup", "orphan", "kubernetes"},
		}},
		{name: "valid cluster-scoped", rules: nodeMeta, meta: api.ObjectMeta{Name: "node-1"}},
		{name: "no name", rules: podMeta, meta: api.ObjectMeta{Namespace: "default"},
			want:   "metadata.name: Required value: name or generateName is required",
			causes: []cause{{required, "metadata.name"}}},
		{name: "bad name", rules: podMeta, meta: api.ObjectMeta{Name: "Web", Namespace: "default"},
			want:   `metadata.name: Invalid value: "Web": ` + msgDNS1123Subdomain,
			causes: []cause{{invalid, "metadata.name"}}},
		{name: "bad generateName", rules: podMeta, meta: api.ObjectMeta{Name: "web-abcde", GenerateName: "web_", Namespace: "default"},
			want:   `metadata.generateName: Invalid value: "web_": ` + msgDNS1123Subdomain,
			causes: []cause{{invalid, "metadata.generateName"}}},
		{name: "no namespace", rules: podMeta, meta: api.ObjectMeta{Name: "web"},
			want:   "metadata.namespace: Required value",
			causes: []cause{{required, "metadata.namespace"}}},
		{name: "bad namespace", rules: podMeta, meta: api.ObjectMeta{Name: "web", Namespace: "a.b"},
			want:   `metadata.namespace: Invalid value: "a.b": must not contain dots`,
			causes: []cause{{invalid, "metadata.namespace"}}},
		{name: "namespace on cluster-scoped", rules: nodeMeta, meta: api.ObjectMeta{Name: "n1", Namespace: "default"},
			want:   "metadata.namespace: Forbidden: not allowed on this type",
			causes: []cause{{forbidden, "metadata.namespace"}}},
		{name: "negative generation", rules: podMeta, meta: api.ObjectMeta{Name: "web", Namespace: "default", Generation: -1},
			want:   "metadata.generation: Invalid value: -1: must be greater than or equal to 0",
			causes: []cause{{invalid, "metadata.generation"}}},
		{name: "bad labels in key order", rules: podMeta, meta: api.ObjectMeta{Name: "web", Namespace: "default",
			Labels: map[string]string{"z": "bad value", "ok": "fine", "a/b/c": "x"}},
			want: `[metadata.labels: Invalid value: "a/b/c": a qualified name ` + msgQualifiedNamePart +
				` with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName'), ` +
				`metadata.labels: Invalid value: "bad value": ` + msgLabelValue + `]`,
			causes: []cause{{invalid, "metadata.labels"}, {invalid, "metadata.labels"}}},
		{name: "bad annotation key", rules: podMeta, meta: api.ObjectMeta{Name: "web", Namespace: "default",
			Annotations: map[string]string{"bad key": "v"}},
			want:   `metadata.annotations: Invalid value: "bad key": name part ` + msgQualifiedNamePart,
			causes: []cause{{invalid, "metadata.annotations"}}},
		{name: "annotations too big", rules: podMeta, meta: api.ObjectMeta{Name: "web", Namespace: "default",
			Annotations: map[string]string{"k": strings.Repeat("x", 256*1024)}},
			want:   "metadata.annotations: Too long: may not be more than 262144 bytes",
			causes: []cause{{tooLong, "metadata.annotations"}}},
		{name: "owner reference missing fields", rules: podMeta, meta: api.ObjectMeta{Name: "web", Namespace: "default",
			OwnerReferences: []api.OwnerReference{{APIVersion: "apps/"}}},
			want: `[metadata.ownerReferences.apiVersion: Invalid value: "apps/": version must not be empty, ` +
				`metadata.ownerReferences.kind: Invalid value: "": must not be empty, ` +
				`metadata.ownerReferences.name: Invalid value: "": must not be empty, ` +
				`metadata.ownerReferences.uid: Invalid value: "": must not be empty]`,
			causes: []cause{{invalid, "metadata.ownerReferences.apiVersion"}, {invalid, "metadata.ownerReferences.kind"},
				{invalid, "metadata.ownerReferences.name"}, {invalid, "metadata.ownerReferences.uid"}}},
		{name: "two controllers", rules: podMeta, meta: api.ObjectMeta{Name: "web", Namespace: "default",
			OwnerReferences: []api.OwnerReference{owner("ReplicationController", "a", true), owner("ReplicationController", "b", true)}},
			want: `metadata.ownerReferences: Invalid value: [` +
				`{"apiVersion":"v1","kind":"ReplicationController","name":"a","uid":"u-a","controller":true},` +
				`{"apiVersion":"v1","kind":"ReplicationController","name":"b","uid":"u-b","controller":true}]: ` +
				`Only one reference can have Controller set to true. Found "true" in references for ReplicationController/a and ReplicationController/b`,
			causes: []cause{{invalid, "metadata.ownerReferences"}}},
		{name: "event owner", rules: podMeta, meta: api.ObjectMeta{Name: "web", Namespace: "default",
			OwnerReferences: []api.OwnerReference{owner("Event", "e", false)}},
			want:   `metadata.ownerReferences: Invalid value: {"apiVersion":"v1","kind":"Event","name":"e","uid":"u-e"}: /v1, Kind=Event is disallowed from being an owner`,
			causes: []cause{{invalid, "metadata.ownerReferences"}}},
		{name: "orphan and foreground", rules: podMeta, meta: api.ObjectMeta{Name: "web", Namespace: "default",
			Finalizers: []string{"orphan", "foregroundDeletion"}},
			want:   `metadata.finalizers: Invalid value: []string{"orphan", "foregroundDeletion"}: finalizer orphan and foregroundDeletion cannot be both set`,
			causes: []cause{{invalid, "metadata.finalizers"}}},
		{name: "unqualified finalizer in core", rules: podMeta, meta: api.ObjectMeta{Name: "web", Namespace: "default",
			Finalizers: []string{"cleanup"}},
			want:   `metadata.finalizers: Invalid value: "cleanup": name is neither a standard finalizer name nor is it fully qualified`,
			causes: []cause{{invalid, "metadata.finalizers"}}},
		{name: "unqualified finalizer outside core", rules: leaseMeta, meta: api.ObjectMeta{Name: "l", Namespace: "default",
			Finalizers: []string{"cleanup"}}},
		{name: "bad finalizer", rules: leaseMeta, meta: api.ObjectMeta{Name: "l", Namespace: "default",
			Finalizers: []string{"example.com/"}},
			want: `[metadata.finalizers: Invalid value: "example.com/": name part must be non-empty, ` +
				`metadata.finalizers: Invalid value: "example.com/": name part ` + msgQualifiedNamePart + `]`,
			causes: []cause{{invalid, "metadata.finalizers"}, {invalid, "metadata.finalizers"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assertErrors(t, validateObjectMeta(nil, &tc.meta, tc.rules, metadataPath), tc.want, tc.causes)
		})
	}
}

func TestObjectMetaUpdate(t *testing.T) {
	created := api.NewTime(time.Date(2024, 5, 14, 9, 21, 7, 0, time.UTC))
	old := api.ObjectMeta{Name: "web", Namespace: "default", UID: "u1", CreationTimestamp: created, ResourceVersion: "5"}
	for _, tc := range []struct {
		name   string
		change func(*api.ObjectMeta)
		want   string
		causes []cause
	}{
		{name: "labels and resourceVersion may change", change: func(m *api.ObjectMeta) {
			m.Labels = map[string]string{"a": "b"}
			m.ResourceVersion = "6"
		}},
		{name: "name", change: func(m *api.ObjectMeta) { m.Name = "other" },
			want: `metadata.name: Invalid value: "other": field is immutable`, causes: []cause{{invalid, "metadata.name"}}},
		{name: "namespace", change: func(m *api.ObjectMeta) { m.Namespace = "kube-system" },
			want: `metadata.namespace: Invalid value: "kube-system": field is immutable`, causes: []cause{{invalid, "metadata.namespace"}}},
		{name: "uid", change: func(m *api.ObjectMeta) { m.UID = "u2" },
			want: `metadata.uid: Invalid value: "u2": field is immutable`, causes: []cause{{invalid, "metadata.uid"}}},
		{name: "creationTimestamp", change: func(m *api.ObjectMeta) { m.CreationTimestamp = api.NewTime(created.Add(time.Hour)) },
			want: `metadata.creationTimestamp: Invalid value: "2024-05-14T10:21:07Z": field is immutable`, causes: []cause{{invalid, "metadata.creationTimestamp"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := old
			tc.change(&m)
			assertErrors(t, validateObjectMetaUpdate(nil, &m, &old, metadataPath), tc.want, tc.causes)
		})
	}
}

// NewInvalid's message joins every cause the way Kubernetes does, and the
// status carries one cause per field error.
func TestNewInvalidMessage(t *testing.T) {
	minus := int32(-1)
	rc := &api.ReplicationController{
		Metadata: api.ObjectMeta{Name: "web", Namespace: "default"},
		Spec:     api.ReplicationControllerSpec{Replicas: &minus},
	}
	defaultReplicationController(rc)
	err := apierrors.NewInvalid("", "ReplicationController", "web", validateReplicationController(rc))
	assert.Equal(t, `ReplicationController "web" is invalid: [spec.selector: Required value, `+
		`spec.replicas: Invalid value: -1: must be greater than or equal to 0, spec.template: Required value]`, err.Error())
	assert.True(t, apierrors.IsInvalid(err))
	require.NotNil(t, err.Status.Details)
	assert.Equal(t, []api.StatusCause{
		{Type: required, Message: "Required value", Field: "spec.selector"},
		{Type: invalid, Message: "Invalid value: -1: must be greater than or equal to 0", Field: "spec.replicas"},
		{Type: required, Message: "Required value", Field: "spec.template"},
	}, err.Status.Details.Causes)

	one := apierrors.NewInvalid("coordination.k8s.io", "Lease", "l", validateLease(&api.Lease{
		Metadata: api.ObjectMeta{Name: "l", Namespace: "default"},
		Spec:     api.LeaseSpec{LeaseDurationSeconds: new(int32)},
	}))
	assert.Equal(t, `Lease.coordination.k8s.io "l" is invalid: spec.leaseDurationSeconds: Invalid value: 0: must be greater than 0`, one.Error())
}

// Valid objects, defaulted as the server defaults them, are validated
// without a single allocation, created or updated.
func TestValidObjectsAllocateNothing(t *testing.T) {
	pod, rc, svc, ep := validPod(), validRC(), validService(), validEndpoints()
	node, lease, event, ns := validNode(), validLease(), validEvent(), validNamespace()
	defaultPod(pod)
	defaultReplicationController(rc)
	defaultService(svc)
	defaultEndpoints(ep)
	defaultNode(node)
	defaultNamespace(ns)
	for name, validate := range map[string]func() apierrors.FieldErrors{
		"pod":             func() apierrors.FieldErrors { return validatePod(pod) },
		"rc":              func() apierrors.FieldErrors { return validateReplicationController(rc) },
		"rc update":       func() apierrors.FieldErrors { return validateReplicationControllerUpdate(rc, rc) },
		"service":         func() apierrors.FieldErrors { return validateService(svc) },
		"service update":  func() apierrors.FieldErrors { return validateServiceUpdate(svc, svc) },
		"endpoints":       func() apierrors.FieldErrors { return validateEndpoints(ep) },
		"node":            func() apierrors.FieldErrors { return validateNode(node) },
		"node update":     func() apierrors.FieldErrors { return validateNodeUpdate(node, node) },
		"lease":           func() apierrors.FieldErrors { return validateLease(lease) },
		"lease update":    func() apierrors.FieldErrors { return validateLeaseUpdate(lease, lease) },
		"event":           func() apierrors.FieldErrors { return validateEvent(event) },
		"namespace":       func() apierrors.FieldErrors { return validateNamespace(ns) },
		"namespace again": func() apierrors.FieldErrors { return validateNamespaceUpdate(ns, ns) },
	} {
		t.Run(name, func(t *testing.T) {
			require.Nil(t, validate())
			assert.Zero(t, testing.AllocsPerRun(100, func() { _ = validate() }))
		})
	}
}

func BenchmarkValidatePod(b *testing.B) {
	pod := validPod()
	defaultPod(pod)
	b.ReportAllocs()
	for b.Loop() {
		if validatePod(pod) != nil {
			b.Fatal("invalid")
		}
	}
}

func BenchmarkDefaultAndValidatePod(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		b.StopTimer()
		pod := validPod()
		b.StartTimer()
		defaultPod(pod)
		if validatePod(pod) != nil {
			b.Fatal("invalid")
		}
	}
}
