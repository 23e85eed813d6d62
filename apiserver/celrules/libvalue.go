package celrules

import (
	"fmt"
	"reflect"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
)

// libKind is one of the libraries' object types (a URL, an IP, a CIDR,
// a quantity) whose values wrap a Go value of type T. Kubernetes: the
// ref.Val types of k8s.io/apiserver/pkg/cel (URL, IP, CIDR, Quantity).
type libKind[T any] struct {
	t    *cel.Type
	name string // in conversion errors: "URL"
	// str is the value's string() conversion; nil when it has none.
	str func(T) string
	// equal says whether two values are equal.
	equal func(a, b T) bool
}

// of returns v as a CEL value of kind k.
func (k *libKind[T]) of(v T) libVal[T] { return libVal[T]{k: k, v: v} }

// libVal is a value of a libKind.
type libVal[T any] struct {
	k *libKind[T]
	v T
}

func (o libVal[T]) ConvertToNative(t reflect.Type) (any, error) {
	if reflect.TypeOf(o.v).AssignableTo(t) {
		return o.v, nil
	}
	return nil, fmt.Errorf("type conversion error from '%s' to '%v'", o.k.name, t)
}

func (o libVal[T]) ConvertToType(t ref.Type) ref.Val {
	switch {
	case t == types.StringType && o.k.str != nil:
		return types.String(o.k.str(o.v))
	case t == types.TypeType:
		return o.k.t
	}
	return types.NewErr("type conversion error from '%s' to '%s'", o.k.t, t)
}

func (o libVal[T]) Equal(other ref.Val) ref.Val {
	x, ok := other.(libVal[T])
	return types.Bool(ok && o.k.equal(o.v, x.v))
}

func (o libVal[T]) Type() ref.Type { return o.k.t }
func (o libVal[T]) Value() any     { return o.v }

// unwrap returns the Go value of v, a libVal[T], or an error value.
func unwrap[T any](v ref.Val) (T, ref.Val) {
	o, ok := v.(libVal[T])
	if !ok {
		var zero T
		return zero, types.MaybeNoSuchOverloadErr(v)
	}
	return o.v, nil
}

// member is a method of kind k (receiver first) with the given name,
// overload id and result, computed from the receiver's Go value.
func (k *libKind[T]) member(name, id string, result *cel.Type, f func(T) ref.Val) cel.EnvOption {
	return cel.Function(name, cel.MemberOverload(id, []*cel.Type{k.t}, result,
		cel.UnaryBinding(func(v ref.Val) ref.Val {
			x, err := unwrap[T](v)
			if err != nil {
				return err
			}
			return f(x)
		})))
}

// toString is the string(x) overload of kind k.
func (k *libKind[T]) toString(id string) cel.EnvOption {
	return cel.Function("string", cel.Overload(id, []*cel.Type{k.t}, cel.StringType,
		cel.UnaryBinding(func(v ref.Val) ref.Val { return v.ConvertToType(types.StringType) })))
}
