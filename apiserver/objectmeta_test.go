package apiserver

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/api/apierrors"
)

// TestValidateObjectMetaIsPlain checks that validateObjectMeta, which skips
// the checks of empty fields, reports exactly what calling every check
// reports (validateObjectMetaPlain, the way it was written before), on
// random metadata with fields empty, valid and invalid, under every rule set.
func TestValidateObjectMetaIsPlain(t *testing.T) {
	rng := rand.New(rand.NewPCG(18, 5))
	pick := func(vals ...string) string { return vals[rng.IntN(len(vals))] }
	// or picks from valid most of the time, so that metadata without any
	// error is common too.
	or := func(valid, invalid []string) string {
		if rng.IntN(8) == 0 {
			return pick(invalid...)
		}
		return pick(valid...)
	}
	strs := func(vals ...string) []string {
		n := rng.IntN(4) - 1 // -1 is nil
		if n < 0 {
			return nil
		}
		out := make([]string, n)
		for i := range out {
			out[i] = or(vals[:4], vals[4:])
		}
		return out
	}
	kv := func() map[string]string {
		n := rng.IntN(4) - 1
		if n < 0 {
			return nil
		}
		out := make(map[string]string, n)
		for range n {
			out[or([]string{"app", "example.com/tier"}, []string{"Bad Key", "", "a/b/c"})] = or([]string{"web", "", "x"}, []string{"bad value!"})
		}
		return out
	}
	rules := []metaRules{
		{namespaced: true, name: nameIsDNSSubdomain, kubeFinalizers: true},
		{namespaced: true, name: nameIsDNSSubdomain},
		{name: nameIsDNSLabel, kubeFinalizers: true},
		{namespaced: true, name: nameIsDNS1035Label, kubeFinalizers: true},
	}
	var withErrors, without int
	for i := range 20000 {
		m := &api.ObjectMeta{
			GenerateName: or([]string{"", "web-"}, []string{"Web-", "-"}),
			Name:         or([]string{"web-1", "a.b"}, []string{"", "Web", "x/y"}),
			Namespace:    or([]string{"default"}, []string{"", "Bad_NS", "a.b"}),
			Generation:   int64(rng.IntN(9) - 1),
			Labels:       kv(),
			Annotations:  kv(),
			Finalizers:   strs("kubernetes", "orphan", "foregroundDeletion", "example.com/keep", "custom", "Bad Name"),
		}
		for range rng.IntN(3) {
			m.OwnerReferences = append(m.OwnerReferences, api.OwnerReference{
				APIVersion: or([]string{"v1", "apps/v1"}, []string{""}), Kind: or([]string{"ReplicationController"}, []string{"", "Event"}),
				Name: or([]string{"web"}, []string{""}), UID: api.UID(or([]string{"u1"}, []string{""})), Controller: []*bool{nil, ptrTo(true), ptrTo(false)}[rng.IntN(3)],
			})
		}
		r := rules[i%len(rules)]
		want := validateObjectMetaPlain(nil, m, r, metadataPath)
		if len(want) > 0 {
			withErrors++
		} else {
			without++
		}
		require.Equal(t, want, validateObjectMeta(nil, m, r, metadataPath), "case %d: %#v", i, m)
	}
	assert.Greater(t, withErrors, 2000)
	assert.Greater(t, without, 2000)
}

// BenchmarkValidateObjectMeta is the metadata check of a pod a replication
// controller creates, and of an event: skipping empty fields, and calling
// every check.
func BenchmarkValidateObjectMeta(b *testing.B) {
	pod := &api.ObjectMeta{
		GenerateName: "web-7-", Name: "web-7-x2k9q", Namespace: "ns-7", Labels: map[string]string{"app": "web-7"},
		OwnerReferences: []api.OwnerReference{{APIVersion: "v1", Kind: "ReplicationController", Name: "web-7", UID: "u1", Controller: ptrTo(true)}},
	}
	event := &api.ObjectMeta{Name: "web-7-x2k9q.18f3a2b4c5d6e7f8", Namespace: "ns-7"}
	rules := metaRules{namespaced: true, name: nameIsDNSSubdomain, kubeFinalizers: true}
	for _, bc := range []struct {
		name     string
		validate func(apierrors.FieldErrors, *api.ObjectMeta, metaRules, fieldPath) apierrors.FieldErrors
	}{
		{name: "skipping", validate: validateObjectMeta},
		{name: "plain", validate: validateObjectMetaPlain},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if errs := bc.validate(bc.validate(nil, pod, rules, metadataPath), event, rules, metadataPath); errs != nil {
					b.Fatal(errs)
				}
			}
		})
	}
}

// validateObjectMetaPlain is validateObjectMeta as it was before it
// skipped empty fields: every check runs on every field.
func validateObjectMetaPlain(errs apierrors.FieldErrors, m *api.ObjectMeta, rules metaRules, p fieldPath) apierrors.FieldErrors {
	if m.GenerateName != "" {
		errs = invalidEach(errs, p.child("generateName"), m.GenerateName, rules.name(m.GenerateName, true))
	}
	if m.Name == "" {
		errs = append(errs, Required(p.child("name").path(), msgNameRequired))
	} else {
		errs = invalidEach(errs, p.child("name"), m.Name, rules.name(m.Name, false))
	}
	if rules.namespaced {
		if m.Namespace == "" {
			errs = append(errs, Required(p.child("namespace").path(), ""))
		} else {
			errs = invalidEach(errs, p.child("namespace"), m.Namespace, nameIsDNSLabel(m.Namespace, false))
		}
	} else if m.Namespace != "" {
		errs = append(errs, Forbidden(p.child("namespace").path(), msgNamespaceOnScoped))
	}
	errs = validateNonNegative(errs, m.Generation, p.child("generation"))
	errs = validateLabels(errs, m.Labels, p.child("labels"))
	errs = validateAnnotations(errs, m.Annotations, p.child("annotations"))
	errs = validateOwnerReferences(errs, m.OwnerReferences, p.child("ownerReferences"))
	errs = validateFinalizers(errs, m.Finalizers, p.child("finalizers"))
	if rules.kubeFinalizers {
		for _, f := range m.Finalizers {
			errs = validateKubeFinalizerName(errs, f, p.child("finalizers"))
		}
	}
	return errs
}
