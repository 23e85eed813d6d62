package apiserver

import (
	"reflect"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/apiserver/celrules"
)

// specByName is the plain way to find an object's spec, which kind.spec
// replaces: the field named Spec, found by name on every call, or nil.
func specByName(obj api.Object) any {
	f := reflect.ValueOf(obj).Elem().FieldByName("Spec")
	if !f.IsValid() {
		return nil
	}
	return f.Addr().Interface()
}

// TestKindSpec checks that every kind's spec accessor finds what a lookup
// by name finds: the object's own Spec field, or nothing.
func TestKindSpec(t *testing.T) {
	for _, k := range newKinds(&celrules.Compiler{}) {
		t.Run(k.gr.String(), func(t *testing.T) {
			obj := k.stored().newObj()
			want := specByName(obj)
			if want == nil {
				assert.Nil(t, k.spec, "a kind without a Spec field has no spec accessor")
				return
			}
			require.NotNil(t, k.spec)
			got := k.spec(obj)
			assert.Equal(t, reflect.ValueOf(want).Pointer(), reflect.ValueOf(got).Pointer(), "the object's own field, not a copy")
			assert.Equal(t, reflect.TypeOf(want), reflect.TypeOf(got))
		})
	}
}
