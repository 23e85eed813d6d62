package celrules

import (
	"math"

	"github.com/google/cel-go/checker"
	"github.com/google/cel-go/common"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	"github.com/google/cel-go/common/types/traits"
)

// The costs of the library functions cel-go does not know, estimated at
// compile time and counted at run time as Kubernetes counts them; any change
// moves which rules a definition may hold. Kubernetes: library.CostEstimator
// (EstimateCallCost and CallCost) in k8s.io/apiserver/pkg/cel/library/cost.go.

const (
	traversal = common.StringTraversalCostFactor   // per character walked
	regexLen  = common.RegexStringLengthCostFactor // per character of a pattern
)

// EstimateCallCost estimates one call of a library function: nil leaves it
// to cel-go.
func (e *estimator) EstimateCallCost(function, overloadID string, target *checker.AstNode, args []checker.AstNode) *checker.CallEstimate {
	switch function {
	case "isSorted", "sum", "max", "min", "indexOf", "lastIndexOf":
		if target == nil {
			return nil
		}
		elem := e.elementNode(*target)
		if elem == nil { // a string's indexOf
			return &checker.CallEstimate{CostEstimate: e.size(*target).MultiplyByCostFactor(traversal)}
		}
		perElem := checker.CostEstimate{Min: 1, Max: 1}
		if k := elem.Type().Kind(); k == types.StringKind || k == types.BytesKind {
			perElem = perElem.Add(e.size(elem).MultiplyByCostFactor(traversal))
		}
		return &checker.CallEstimate{CostEstimate: e.size(*target).MultiplyByCost(perElem)}
	case "url":
		if len(args) == 1 {
			sz := e.size(args[0])
			return &checker.CallEstimate{CostEstimate: sz.MultiplyByCostFactor(traversal), ResultSize: &sz}
		}
	case "lowerAscii", "upperAscii", "substring", "trim":
		if target != nil {
			sz := e.size(*target)
			return &checker.CallEstimate{CostEstimate: sz.MultiplyByCostFactor(traversal), ResultSize: &sz}
		}
	case "replace":
		if target != nil && len(args) >= 2 {
			return e.replaceCost(*target, args[0], args[1])
		}
	case "split":
		if target != nil {
			sz := e.size(*target)
			most := sz.Max // every character its own item
			if len(args) > 1 {
				if lit := args[1].Expr().AsLiteral(); lit != nil {
					if n, ok := lit.Value().(int64); ok {
						most = uint64(n)
					}
				}
			}
			return &checker.CallEstimate{CostEstimate: sz.MultiplyByCostFactor(2 * traversal), ResultSize: &checker.SizeEstimate{Min: 0, Max: most}}
		}
	case "join":
		if target != nil {
			var sz checker.SizeEstimate
			list := e.size(*target)
			if elem := e.elementNode(*target); elem != nil {
				sz = list.Multiply(e.size(elem))
			}
			if len(args) > 0 {
				seps := checker.SizeEstimate{}
				if list.Min > 0 {
					seps.Min = list.Min - 1
				}
				if list.Max > 0 {
					seps.Max = list.Max - 1
				}
				sz = sz.Add(e.size(args[0]).Multiply(seps))
			}
			return &checker.CallEstimate{CostEstimate: sz.MultiplyByCostFactor(traversal), ResultSize: &sz}
		}
	case "find", "findAll":
		if target != nil && len(args) >= 1 {
			sz := e.size(*target)
			str := sz.Add(checker.SizeEstimate{Min: 1, Max: 1}).MultiplyByCostFactor(traversal)
			re := e.size(args[0]).MultiplyByCostFactor(regexLen)
			return &checker.CallEstimate{CostEstimate: str.Multiply(re), ResultSize: &checker.SizeEstimate{Min: 0, Max: sz.Max}}
		}
	case "getScheme", "getHostname", "getHost", "getPort", "getEscapedPath", "getQuery":
		return &checker.CallEstimate{CostEstimate: checker.CostEstimate{Min: 1, Max: 1}}
	}
	return nil
}

// replaceCost estimates s.replace(old, new): a walk of s twice, and a result
// as long as the most replacements can make it.
func (e *estimator) replaceCost(target, old, repl checker.AstNode) *checker.CallEstimate {
	sz, oldSz, replSz := e.size(target), e.size(old), e.size(repl)
	var count, kept checker.SizeEstimate
	switch {
	case oldSz.Min == 0: // "" is replaced around every character
		count.Max = sz.Max
		if sz.Max < math.MaxUint64 {
			count.Max++
		}
		kept.Max = sz.Max
	case replSz.Max <= oldSz.Min:
		kept.Max = sz.Max
	default:
		count.Max = uint64(math.Ceil(float64(sz.Max) / float64(oldSz.Min)))
	}
	switch {
	case oldSz.Max == 0:
		count.Min = sz.Min
		if sz.Min < math.MaxUint64 {
			count.Min++
		}
		kept.Min = sz.Min
	case oldSz.Max <= replSz.Min:
		kept.Min = sz.Min
	default:
		count.Min = uint64(math.Ceil(float64(sz.Min) / float64(oldSz.Max)))
	}
	result := count.Multiply(replSz).Add(kept)
	return &checker.CallEstimate{CostEstimate: sz.MultiplyByCostFactor(2 * traversal), ResultSize: &result}
}

// size is a node's size: computed from the expression, else from the
// schema, else unbounded.
func (e *estimator) size(n checker.AstNode) checker.SizeEstimate {
	if sz := n.ComputedSize(); sz != nil {
		return *sz
	}
	if sz := e.EstimateSize(n); sz != nil {
		return *sz
	}
	return checker.SizeEstimate{Min: 0, Max: math.MaxUint64}
}

// elementNode is the node of a list's elements, or nil for a non-list.
func (e *estimator) elementNode(list checker.AstNode) checker.AstNode {
	params := list.Type().Parameters()
	if len(params) == 0 {
		return nil
	}
	var path []string
	if p := list.Path(); p != nil {
		path = append(append(path, p...), "@items")
	}
	return &itemsNode{path: path, t: params[0]}
}

// itemsNode stands for the elements of a list whose size is looked up.
type itemsNode struct {
	checker.AstNode
	path []string
	t    *types.Type
}

func (n *itemsNode) Path() []string                      { return n.path }
func (n *itemsNode) Type() *types.Type                   { return n.t }
func (n *itemsNode) ComputedSize() *checker.SizeEstimate { return nil }

// runtimeCost counts the library functions' costs at run time, as
// Kubernetes' CallCost does.
type runtimeCost struct{}

func (runtimeCost) CallCost(function, overloadID string, args []ref.Val, result ref.Val) *uint64 {
	cost := func(c uint64) *uint64 { return &c }
	switch function {
	case "isSorted", "sum", "max", "min", "indexOf", "lastIndexOf":
		if len(args) > 0 {
			return cost(traversalCost(args[0]))
		}
		return cost(0)
	case "url", "lowerAscii", "upperAscii", "substring", "trim":
		if len(args) >= 1 {
			return cost(uint64(math.Ceil(float64(sizeOf(args[0])) * traversal)))
		}
	case "replace", "split":
		if len(args) >= 1 {
			return cost(uint64(math.Ceil(float64(sizeOf(args[0])) * 2 * traversal)))
		}
	case "join":
		if len(args) >= 1 {
			return cost(uint64(math.Ceil(float64(sizeOf(result)) * 2 * traversal)))
		}
	case "find", "findAll":
		if len(args) >= 2 {
			str := uint64(math.Ceil((1 + float64(sizeOf(args[0]))) * traversal))
			re := uint64(math.Ceil(float64(sizeOf(args[1])) * regexLen))
			return cost(str * re)
		}
	case "getScheme", "getHostname", "getHost", "getPort", "getEscapedPath", "getQuery":
		return cost(1)
	}
	return nil
}

// traversalCost is the cost of walking a value once: a string's or bytes'
// length times the traversal factor (rounded down), a list's or map's
// elements' (and keys') costs added, 1 for anything else.
func traversalCost(v ref.Val) uint64 {
	switch v := v.(type) {
	case types.String:
		return uint64(float64(len(v)) * traversal)
	case types.Bytes:
		return uint64(float64(len(v)) * traversal)
	case traits.Lister:
		var c uint64
		for it := v.Iterator(); it.HasNext() == types.True; {
			c += traversalCost(it.Next())
		}
		return c
	case traits.Mapper:
		var c uint64
		for it := v.Iterator(); it.HasNext() == types.True; {
			k := it.Next()
			c += traversalCost(k) + traversalCost(v.Get(k))
		}
		return c
	}
	return 1
}

// sizeOf is a value's size() (1 for what has none).
func sizeOf(v ref.Val) uint64 {
	if s, ok := v.(traits.Sizer); ok {
		if n, ok := s.Size().(types.Int); ok {
			return uint64(n)
		}
	}
	return 1
}
