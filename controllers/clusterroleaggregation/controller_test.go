package clusterroleaggregation_test

import (
	"context"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.uber.org/zap/zaptest"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/apiserver"
	"github.com/miniplane/miniplane/client"
	"github.com/miniplane/miniplane/clock"
	"github.com/miniplane/miniplane/controllers/clusterroleaggregation"
	"github.com/miniplane/miniplane/informer"
)

// TestRunAggregates runs the controller against a server with the default
// roles: view gets system:aggregate-to-view's rules, and a role labelled
// aggregate-to-view later reaches view, edit and admin.
func TestRunAggregates(t *testing.T) {
	srv, err := apiserver.New(apiserver.Config{Clock: clock.Real{}, Rand: rand.New(rand.NewPCG(1, 2)), BootstrapPolicy: true})
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	f := informer.NewFactory(srv, "", clock.Real{}, zaptest.NewLogger(t))
	c, err := clusterroleaggregation.New(clusterroleaggregation.Config{Client: srv, Factory: f, Clock: clock.Real{}, Logger: zaptest.NewLogger(t)})
	require.NoError(t, err)
	f.Start(ctx)
	done := make(chan struct{})
	go func() { c.Run(ctx, 5); close(done) }()
	t.Cleanup(func() { cancel(); <-done; f.Shutdown() })

	roles := client.For[*api.ClusterRole](srv)
	has := func(name string, rule api.PolicyRule) func() bool {
		return func() bool {
			r, err := roles.Get(ctx, "", name)
			return err == nil && slices.ContainsFunc(r.Rules, func(have api.PolicyRule) bool {
				return clusterroleaggregation.SameRules([]api.PolicyRule{have}, []api.PolicyRule{rule})
			})
		}
	}
	logs := api.PolicyRule{Verbs: []string{"get", "list", "watch"}, APIGroups: []string{""}, Resources: []string{"limitranges", "resourcequotas", "bindings", "events",
		"pods/status", "resourcequotas/status", "namespaces/status", "replicationcontrollers/status", "pods/log"}}
	for _, name := range []string{"view", "edit", "admin"} {
		require.Eventually(t, has(name, logs), 5*time.Second, 5*time.Millisecond, name)
	}
	widgets := api.PolicyRule{Verbs: []string{"get"}, APIGroups: []string{"example.com"}, Resources: []string{"widgets"}}
	_, err = roles.Create(ctx, &api.ClusterRole{Metadata: api.ObjectMeta{Name: "widget-viewer",
		Labels: map[string]string{"rbac.authorization.k8s.io/aggregate-to-view": "true"}}, Rules: []api.PolicyRule{widgets}})
	require.NoError(t, err)
	for _, name := range []string{"view", "edit", "admin"} {
		require.Eventually(t, has(name, widgets), 5*time.Second, 5*time.Millisecond, name)
	}
}
