package apiserver

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/miniplane/miniplane/api"
)

func validLease() *api.Lease {
	now := api.NewMicroTime(time.Date(2024, 5, 14, 9, 21, 7, 123456000, time.UTC))
	return &api.Lease{
		Metadata: api.ObjectMeta{Name: "kube-controller-manager", Namespace: "kube-system"},
		Spec: api.LeaseSpec{
			HolderIdentity:       ptrTo("cm-1_5f3c any text at all"),
			LeaseDurationSeconds: ptrTo(int32(15)),
			AcquireTime:          &now,
			RenewTime:            &now,
			LeaseTransitions:     ptrTo(int32(0)),
		},
	}
}

func TestDefaultLease(t *testing.T) {
	l := validLease()
	defaultLease(l)
	assert.Equal(t, validLease(), l, "leases have no defaults")
}

func TestValidateLease(t *testing.T) {
	for _, tc := range []struct {
		name   string
		change func(*api.Lease)
		want   string
		causes []cause
	}{
		{name: "valid", change: func(*api.Lease) {}},
		{name: "empty", change: func(l *api.Lease) { l.Spec = api.LeaseSpec{} }},
		{name: "strategy and preferred holder", change: func(l *api.Lease) {
			l.Spec.Strategy = ptrTo("OldestEmulationVersion")
			l.Spec.PreferredHolder = ptrTo("cm-2")
		}},
		{name: "custom strategy", change: func(l *api.Lease) { l.Spec.Strategy = ptrTo("example.com/newest") }},
		{name: "zero duration", change: func(l *api.Lease) { l.Spec.LeaseDurationSeconds = ptrTo(int32(0)) },
			want: "spec.leaseDurationSeconds: Invalid value: 0: must be greater than 0", causes: []cause{{invalid, "spec.leaseDurationSeconds"}}},
		{name: "negative transitions", change: func(l *api.Lease) { l.Spec.LeaseTransitions = ptrTo(int32(-1)) },
			want: "spec.leaseTransitions: Invalid value: -1: must be greater than or equal to 0", causes: []cause{{invalid, "spec.leaseTransitions"}}},
		{name: "unknown strategy", change: func(l *api.Lease) { l.Spec.Strategy = ptrTo("Newest") },
			want:   `spec.strategy: Unsupported value: "Newest": supported values: "OldestEmulationVersion"`,
			causes: []cause{{notSupported, "spec.strategy"}}},
		{name: "bad custom strategy", change: func(l *api.Lease) { l.Spec.Strategy = ptrTo("example.com/-x") },
			want: `spec.strategy: Invalid value: "example.com/-x": name part ` + msgQualifiedNamePart, causes: []cause{{invalid, "spec.strategy"}}},
		{name: "preferred holder without strategy", change: func(l *api.Lease) { l.Spec.PreferredHolder = ptrTo("cm-2") },
			want:   "spec.preferredHolder: Forbidden: may only be specified if `strategy` is defined",
			causes: []cause{{forbidden, "spec.preferredHolder"}}},
		{name: "no namespace", change: func(l *api.Lease) { l.Metadata.Namespace = "" },
			want: "metadata.namespace: Required value", causes: []cause{{required, "metadata.namespace"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := validLease()
			tc.change(l)
			defaultLease(l)
			assertErrors(t, validateLease(l), tc.want, tc.causes)
		})
	}
}

func TestValidateLeaseUpdate(t *testing.T) {
	old := validLease()
	old.Metadata.UID = "u1"
	l := old.DeepCopy()
	l.Spec.HolderIdentity = ptrTo("cm-2")
	l.Spec.LeaseTransitions = ptrTo(int32(1))
	assert.Nil(t, validateLeaseUpdate(l, old), "a takeover is an ordinary update")

	l.Spec.LeaseDurationSeconds = ptrTo(int32(-3))
	l.Metadata.UID = "u2"
	assertErrors(t, validateLeaseUpdate(l, old),
		`[spec.leaseDurationSeconds: Invalid value: -3: must be greater than 0, metadata.uid: Invalid value: "u2": field is immutable]`,
		[]cause{{invalid, "spec.leaseDurationSeconds"}, {invalid, "metadata.uid"}})
}
