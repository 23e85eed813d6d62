package apiserver_test

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/api/apierrors"
	"github.com/miniplane/miniplane/apiserver"
	"github.com/miniplane/miniplane/client"
	"github.com/miniplane/miniplane/clock"
)

// newPriorityServer returns a server with Priority admission on and the
// given classes created.
func newPriorityServer(t *testing.T, classes ...*api.PriorityClass) *apiserver.Server {
	t.Helper()
	s, err := apiserver.New(apiserver.Config{Clock: clock.NewFake(epoch), Rand: rand.New(rand.NewPCG(1, 2)), PriorityClasses: true})
	require.NoError(t, err)
	for _, pc := range classes {
		_, err := s.Create(ctx, pc)
		require.NoError(t, err)
	}
	return s
}

func TestSystemPriorityClassesAtStart(t *testing.T) {
	s := newPriorityServer(t)
	items, _, err := client.For[*api.PriorityClass](s).List(ctx, "", client.ListOptions{})
	require.NoError(t, err)
	var got []string
	for _, pc := range items {
		got = append(got, pc.Metadata.Name)
		assert.Equal(t, api.PreemptLowerPriority, *pc.PreemptionPolicy, pc.Metadata.Name)
	}
	assert.Equal(t, []string{"system-cluster-critical", "system-node-critical"}, got)
	assert.Equal(t, int32(2000001000), items[1].Value)
}

// The cases of Kubernetes' TestPodAdmission (plugin/pkg/admission/priority).
func TestPriorityAdmission(t *testing.T) {
	high := &api.PriorityClass{Metadata: api.ObjectMeta{Name: "high"}, Value: 1000}
	never := &api.PriorityClass{Metadata: api.ObjectMeta{Name: "nopreempt"}, Value: 500, PreemptionPolicy: ptr(api.PreemptNever)}
	def := &api.PriorityClass{Metadata: api.ObjectMeta{Name: "default"}, Value: 10, GlobalDefault: true}
	withClass := func(name string, priority *int32, policy *api.PreemptionPolicy) *api.Pod {
		p := pod("default", "p", nil)
		p.Spec.PriorityClassName, p.Spec.Priority, p.Spec.PreemptionPolicy = name, priority, policy
		return p
	}
	tests := []struct {
		name      string
		classes   []*api.PriorityClass
		pod       *api.Pod
		wantClass string
		want      int32
		wantPol   api.PreemptionPolicy
		wantErr   string
	}{
		{name: "no class, no default", pod: withClass("", nil, nil), want: 0, wantPol: api.PreemptLowerPriority},
		{name: "no class, the default's", classes: []*api.PriorityClass{high, def}, pod: withClass("", nil, nil),
			wantClass: "default", want: 10, wantPol: api.PreemptLowerPriority},
		{name: "named class", classes: []*api.PriorityClass{high, def}, pod: withClass("high", nil, nil),
			wantClass: "high", want: 1000, wantPol: api.PreemptLowerPriority},
		{name: "system class", pod: withClass("system-node-critical", nil, nil),
			wantClass: "system-node-critical", want: 2000001000, wantPol: api.PreemptLowerPriority},
		{name: "class that never preempts", classes: []*api.PriorityClass{never}, pod: withClass("nopreempt", nil, nil),
			wantClass: "nopreempt", want: 500, wantPol: api.PreemptNever},
		{name: "priority given that matches", classes: []*api.PriorityClass{high}, pod: withClass("high", ptr(int32(1000)), nil),
			wantClass: "high", want: 1000, wantPol: api.PreemptLowerPriority},
		{name: "missing class", pod: withClass("foo", nil, nil),
			wantErr: `pods "p" is forbidden: no PriorityClass with name foo was found`},
		{name: "priority given that differs", classes: []*api.PriorityClass{high}, pod: withClass("high", ptr(int32(7)), nil),
			wantErr: `pods "p" is forbidden: the integer value of priority (7) must not be provided in pod spec; priority admission controller computed 1000 from the given PriorityClass name`},
		{name: "policy given that differs", classes: []*api.PriorityClass{high}, pod: withClass("high", nil, ptr(api.PreemptNever)),
			wantErr: `pods "p" is forbidden: the string value of PreemptionPolicy (Never) must not be provided in pod spec; priority admission controller computed PreemptLowerPriority from the given PriorityClass name`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newPriorityServer(t, tt.classes...)
			got, err := s.Create(ctx, tt.pod)
			if tt.wantErr != "" {
				require.Error(t, err)
				assert.True(t, apierrors.IsForbidden(err), "%v", err)
				assert.EqualError(t, err, tt.wantErr)
				_, getErr := client.For[*api.Pod](s).Get(ctx, "default", "p")
				assert.True(t, apierrors.IsNotFound(getErr), "nothing is stored")
				return
			}
			require.NoError(t, err)
			p := got.(*api.Pod)
			assert.Equal(t, tt.wantClass, p.Spec.PriorityClassName)
			require.NotNil(t, p.Spec.Priority)
			assert.Equal(t, tt.want, *p.Spec.Priority)
			require.NotNil(t, p.Spec.PreemptionPolicy)
			assert.Equal(t, tt.wantPol, *p.Spec.PreemptionPolicy)
		})
	}
}

func TestPriorityKeptOnUpdate(t *testing.T) {
	s := newPriorityServer(t, &api.PriorityClass{Metadata: api.ObjectMeta{Name: "high"}, Value: 1000})
	p := pod("default", "p", nil)
	p.Spec.PriorityClassName = "high"
	created, err := s.Create(ctx, p)
	require.NoError(t, err)
	upd := created.(*api.Pod).DeepCopy()
	upd.Spec.Priority, upd.Spec.PreemptionPolicy = nil, nil
	upd.Metadata.Labels = map[string]string{"a": "b"}
	got, err := s.Update(ctx, upd)
	require.NoError(t, err, "a client that left out the resolved fields may still update the pod")
	assert.Equal(t, int32(1000), *got.(*api.Pod).Spec.Priority)
	assert.Equal(t, api.PreemptLowerPriority, *got.(*api.Pod).Spec.PreemptionPolicy)
}

func TestOnlyOneDefaultPriorityClass(t *testing.T) {
	s := newPriorityServer(t, &api.PriorityClass{Metadata: api.ObjectMeta{Name: "a"}, Value: 10, GlobalDefault: true},
		&api.PriorityClass{Metadata: api.ObjectMeta{Name: "b"}, Value: 20})
	_, err := s.Create(ctx, &api.PriorityClass{Metadata: api.ObjectMeta{Name: "c"}, Value: 30, GlobalDefault: true})
	require.Error(t, err)
	assert.True(t, apierrors.IsForbidden(err))
	assert.EqualError(t, err, `priorityclasses.scheduling.k8s.io "c" is forbidden: PriorityClass a is already marked as default. Only one default can exist`)

	b, err := client.For[*api.PriorityClass](s).Get(ctx, "", "b")
	require.NoError(t, err)
	upd := b.DeepCopy()
	upd.GlobalDefault = true
	_, err = s.Update(ctx, upd)
	assert.EqualError(t, err, `priorityclasses.scheduling.k8s.io "b" is forbidden: PriorityClass a is already marked as default. Only one default can exist`)

	a, err := client.For[*api.PriorityClass](s).Get(ctx, "", "a")
	require.NoError(t, err)
	upd = a.DeepCopy()
	upd.Description = "the default"
	_, err = s.Update(ctx, upd)
	assert.NoError(t, err, "the default itself may be updated")
}
