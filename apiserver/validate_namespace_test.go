package apiserver

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/miniplane/miniplane/api"
)

func validNamespace() *api.Namespace {
	return &api.Namespace{Metadata: api.ObjectMeta{Name: "team-a", Labels: map[string]string{"team": "a"}}}
}

func TestDefaultNamespace(t *testing.T) {
	ns := validNamespace()
	defaultNamespace(ns)
	assert.Equal(t, []string{"kubernetes"}, ns.Spec.Finalizers)
	assert.Equal(t, map[string]string{"team": "a", "kubernetes.io/metadata.name": "team-a"}, ns.Metadata.Labels)

	kept := &api.Namespace{Metadata: api.ObjectMeta{Name: "b"}, Spec: api.NamespaceSpec{Finalizers: []string{"example.com/wait"}}}
	defaultNamespace(kept)
	assert.Equal(t, []string{"example.com/wait"}, kept.Spec.Finalizers)
	assert.Equal(t, map[string]string{"kubernetes.io/metadata.name": "b"}, kept.Metadata.Labels)

	unnamed := &api.Namespace{Metadata: api.ObjectMeta{GenerateName: "tmp-"}}
	defaultNamespace(unnamed)
	assert.Nil(t, unnamed.Metadata.Labels, "no name yet, no name label")
}

func TestValidateNamespace(t *testing.T) {
	for _, tc := range []struct {
		name   string
		change func(*api.Namespace)
		want   string
		causes []cause
	}{
		{name: "valid", change: func(*api.Namespace) {}},
		{name: "dots", change: func(ns *api.Namespace) { ns.Metadata.Name = "team.a" },
			want: `metadata.name: Invalid value: "team.a": must not contain dots`, causes: []cause{{invalid, "metadata.name"}}},
		{name: "too long", change: func(ns *api.Namespace) {
			ns.Metadata.Name = "a234567890123456789012345678901234567890123456789012345678901234"
		},
			// The name label defaulted from it is too long as well.
			want: `[metadata.name: Invalid value: "a234567890123456789012345678901234567890123456789012345678901234": must be no more than 63 characters, ` +
				`metadata.labels: Invalid value: "a234567890123456789012345678901234567890123456789012345678901234": must be no more than 63 characters]`,
			causes: []cause{{invalid, "metadata.name"}, {invalid, "metadata.labels"}}},
		{name: "in a namespace", change: func(ns *api.Namespace) { ns.Metadata.Namespace = "default" },
			want: "metadata.namespace: Forbidden: not allowed on this type", causes: []cause{{forbidden, "metadata.namespace"}}},
		{name: "unqualified finalizer", change: func(ns *api.Namespace) { ns.Spec.Finalizers = []string{"kubernetes", "wait"} },
			want:   `spec.finalizers: Invalid value: "wait": name is neither a standard finalizer name nor is it fully qualified`,
			causes: []cause{{invalid, "spec.finalizers"}}},
		{name: "bad finalizer", change: func(ns *api.Namespace) { ns.Spec.Finalizers = []string{"example.com/a/b"} },
			want:   `spec.finalizers: Invalid value: "example.com/a/b": a qualified name ` + msgQualifiedNamePart + ` with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`,
			causes: []cause{{invalid, "spec.finalizers"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ns := validNamespace()
			tc.change(ns)
			defaultNamespace(ns)
			assertErrors(t, validateNamespace(ns), tc.want, tc.causes)
		})
	}
}

func TestValidateNamespaceUpdate(t *testing.T) {
	old := validNamespace()
	defaultNamespace(old)
	ns := old.DeepCopy()
	ns.Metadata.Labels["team"] = "b"
	ns.Spec.Finalizers = nil // kept simple: the server decides who may change them
	assert.Nil(t, validateNamespaceUpdate(ns, old))

	ns.Metadata.Name = "team-b"
	defaultNamespace(ns)
	assertErrors(t, validateNamespaceUpdate(ns, old), `metadata.name: Invalid value: "team-b": field is immutable`, []cause{{invalid, "metadata.name"}})
}
