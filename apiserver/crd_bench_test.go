package apiserver_test

// Benchmarks of custom resources' CEL validation rules: what one rule adds
// to a write, and how long a definition takes from its create to a served
// kind, with and without rules.
//
//	go test -run='^$' -bench='CustomResource|InstallCRD' -benchmem -count=3 ./apiserver/

import (
	"strconv"
	"strings"
	"testing"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/apiserver"
	"github.com/miniplane/miniplane/client"
)

// benchCRD is a definition of Things with a spec of two integers, and with
// one rule on spec when rule is not "".
func benchCRD(b *testing.B, plural, rule string) *api.CustomResourceDefinition {
	rules := ""
	if rule != "" {
		rules = `"x-kubernetes-validations": [{"rule": "` + rule + `", "message": "min over max"}],`
	}
	kind := strings.ToUpper(plural[:1]) + plural[1:len(plural)-1]
	return decodeCRD(b, `{"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
	  "metadata": {"name": "`+plural+`.bench.example.com"},
	  "spec": {"group": "bench.example.com", "scope": "Namespaced", "names": {"plural": "`+plural+`", "kind": "`+kind+`"},
	    "versions": [{"name": "v1", "served": true, "storage": true, "schema": {"openAPIV3Schema": {"type": "object", "properties": {
	      "spec": {"type": "object", `+rules+` "properties": {"min": {"type": "integer"}, "max": {"type": "integer"}, "name": {"type": "string", "maxLength": 63}}}}}}}]}}`)
}

// BenchmarkCreateCustomResource creates b.N custom resources of a kind
// without rules and of one with the rule self.min <= self.max: the
// difference per create is one rule's cost per write.
func BenchmarkCreateCustomResource(b *testing.B) {
	for _, tc := range []struct{ name, rule string }{{"no-rule", ""}, {"one-rule", "self.min <= self.max"}} {
		b.Run(tc.name, func(b *testing.B) {
			s, _ := newServer(b)
			if _, err := s.Create(ctx, benchCRD(b, "things", tc.rule)); err != nil {
				b.Fatal(err)
			}
			in := widget(b, `{"apiVersion":"bench.example.com/v1","kind":"Thing","metadata":{"namespace":"default"},"spec":{"min":1,"max":2,"name":"x"}}`)
			before := s.Store().Stats().Keys
			b.ReportAllocs()
			b.ResetTimer()
			for i := range b.N {
				in.Metadata.Name = "t-" + strconv.Itoa(i)
				if _, err := s.Create(ctx, in); err != nil {
					b.Fatal(err)
				}
			}
			b.StopTimer()
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "creates/s")
			if got := s.Store().Stats().Keys - before; got != b.N {
				b.Fatalf("created %d, the store holds %d more keys", b.N, got)
			}
			bad := widget(b, `{"apiVersion":"bench.example.com/v1","kind":"Thing","metadata":{"name":"bad","namespace":"default"},"spec":{"min":3,"max":2}}`)
			if _, err := s.Create(ctx, bad); (err != nil) != (tc.rule != "") {
				b.Fatalf("the rule was not run: %v", err)
			}
		})
	}
}

// BenchmarkInstallCRD creates b.N definitions on one server, each deleted
// before the next (untimed), and reports the time from each create to its
// kind being served (the create returns after the kind is registered and
// Established). "rules-first" is a fresh server's first definition with
// rules: it builds the CEL environment.
func BenchmarkInstallCRD(b *testing.B) {
	for _, tc := range []struct{ name, rule string }{{"no-rules", ""}, {"one-rule", "self.min <= self.max"}} {
		b.Run(tc.name, func(b *testing.B) {
			s, _ := newServer(b)
			if _, err := s.Create(ctx, benchCRD(b, "warmups", tc.rule)); err != nil {
				b.Fatal(err)
			}
			crds := make([]*api.CustomResourceDefinition, b.N)
			for i := range crds {
				rule := tc.rule
				if rule != "" {
					rule += " + " + strconv.Itoa(i) // a schema of its own: compiled, not recalled
				}
				crds[i] = benchCRD(b, "things"+strconv.Itoa(i)+"s", rule)
			}
			b.ReportAllocs()
			b.ResetTimer()
			for _, c := range crds {
				installed(b, s, c)
				b.StopTimer()
				if _, err := s.Delete(ctx, "customresourcedefinitions", "", c.Metadata.Name, api.DeleteOptions{}); err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
			}
		})
	}
	b.Run("rules-first", func(b *testing.B) {
		servers := make([]*apiserver.Server, b.N)
		for i := range servers {
			servers[i], _ = newServer(b)
		}
		crd := benchCRD(b, "things", "self.min <= self.max")
		b.ResetTimer()
		for _, s := range servers {
			installed(b, s, crd)
		}
	})
}

func installed(b *testing.B, s *apiserver.Server, c *api.CustomResourceDefinition) {
	if _, err := s.Create(ctx, c); err != nil {
		b.Fatal(err)
	}
	if _, ok := s.Resource(c.Spec.Names.Plural + "." + c.Spec.Group); !ok {
		b.Fatalf("%s not served", c.Metadata.Name)
	}
}

// BenchmarkTenThousand creates, gets and lists 10,000 custom resources
// (a kind without rules) and, for comparison, 10,000 ConfigMaps, each
// against a server of its own; ns/op is one pass over the 10,000 (one
// list for "list"), per-object figures are reported as ns/object.
//
//	go test -run='^$' -bench=TenThousand -benchtime=3x -benchmem ./apiserver/
func BenchmarkTenThousand(b *testing.B) {
	const n = 10_000
	kinds := []struct {
		name, resource string
		object         func(b *testing.B, i int) api.Object
	}{
		{"configmaps", "configmaps", func(_ *testing.B, i int) api.Object {
			return &api.ConfigMap{Metadata: api.ObjectMeta{Namespace: "default", Name: "t-" + strconv.Itoa(i)}, Data: map[string]string{"min": "1", "max": "2", "name": "x"}}
		}},
		{"custom-resources", "things", func(b *testing.B, i int) api.Object {
			return widget(b, `{"apiVersion":"bench.example.com/v1","kind":"Thing","metadata":{"namespace":"default","name":"t-`+strconv.Itoa(i)+`"},"spec":{"min":1,"max":2,"name":"x"}}`)
		}},
	}
	for _, k := range kinds {
		setup := func(b *testing.B) *apiserver.Server {
			s, _ := newServer(b)
			if _, err := s.Create(ctx, benchCRD(b, "things", "")); err != nil {
				b.Fatal(err)
			}
			return s
		}
		objects := func(b *testing.B) []api.Object {
			out := make([]api.Object, n)
			for i := range out {
				out[i] = k.object(b, i)
			}
			return out
		}
		b.Run(k.name+"/create", func(b *testing.B) {
			b.ReportAllocs()
			for range b.N {
				b.StopTimer()
				s, in := setup(b), objects(b)
				b.StartTimer()
				for _, o := range in {
					if _, err := s.Create(ctx, o); err != nil {
						b.Fatal(err)
					}
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/object")
		})
		filled := func(b *testing.B) *apiserver.Server {
			s := setup(b)
			for _, o := range objects(b) {
				if _, err := s.Create(ctx, o); err != nil {
					b.Fatal(err)
				}
			}
			return s
		}
		b.Run(k.name+"/get", func(b *testing.B) {
			s := filled(b)
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				for i := range n {
					if _, err := s.Get(ctx, k.resource, "default", "t-"+strconv.Itoa(i), client.GetOptions{}); err != nil {
						b.Fatal(err)
					}
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/object")
		})
		b.Run(k.name+"/list", func(b *testing.B) {
			s := filled(b)
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				l, err := s.List(ctx, k.resource, "default", client.ListOptions{})
				if err != nil || len(l.Items) != n {
					b.Fatalf("listed %d: %v", len(l.Items), err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/object")
		})
	}
}
