package celrules

// Benchmarks of one rule: its evaluation per write, and the compilation of a
// schema with it (the CEL environment built once, outside the timing).
//
//	go test -run='^$' -bench=. -benchmem -count=3 ./apiserver/celrules/

import (
	"testing"

	"github.com/miniplane/miniplane/api"
)

const benchSchema = `{"type":"object","properties":{"spec":{"type":"object","properties":{"min":{"type":"integer"},"max":{"type":"integer"}}}}}`

func benchValidator(b *testing.B, c *Compiler, rule string) *Validator {
	root := schemaOf(b, benchSchema)
	spec := root.Properties["spec"]
	spec.XValidations = []api.ValidationRule{{Rule: rule, Message: "min over max"}}
	root.Properties["spec"] = spec
	v, errs := c.compile(root, "")
	if len(errs) > 0 {
		b.Fatal(errs)
	}
	return v
}

// BenchmarkValidateOneRule evaluates self.min <= self.max on spec, as every
// write of such a custom resource does.
func BenchmarkValidateOneRule(b *testing.B) {
	v := benchValidator(b, &Compiler{}, "self.min <= self.max")
	obj := decode(b, `{"apiVersion":"v","kind":"K","metadata":{"name":"n"},"spec":{"min":1,"max":2}}`)
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		if errs := v.Validate(obj, nil); len(errs) > 0 {
			b.Fatal(errs)
		}
	}
}

// BenchmarkCompileOneRule compiles a schema with one rule, uncached.
func BenchmarkCompileOneRule(b *testing.B) {
	c := &Compiler{}
	if _, err := c.baseEnv(); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		benchValidator(b, c, "self.min <= self.max")
	}
}

// BenchmarkBaseEnv builds the CEL environment, once per server.
func BenchmarkBaseEnv(b *testing.B) {
	for range b.N {
		if _, err := (&Compiler{}).baseEnv(); err != nil {
			b.Fatal(err)
		}
	}
}
