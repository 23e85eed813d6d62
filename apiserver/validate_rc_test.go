package apiserver

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/miniplane/miniplane/api"
)

func validRC() *api.ReplicationController {
	return &api.ReplicationController{
		Metadata: api.ObjectMeta{Name: "web", Namespace: "default"},
		Spec: api.ReplicationControllerSpec{
			Replicas: ptrTo(int32(3)),
			Selector: map[string]string{"app": "web"},
			Template: &api.PodTemplateSpec{
				Metadata: api.ObjectMeta{Labels: map[string]string{"app": "web", "tier": "front"}},
				Spec:     api.PodSpec{Containers: []api.Container{{Name: "web", Image: "nginx:1.25"}}},
			},
		},
	}
}

func TestDefaultReplicationController(t *testing.T) {
	t.Run("from the template", func(t *testing.T) {
		rc := &api.ReplicationController{Spec: api.ReplicationControllerSpec{Template: &api.PodTemplateSpec{
			Metadata: api.ObjectMeta{Labels: map[string]string{"app": "web"}},
			Spec:     api.PodSpec{Containers: []api.Container{{Name: "web", Image: "nginx", Ports: []api.ContainerPort{{ContainerPort: 80}}}}},
		}}}
		defaultReplicationController(rc)
		assert.Equal(t, map[string]string{"app": "web"}, rc.Spec.Selector)
		assert.Equal(t, map[string]string{"app": "web"}, rc.Metadata.Labels)
		require.NotNil(t, rc.Spec.Replicas)
		assert.Equal(t, int32(1), *rc.Spec.Replicas)
		tmpl := rc.Spec.Template.Spec
		assert.Equal(t, api.RestartPolicyAlways, tmpl.RestartPolicy)
		assert.Equal(t, api.DNSClusterFirst, tmpl.DNSPolicy)
		assert.Equal(t, "default-scheduler", tmpl.SchedulerName)
		assert.Equal(t, int64(30), *tmpl.TerminationGracePeriodSeconds)
		assert.Equal(t, api.PullAlways, tmpl.Containers[0].ImagePullPolicy)
		assert.Equal(t, api.ProtocolTCP, tmpl.Containers[0].Ports[0].Protocol)

		// The selector is a copy: changing one map leaves the others.
		rc.Spec.Selector["app"] = "other"
		assert.Equal(t, "web", rc.Spec.Template.Metadata.Labels["app"])
		assert.Equal(t, "web", rc.Metadata.Labels["app"])
	})
	t.Run("set fields are kept", func(t *testing.T) {
		rc := validRC()
		rc.Metadata.Labels = map[string]string{"owner": "me"}
		rc.Spec.Replicas = ptrTo(int32(0))
		defaultReplicationController(rc)
		assert.Equal(t, map[string]string{"app": "web"}, rc.Spec.Selector)
		assert.Equal(t, map[string]string{"owner": "me"}, rc.Metadata.Labels)
		assert.Equal(t, int32(0), *rc.Spec.Replicas)
	})
	t.Run("no template, no labels", func(t *testing.T) {
		rc := &api.ReplicationController{}
		defaultReplicationController(rc)
		assert.Nil(t, rc.Spec.Selector)
		assert.Nil(t, rc.Metadata.Labels)
		assert.Equal(t, int32(1), *rc.Spec.Replicas)
	})
}

func TestValidateReplicationController(t *testing.T) {
	for _, tc := range []struct {
		name   string
		change func(*api.ReplicationController)
		want   string
		causes []cause
	}{
		{name: "valid", change: func(*api.ReplicationController) {}},
		{name: "zero replicas", change: func(rc *api.ReplicationController) { rc.Spec.Replicas = ptrTo(int32(0)) }},
		{name: "negative replicas", change: func(rc *api.ReplicationController) { rc.Spec.Replicas = ptrTo(int32(-1)) },
			want: "spec.replicas: Invalid value: -1: must be greater than or equal to 0", causes: []cause{{invalid, "spec.replicas"}}},
		{name: "negative minReadySeconds", change: func(rc *api.ReplicationController) { rc.Spec.MinReadySeconds = -5 },
			want: "spec.minReadySeconds: Invalid value: -5: must be greater than or equal to 0", causes: []cause{{invalid, "spec.minReadySeconds"}}},
		{name: "no selector and no template labels", change: func(rc *api.ReplicationController) {
			rc.Spec.Selector = nil
			rc.Spec.Template.Metadata.Labels = nil
		},
			want: "spec.selector: Required value", causes: []cause{{required, "spec.selector"}}},
		{name: "selector does not match", change: func(rc *api.ReplicationController) { rc.Spec.Selector = map[string]string{"app": "db"} },
			want:   "spec.template.metadata.labels: Invalid value: map[string]string{\"app\":\"web\", \"tier\":\"front\"}: `selector` does not match template `labels`",
			causes: []cause{{invalid, "spec.template.metadata.labels"}}},
		{name: "bad selector key", change: func(rc *api.ReplicationController) {
			rc.Metadata.Labels = map[string]string{"app": "web"}
			rc.Spec.Selector = map[string]string{"bad key": "x"}
			rc.Spec.Template.Metadata.Labels = map[string]string{"bad key": "x"}
		},
			want: `[spec.selector: Invalid value: "bad key": name part ` + msgQualifiedNamePart + `, ` +
				`spec.template.metadata.labels: Invalid value: "bad key": name part ` + msgQualifiedNamePart + `]`,
			causes: []cause{{invalid, "spec.selector"}, {invalid, "spec.template.metadata.labels"}}},
		{name: "no template", change: func(rc *api.ReplicationController) { rc.Spec.Template = nil },
			want: "spec.template: Required value", causes: []cause{{required, "spec.template"}}},
		{name: "template restartPolicy", change: func(rc *api.ReplicationController) {
			rc.Spec.Template.Spec.RestartPolicy = api.RestartPolicyOnFailure
		},
			want:   `spec.template.spec.restartPolicy: Unsupported value: "OnFailure": supported values: "Always"`,
			causes: []cause{{notSupported, "spec.template.spec.restartPolicy"}}},
		{name: "template pod spec", change: func(rc *api.ReplicationController) {
			rc.Spec.Template.Spec.Containers[0].Image = ""
			rc.Spec.Template.Spec.Containers[0].Ports = []api.ContainerPort{{ContainerPort: 70000, Protocol: api.ProtocolTCP}}
		},
			want: "[spec.template.spec.containers[0].image: Required value, " +
				"spec.template.spec.containers[0].ports[0].containerPort: Invalid value: 70000: must be between 1 and 65535, inclusive]",
			causes: []cause{{required, "spec.template.spec.containers[0].image"}, {invalid, "spec.template.spec.containers[0].ports[0].containerPort"}}},
		{name: "template image spaces allowed", change: func(rc *api.ReplicationController) { rc.Spec.Template.Spec.Containers[0].Image = " " }},
		{name: "bad name", change: func(rc *api.ReplicationController) { rc.Metadata.Name = "web_rc" },
			want: `metadata.name: Invalid value: "web_rc": ` + msgDNS1123Subdomain, causes: []cause{{invalid, "metadata.name"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rc := validRC()
			tc.change(rc)
			defaultReplicationController(rc)
			assertErrors(t, validateReplicationController(rc), tc.want, tc.causes)
		})
	}
}

func TestValidateReplicationControllerUpdate(t *testing.T) {
	for _, tc := range []struct {
		name   string
		change func(*api.ReplicationController)
		want   string
		causes []cause
	}{
		{name: "scale", change: func(rc *api.ReplicationController) { rc.Spec.Replicas = ptrTo(int32(10)) }},
		{name: "selector is mutable", change: func(rc *api.ReplicationController) { rc.Spec.Selector = map[string]string{"tier": "front"} }},
		{name: "template is mutable", change: func(rc *api.ReplicationController) { rc.Spec.Template.Spec.Containers[0].Image = "nginx:2" }},
		{name: "still validated", change: func(rc *api.ReplicationController) { rc.Spec.Replicas = ptrTo(int32(-1)) },
			want: "spec.replicas: Invalid value: -1: must be greater than or equal to 0", causes: []cause{{invalid, "spec.replicas"}}},
		{name: "uid", change: func(rc *api.ReplicationController) { rc.Metadata.UID = "other" },
			want: `metadata.uid: Invalid value: "other": field is immutable`, causes: []cause{{invalid, "metadata.uid"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			old := validRC()
			old.Metadata.UID = "u1"
			defaultReplicationController(old)
			rc := old.DeepCopy()
			tc.change(rc)
			defaultReplicationController(rc)
			assertErrors(t, validateReplicationControllerUpdate(rc, old), tc.want, tc.causes)
		})
	}
}
