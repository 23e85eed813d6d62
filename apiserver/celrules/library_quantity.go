package celrules

import (
	"fmt"
	"math/big"
	"reflect"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"

	"github.com/miniplane/miniplane/api/quota"
)

// quantityType is the type of quantity(string). Kubernetes:
// apiservercel.QuantityType.
var quantityType = cel.ObjectType("kubernetes.Quantity")

// quantityVal is a parsed quantity, exactly.
type quantityVal struct{ r *big.Rat }

func (v quantityVal) ConvertToNative(t reflect.Type) (any, error) {
	if reflect.TypeOf(v.r).AssignableTo(t) {
		return v.r, nil
	}
	return nil, fmt.Errorf("type conversion error from 'Quantity' to '%v'", t)
}

func (v quantityVal) ConvertToType(t ref.Type) ref.Val {
	if t == types.TypeType {
		return quantityType
	}
	return types.NewErr("type conversion error from '%s' to '%s'", quantityType, t)
}

// Equal compares values: quantity('1k') == quantity('1000').
func (v quantityVal) Equal(other ref.Val) ref.Val {
	o, ok := other.(quantityVal)
	return types.Bool(ok && o.r.Cmp(v.r) == 0)
}

func (v quantityVal) Type() ref.Type { return quantityType }
func (v quantityVal) Value() any     { return v.r }

// errQuantityFormat is resource.ParseQuantity's answer to text that is not
// a quantity.
const errQuantityFormat = "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"

// quantityLibrary is Kubernetes' quantity library: quantity(string),
// isQuantity(string), and a quantity's sign, isInteger, asInteger,
// asApproximateFloat, add and sub (a quantity or an int), isGreaterThan,
// isLessThan and compareTo. Kubernetes: library/quantity.go.
func quantityLibrary() cel.EnvOption {
	unary := func(name string, result *cel.Type, f func(*big.Rat) ref.Val) cel.EnvOption {
		return cel.Function(name, cel.MemberOverload("quantity_"+name, []*cel.Type{quantityType}, result,
			cel.UnaryBinding(func(v ref.Val) ref.Val {
				q, ok := v.(quantityVal)
				if !ok {
					return types.MaybeNoSuchOverloadErr(v)
				}
				return f(q.r)
			})))
	}
	binary := func(name string, arg, result *cel.Type, f func(a, b *big.Rat) ref.Val) cel.FunctionOpt {
		return cel.MemberOverload("quantity_"+name+"_"+arg.String(), []*cel.Type{quantityType, arg}, result,
			cel.BinaryBinding(func(a, b ref.Val) ref.Val {
				q, ok := a.(quantityVal)
				if !ok {
					return types.MaybeNoSuchOverloadErr(a)
				}
				switch b := b.(type) {
				case quantityVal:
					return f(q.r, b.r)
				case types.Int:
					return f(q.r, new(big.Rat).SetInt64(int64(b)))
				}
				return types.MaybeNoSuchOverloadErr(b)
			}))
	}
	asInt := func(r *big.Rat) (int64, bool) {
		if !r.IsInt() || !r.Num().IsInt64() {
			return 0, false
		}
		return r.Num().Int64(), true
	}
	arith := func(op func(z, a, b *big.Rat) *big.Rat) func(a, b *big.Rat) ref.Val {
		return func(a, b *big.Rat) ref.Val { return quantityVal{r: op(new(big.Rat), a, b)} }
	}
	return cel.Lib(library{opts: []cel.EnvOption{
		cel.Function("quantity", cel.Overload("string_to_quantity", []*cel.Type{cel.StringType}, quantityType,
			cel.UnaryBinding(func(v ref.Val) ref.Val {
				r, ok := quota.Parse(string(v.(types.String)))
				if !ok {
					return types.NewErr("%s", errQuantityFormat)
				}
				return quantityVal{r: r}
			}))),
		cel.Function("isQuantity", cel.Overload("is_quantity_string", []*cel.Type{cel.StringType}, cel.BoolType,
			cel.UnaryBinding(func(v ref.Val) ref.Val {
				_, ok := quota.Parse(string(v.(types.String)))
				return types.Bool(ok)
			}))),
		unary("sign", cel.IntType, func(r *big.Rat) ref.Val { return types.Int(r.Sign()) }),
		unary("isInteger", cel.BoolType, func(r *big.Rat) ref.Val { _, ok := asInt(r); return types.Bool(ok) }),
		unary("asInteger", cel.IntType, func(r *big.Rat) ref.Val {
			n, ok := asInt(r)
			if !ok {
				return types.NewErr("cannot convert value to integer")
			}
			return types.Int(n)
		}),
		unary("asApproximateFloat", cel.DoubleType, func(r *big.Rat) ref.Val {
			f, _ := r.Float64()
			return types.Double(f)
		}),
		cel.Function("add", binary("add", quantityType, quantityType, arith((*big.Rat).Add)),
			binary("add", cel.IntType, quantityType, arith((*big.Rat).Add))),
		cel.Function("sub", binary("sub", quantityType, quantityType, arith((*big.Rat).Sub)),
			binary("sub", cel.IntType, quantityType, arith((*big.Rat).Sub))),
		cel.Function("isGreaterThan", binary("is_greater_than", quantityType, cel.BoolType,
			func(a, b *big.Rat) ref.Val { return types.Bool(a.Cmp(b) > 0) })),
		cel.Function("isLessThan", binary("is_less_than", quantityType, cel.BoolType,
			func(a, b *big.Rat) ref.Val { return types.Bool(a.Cmp(b) < 0) })),
		cel.Function("compareTo", binary("compare_to", quantityType, cel.IntType,
			func(a, b *big.Rat) ref.Val { return types.Int(a.Cmp(b)) })),
	}})
}
