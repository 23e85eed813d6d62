package apiserver

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/miniplane/miniplane/api"
)

func validPodTemplate() *api.PodTemplate {
	return &api.PodTemplate{
		Metadata: api.ObjectMeta{Name: "web", Namespace: "default"},
		Template: api.PodTemplateSpec{
			Metadata: api.ObjectMeta{Labels: map[string]string{"app": "web"}},
			Spec:     api.PodSpec{Containers: []api.Container{{Name: "nginx", Image: "nginx:1.27"}}},
		},
	}
}

func TestDefaultPodTemplate(t *testing.T) {
	pt := validPodTemplate()
	defaultPodTemplate(pt)
	assert.Equal(t, api.RestartPolicyAlways, pt.Template.Spec.RestartPolicy, "the pod spec is defaulted as a pod's")
}

// The cases of Kubernetes' TestValidatePodTemplate and the template checks
// of ValidatePodTemplateSpec.
func TestValidatePodTemplate(t *testing.T) {
	for _, tc := range []struct {
		name   string
		change func(*api.PodTemplate)
		want   string
		causes []cause
	}{
		{name: "valid", change: func(*api.PodTemplate) {}},
		{name: "no namespace", change: func(pt *api.PodTemplate) { pt.Metadata.Namespace = "" },
			want: "metadata.namespace: Required value", causes: []cause{{required, "metadata.namespace"}}},
		{name: "bad name", change: func(pt *api.PodTemplate) { pt.Metadata.Name = "Web" },
			want: `metadata.name: Invalid value: "Web": ` + msgDNS1123Subdomain, causes: []cause{{invalid, "metadata.name"}}},
		{name: "bad label", change: func(pt *api.PodTemplate) { pt.Template.Metadata.Labels = map[string]string{"app": "-web"} },
			want: `template.labels: Invalid value: "-web": ` + msgLabelValue, causes: []cause{{invalid, "template.labels"}}},
		{name: "no containers", change: func(pt *api.PodTemplate) { pt.Template.Spec.Containers = nil },
			want: "template.spec.containers: Required value", causes: []cause{{required, "template.spec.containers"}}},
		{name: "no image", change: func(pt *api.PodTemplate) { pt.Template.Spec.Containers[0].Image = "" },
			want: "template.spec.containers[0].image: Required value", causes: []cause{{required, "template.spec.containers[0].image"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pt := validPodTemplate()
			tc.change(pt)
			defaultPodTemplate(pt)
			assertErrors(t, validatePodTemplate(pt), tc.want, tc.causes)
		})
	}
}

func TestValidatePodTemplateUpdate(t *testing.T) {
	old := validPodTemplate()
	old.Metadata.UID, old.Metadata.ResourceVersion = "u1", "1"
	defaultPodTemplate(old)
	pt := old.DeepCopy()
	pt.Template.Spec.Containers[0].Image = "nginx:1.28"
	pt.Template.Metadata.Labels["tier"] = "front"
	assert.Empty(t, validatePodTemplateUpdate(pt, old), "the template may change")
	pt.Template.Spec.Containers = nil
	assertErrors(t, validatePodTemplateUpdate(pt, old), "template.spec.containers: Required value", []cause{{required, "template.spec.containers"}})
}
