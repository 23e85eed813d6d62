package apiserver_test

import (
	"math/rand/v2"
	"net/http"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/api/apierrors"
	"github.com/miniplane/miniplane/apiserver"
	"github.com/miniplane/miniplane/client"
	"github.com/miniplane/miniplane/clock"
)

// newAdmittingServer returns a server with ServiceAccount admission on,
// waiting wait for a missing "default" account, and an account "builder"
// in namespace "default" (but no "default" account anywhere).
func newAdmittingServer(t *testing.T, wait time.Duration) (*apiserver.Server, *clock.Fake) {
	t.Helper()
	clk := clock.NewFake(epoch)
	s, err := apiserver.New(apiserver.Config{Clock: clk, Rand: rand.New(rand.NewPCG(1, 2)), ServiceAccounts: true, DefaultServiceAccountWait: wait})
	require.NoError(t, err)
	_, err = s.Create(ctx, &api.ServiceAccount{Metadata: api.ObjectMeta{Namespace: "default", Name: "builder"}})
	require.NoError(t, err)
	return s, clk
}

func TestServiceAccountAdmission(t *testing.T) {
	withAccount := func(name, deprecated string) *api.Pod {
		p := pod("default", "p", nil)
		p.Spec.ServiceAccountName, p.Spec.DeprecatedServiceAccount = name, deprecated
		return p
	}
	tests := []struct {
		name        string
		pod         *api.Pod
		makeDefault bool
		wantAccount string // on success
		wantMessage string // on refusal
	}{
		{name: "no account named: default", pod: withAccount("", ""), makeDefault: true, wantAccount: "default"},
		{name: "an existing account", pod: withAccount("builder", ""), wantAccount: "builder"},
		{name: "the deprecated field alone names it", pod: withAccount("", "builder"), wantAccount: "builder"},
		{name: "serviceAccountName wins over the deprecated field", pod: withAccount("builder", "other"), wantAccount: "builder"},
		{name: "a missing account is refused", pod: withAccount("ghost", ""), makeDefault: true,
			wantMessage: `pods "p" is forbidden: error looking up service account default/ghost: serviceaccount "ghost" not found`},
		{name: "a missing default account is refused", pod: withAccount("", ""),
			wantMessage: `pods "p" is forbidden: error looking up service account default/default: serviceaccount "default" not found`},
		{name: "a missing account named by the deprecated field is refused", pod: withAccount("", "ghost"),
			wantMessage: `pods "p" is forbidden: error looking up service account default/ghost: serviceaccount "ghost" not found`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, _ := newAdmittingServer(t, 0)
			if tt.makeDefault {
				_, err := s.Create(ctx, &api.ServiceAccount{Metadata: api.ObjectMeta{Namespace: "default", Name: "default"}})
				require.NoError(t, err)
			}
			for _, dryRun := range []bool{true, false} {
				var opts []client.WriteOption
				if dryRun {
					opts = append(opts, client.DryRun())
				}
				got, err := s.Create(ctx, tt.pod, opts...)
				if tt.wantMessage != "" {
					require.Error(t, err)
					st := apierrors.StatusOf(err)
					assert.Equal(t, int32(http.StatusForbidden), st.Code)
					assert.Equal(t, api.StatusReasonForbidden, st.Reason)
					assert.Equal(t, tt.wantMessage, st.Message)
					_, getErr := s.Get(ctx, client.Pods, "default", "p", client.GetOptions{})
					assert.True(t, apierrors.IsNotFound(getErr), "a refused pod is not stored")
					continue
				}
				require.NoError(t, err)
				p := got.(*api.Pod)
				assert.Equal(t, tt.wantAccount, p.Spec.ServiceAccountName)
				assert.Equal(t, tt.wantAccount, p.Spec.DeprecatedServiceAccount, "the deprecated field mirrors the name")
			}
		})
	}
}

// TestServiceAccountAdmissionNamesAGeneratedPodByItsPrefix: admission runs
// before names are generated, so kube-apiserver names the pod by its
// generateName.
func TestServiceAccountAdmissionNamesAGeneratedPodByItsPrefix(t *testing.T) {
	s, _ := newAdmittingServer(t, 0)
	p := pod("default", "", nil)
	p.Metadata.GenerateName = "web-"
	_, err := s.Create(ctx, p)
	require.Error(t, err)
	assert.Equal(t, `pods "web-" is forbidden: error looking up service account default/default: serviceaccount "default" not found`, err.Error())
}

// TestServiceAccountAdmissionOff: a bare server admits a pod whatever its
// account, and leaves the name as sent.
func TestServiceAccountAdmissionOff(t *testing.T) {
	s, _ := newServer(t)
	p := pod("default", "p", nil)
	p.Spec.ServiceAccountName = "ghost"
	got, err := s.Create(ctx, p)
	require.NoError(t, err)
	assert.Equal(t, "ghost", got.(*api.Pod).Spec.ServiceAccountName)
	got, err = s.Create(ctx, pod("default", "q", nil))
	require.NoError(t, err)
	assert.Empty(t, got.(*api.Pod).Spec.ServiceAccountName)
}

// TestServiceAccountAdmissionWaitsForDefault: a pod create in a namespace
// whose "default" account is not there yet waits for it, as
// kube-apiserver's lookup retries; past the wait it is refused.
func TestServiceAccountAdmissionWaitsForDefault(t *testing.T) {
	t.Run("the account arrives", func(t *testing.T) {
		s, _ := newAdmittingServer(t, 2*time.Second)
		errc := make(chan error, 1)
		go func() { _, err := s.Create(ctx, pod("default", "p", nil)); errc <- err }()
		_, err := s.Create(ctx, &api.ServiceAccount{Metadata: api.ObjectMeta{Namespace: "default", Name: "default"}})
		require.NoError(t, err)
		require.NoError(t, <-errc)
	})
	t.Run("the wait ends", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			s, clk := newAdmittingServer(t, 2*time.Second)
			errc := make(chan error, 1)
			go func() { _, err := s.Create(ctx, pod("default", "p", nil)); errc <- err }()
			synctest.Wait() // the create waits on its timer
			clk.Step(time.Second)
			synctest.Wait()
			select {
			case err := <-errc:
				t.Fatalf("the create gave up before its wait ended: %v", err)
			default:
			}
			clk.Step(time.Second)
			err := <-errc
			require.True(t, apierrors.IsForbidden(err), "got %v", err)
		})
	})
	t.Run("only the default account is waited for", func(t *testing.T) {
		s, _ := newAdmittingServer(t, time.Hour)
		p := pod("default", "p", nil)
		p.Spec.ServiceAccountName = "ghost"
		_, err := s.Create(ctx, p)
		require.True(t, apierrors.IsForbidden(err), "got %v", err)
	})
}

// TestServiceAccountTokenMount ports the scenarios of kube-apiserver's
// ServiceAccount admission tests on the token volume (TestAutomountsAPIToken,
// TestRespectsExistingMount, TestAutomountIsBackwardsCompatible and the
// automount settings): which containers get the kube-api-access volume,
// and whether the pod or the account opts out.
func TestServiceAccountTokenMount(t *testing.T) {
	const path = "/var/run/secrets/kubernetes.io/serviceaccount"
	yes, no := true, false
	type mounts map[string][]string // container → mount paths, in order
	tests := []struct {
		name          string
		podAutomount  *bool
		saAutomount   *bool
		edit          func(*api.Pod)
		wantVolume    bool
		wantMounts    mounts
		wantVolumeNum int
	}{
		{name: "mounted in every container by default", wantVolume: true,
			wantMounts: mounts{"init": {path}, "app": {path}, "side": {path}}},
		{name: "the pod opts out", podAutomount: &no, wantMounts: mounts{"init": nil, "app": nil, "side": nil}},
		{name: "the account opts out", saAutomount: &no, wantMounts: mounts{"init": nil, "app": nil, "side": nil}},
		{name: "the pod's yes wins over the account's no", podAutomount: &yes, saAutomount: &no, wantVolume: true,
			wantMounts: mounts{"init": {path}, "app": {path}, "side": {path}}},
		{name: "a container that mounts something at the path keeps it", wantVolume: true,
			edit: func(p *api.Pod) {
				p.Spec.Volumes = []api.Volume{{Name: "mine", VolumeSource: api.VolumeSource{EmptyDir: &api.EmptyDirVolumeSource{}}}}
				p.Spec.Containers[0].VolumeMounts = []api.VolumeMount{{Name: "mine", MountPath: path}}
			},
			wantMounts: mounts{"init": {path}, "app": {path}, "side": {path}}, wantVolumeNum: 1},
		{name: "no volume when every container mounts its own there",
			edit: func(p *api.Pod) {
				p.Spec.Volumes = []api.Volume{{Name: "mine", VolumeSource: api.VolumeSource{EmptyDir: &api.EmptyDirVolumeSource{}}}}
				for _, cs := range [][]api.Container{p.Spec.InitContainers, p.Spec.Containers} {
					for i := range cs {
						cs[i].VolumeMounts = []api.VolumeMount{{Name: "mine", MountPath: path}}
					}
				}
			},
			wantMounts: mounts{"init": {path}, "app": {path}, "side": {path}}, wantVolumeNum: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, _ := newAdmittingServer(t, 0)
			_, err := s.Create(ctx, &api.ServiceAccount{Metadata: api.ObjectMeta{Namespace: "default", Name: "default"}, AutomountServiceAccountToken: tt.saAutomount})
			require.NoError(t, err)
			p := pod("default", "p", nil)
			p.Spec.InitContainers = []api.Container{{Name: "init", Image: "busybox"}}
			p.Spec.Containers = append(p.Spec.Containers, api.Container{Name: "side", Image: "busybox"})
			p.Spec.AutomountServiceAccountToken = tt.podAutomount
			if tt.edit != nil {
				tt.edit(p)
			}
			before := p.DeepCopy()
			got, err := s.Create(ctx, p)
			require.NoError(t, err)
			assert.Equal(t, before, p, "the caller's pod is not changed")
			created := got.(*api.Pod)
			var token *api.Volume
			for i, v := range created.Spec.Volumes {
				if strings.HasPrefix(v.Name, "kube-api-access-") {
					token = &created.Spec.Volumes[i]
				}
			}
			wantNum := tt.wantVolumeNum
			if tt.wantVolume {
				wantNum++
				require.NotNil(t, token)
				assert.Len(t, token.Name, len("kube-api-access-")+5)
				require.NotNil(t, token.Projected)
				srcs := token.Projected.Sources
				require.Len(t, srcs, 3)
				assert.Equal(t, "token", srcs[0].ServiceAccountToken.Path)
				assert.Equal(t, int64(3607), *srcs[0].ServiceAccountToken.ExpirationSeconds)
				assert.Equal(t, "kube-root-ca.crt", srcs[1].ConfigMap.Name)
				assert.Equal(t, "metadata.namespace", srcs[2].DownwardAPI.Items[0].FieldRef.FieldPath)
				assert.Equal(t, int32(0o644), *token.Projected.DefaultMode)
			} else {
				assert.Nil(t, token)
			}
			assert.Len(t, created.Spec.Volumes, wantNum)
			gotMounts := mounts{}
			for _, c := range append(created.Spec.InitContainers, created.Spec.Containers...) {
				var paths []string
				for _, m := range c.VolumeMounts {
					paths = append(paths, m.MountPath)
					if token != nil && m.Name == token.Name {
						assert.True(t, m.ReadOnly, "%s mounts the token read-only", c.Name)
					}
				}
				gotMounts[c.Name] = paths
			}
			assert.Equal(t, tt.wantMounts, gotMounts)
		})
	}
}
