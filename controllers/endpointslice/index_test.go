package endpointslice

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/miniplane/miniplane/api"
)

// TestIndexesAnswerAsTheSelectorDoes: the pods a service's sync reads and
// the services a pod's change queues, both through the controller's
// indexes, are those the selector picks over the whole namespace, in key
// order: several pairs, a selector of no pairs (every pod), no selector
// (none), and another namespace.
func TestIndexesAnswerAsTheSelectorDoes(t *testing.T) {
	e := newEnv(t)
	pods := map[string]map[string]string{
		"a": {"app": "web", "tier": "front"},
		"b": {"app": "web", "tier": "back"},
		"c": {"app": "db"},
		"d": nil,
	}
	e.create(&api.Namespace{Metadata: api.ObjectMeta{Name: "other"}})
	for _, ns := range []string{"default", "other"} {
		for name, labels := range pods {
			e.create(&api.Pod{Metadata: api.ObjectMeta{Namespace: ns, Name: name, Labels: labels},
				Spec: api.PodSpec{Containers: []api.Container{{Name: "app", Image: "nginx"}}}})
		}
	}
	selectors := map[string]map[string]string{
		"web":   {"app": "web"},
		"front": {"app": "web", "tier": "front"},
		"all":   {},
		"none":  nil,
		"empty": {"app": "cache"},
	}
	for name, sel := range selectors {
		e.create(&api.Service{Metadata: api.ObjectMeta{Namespace: "default", Name: name},
			Spec: api.ServiceSpec{Selector: sel, Ports: []api.ServicePort{{Port: 80}}}})
	}
	e.settle()

	for _, tc := range []struct {
		svc  string
		want []string
	}{
		{"web", []string{"a", "b"}},
		{"front", []string{"a"}},
		{"all", []string{"a", "b", "c", "d"}},
		{"empty", nil},
	} {
		got, err := e.c.selectedPods("default", selectors[tc.svc])
		require.NoError(t, err)
		var names []string
		for _, p := range got {
			assert.Equal(t, "default", p.Metadata.Namespace)
			names = append(names, p.Metadata.Name)
		}
		assert.Equal(t, tc.want, names, "service %s", tc.svc)
	}

	for _, tc := range []struct {
		pod  string
		want []string
	}{
		{"a", []string{"default/all", "default/front", "default/web"}},
		{"b", []string{"default/all", "default/web"}},
		{"c", []string{"default/all"}},
		{"d", []string{"default/all"}},
	} {
		p, err := e.c.pods.Namespace("default").Get(tc.pod)
		require.NoError(t, err)
		assert.Equal(t, tc.want, e.c.podServices(p, nil), "pod %s", tc.pod)
		other, err := e.c.pods.Namespace("other").Get(tc.pod)
		require.NoError(t, err)
		assert.Empty(t, e.c.podServices(other, nil), "pod %s of another namespace", tc.pod)
	}
}
