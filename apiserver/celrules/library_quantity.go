package celrules

import (
	"math/big"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"

	"github.com/miniplane/miniplane/api/quota"
)

// quantityKind is the type of quantity(string), whose values are exact
// and equal by value (quantity('1k') == quantity('1000')). Kubernetes:
// apiservercel.QuantityType.
var quantityKind = &libKind[*big.Rat]{t: cel.ObjectType("kubernetes.Quantity"), name: "Quantity",
	equal: func(a, b *big.Rat) bool { return a.Cmp(b) == 0 }}

// errQuantityFormat is resource.ParseQuantity's answer to text that is not
// a quantity.
const errQuantityFormat = "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"

// quantityLibrary is Kubernetes' quantity library: quantity(string),
// isQuantity(string), and a quantity's sign, isInteger, asInteger,
// asApproximateFloat, add and sub (a quantity or an int), isGreaterThan,
// isLessThan and compareTo. Kubernetes: library/quantity.go.
func quantityLibrary() cel.EnvOption {
	unary := func(name string, result *cel.Type, f func(*big.Rat) ref.Val) cel.EnvOption {
		return quantityKind.member(name, "quantity_"+name, result, f)
	}
	binary := func(name string, arg, result *cel.Type, f func(a, b *big.Rat) ref.Val) cel.FunctionOpt {
		return cel.MemberOverload("quantity_"+name+"_"+arg.String(), []*cel.Type{quantityKind.t, arg}, result,
			cel.BinaryBinding(func(a, b ref.Val) ref.Val {
				q, err := unwrap[*big.Rat](a)
				if err != nil {
					return err
				}
				switch b := b.(type) {
				case libVal[*big.Rat]:
					return f(q, b.v)
				case types.Int:
					return f(q, new(big.Rat).SetInt64(int64(b)))
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
		return func(a, b *big.Rat) ref.Val { return quantityKind.of(op(new(big.Rat), a, b)) }
	}
	return cel.Lib(library{opts: []cel.EnvOption{
		cel.Function("quantity", cel.Overload("string_to_quantity", []*cel.Type{cel.StringType}, quantityKind.t,
			cel.UnaryBinding(func(v ref.Val) ref.Val {
				r, ok := quota.Parse(string(v.(types.String)))
				if !ok {
					return types.NewErr("%s", errQuantityFormat)
				}
				return quantityKind.of(r)
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
		cel.Function("add", binary("add", quantityKind.t, quantityKind.t, arith((*big.Rat).Add)),
			binary("add", cel.IntType, quantityKind.t, arith((*big.Rat).Add))),
		cel.Function("sub", binary("sub", quantityKind.t, quantityKind.t, arith((*big.Rat).Sub)),
			binary("sub", cel.IntType, quantityKind.t, arith((*big.Rat).Sub))),
		cel.Function("isGreaterThan", binary("is_greater_than", quantityKind.t, cel.BoolType,
			func(a, b *big.Rat) ref.Val { return types.Bool(a.Cmp(b) > 0) })),
		cel.Function("isLessThan", binary("is_less_than", quantityKind.t, cel.BoolType,
			func(a, b *big.Rat) ref.Val { return types.Bool(a.Cmp(b) < 0) })),
		cel.Function("compareTo", binary("compare_to", quantityKind.t, cel.IntType,
			func(a, b *big.Rat) ref.Val { return types.Int(a.Cmp(b)) })),
	}})
}
