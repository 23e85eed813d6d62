package apiserver_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/client"
)

// TestDaemonSetTemplateGeneration: the server keeps a daemon set's
// template generation in the deprecated.daemonset.template.generation
// annotation as kube-apiserver does: 1 on create, one more at each
// template change and only then, whatever a client sends, through main
// and status updates alike.
func TestDaemonSetTemplateGeneration(t *testing.T) {
	s, _ := newServer(t)
	ctx := t.Context()
	sets := client.For[*api.DaemonSet](s)
	gen := func(ds *api.DaemonSet) string {
		return ds.Metadata.Annotations[api.DaemonSetTemplateGenerationAnnotation]
	}
	labels := map[string]string{"app": "agent"}
	ds, err := sets.Create(ctx, &api.DaemonSet{Metadata: api.ObjectMeta{Namespace: "default", Name: "agent", Annotations: map[string]string{"team": "infra"}},
		Spec: api.DaemonSetSpec{Selector: &api.LabelSelector{MatchLabels: labels}, Template: api.PodTemplateSpec{
			Metadata: api.ObjectMeta{Labels: labels}, Spec: api.PodSpec{Containers: []api.Container{{Name: "agent", Image: "fluentd:1"}}}}}})
	require.NoError(t, err)
	assert.Equal(t, "1", gen(ds))
	assert.Equal(t, "infra", ds.Metadata.Annotations["team"])

	next := ds.DeepCopy()
	next.Spec.Template.Spec.Containers[0].Image = "fluentd:2"
	ds, err = sets.Update(ctx, next)
	require.NoError(t, err)
	assert.Equal(t, "2", gen(ds), "a template change")
	assert.Equal(t, int64(2), ds.Metadata.Generation)

	next = ds.DeepCopy()
	next.Spec.MinReadySeconds = 5
	next.Metadata.Annotations[api.DaemonSetTemplateGenerationAnnotation] = "9"
	ds, err = sets.Update(ctx, next)
	require.NoError(t, err)
	assert.Equal(t, "2", gen(ds), "not a template change; the client's value is ignored")
	assert.Equal(t, int64(3), ds.Metadata.Generation)

	next = ds.DeepCopy()
	next.Metadata.Annotations = nil
	next.Status.DesiredNumberScheduled = 3
	ds, err = sets.UpdateStatus(ctx, next)
	require.NoError(t, err)
	assert.Equal(t, "2", gen(ds), "a status update keeps it")
	assert.Equal(t, int32(3), ds.Status.DesiredNumberScheduled)
}
