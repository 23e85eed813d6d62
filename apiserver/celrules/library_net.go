package celrules

import (
	"fmt"
	"net/netip"
	"reflect"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
)

// ipType and cidrType are the types of ip(string) and cidr(string).
// Kubernetes: apiservercel.IPType and CIDRType.
var (
	ipType   = cel.ObjectType("net.IP")
	cidrType = cel.ObjectType("net.CIDR")
)

// ipVal is a parsed IP address.
type ipVal struct{ a netip.Addr }

func (v ipVal) ConvertToNative(t reflect.Type) (any, error) {
	if reflect.TypeOf(v.a).AssignableTo(t) {
		return v.a, nil
	}
	return nil, fmt.Errorf("type conversion error from 'IP' to '%v'", t)
}

func (v ipVal) ConvertToType(t ref.Type) ref.Val {
	switch t {
	case types.StringType:
		return types.String(v.a.String())
	case types.TypeType:
		return ipType
	}
	return types.NewErr("type conversion error from '%s' to '%s'", ipType, t)
}

func (v ipVal) Equal(other ref.Val) ref.Val {
	o, ok := other.(ipVal)
	return types.Bool(ok && o.a == v.a)
}

func (v ipVal) Type() ref.Type { return ipType }
func (v ipVal) Value() any     { return v.a }

// cidrVal is a parsed CIDR: an address and a prefix length.
type cidrVal struct{ p netip.Prefix }

func (v cidrVal) ConvertToNative(t reflect.Type) (any, error) {
	if reflect.TypeOf(v.p).AssignableTo(t) {
		return v.p, nil
	}
	return nil, fmt.Errorf("type conversion error from 'CIDR' to '%v'", t)
}

func (v cidrVal) ConvertToType(t ref.Type) ref.Val {
	switch t {
	case types.StringType:
		return types.String(v.p.String())
	case types.TypeType:
		return cidrType
	}
	return types.NewErr("type conversion error from '%s' to '%s'", cidrType, t)
}

func (v cidrVal) Equal(other ref.Val) ref.Val {
	o, ok := other.(cidrVal)
	return types.Bool(ok && o.p == v.p)
}

func (v cidrVal) Type() ref.Type { return cidrType }
func (v cidrVal) Value() any     { return v.p }

// parseIP parses an address as the IP library does: no zone, and no
// IPv4-mapped IPv6 address.
func parseIP(s string) (netip.Addr, error) {
	a, err := netip.ParseAddr(s)
	if err != nil {
		return netip.Addr{}, fmt.Errorf("IP Address %q parse error during conversion from string: %v", s, err)
	}
	if a.Zone() != "" {
		return netip.Addr{}, fmt.Errorf("IP address %q with zone value is not allowed", s)
	}
	if a.Is4In6() {
		return netip.Addr{}, fmt.Errorf("IPv4-mapped IPv6 address %q is not allowed", s)
	}
	return a, nil
}

// parseCIDR parses a CIDR as the CIDR library does: no zone, and no
// IPv4-mapped IPv6 address.
func parseCIDR(s string) (netip.Prefix, error) {
	p, err := netip.ParsePrefix(s)
	if err != nil {
		return netip.Prefix{}, fmt.Errorf("network address parse error during conversion from string: %v", err)
	}
	if p.Addr().Is4In6() {
		return netip.Prefix{}, fmt.Errorf("IPv4-mapped IPv6 address %q is not allowed", s)
	}
	return p, nil
}

// ipLibrary is Kubernetes' IP library: ip(string), isIP(string),
// ip.isCanonical(string), string(ip), and an IP's family, isUnspecified,
// isLoopback, isLinkLocalMulticast, isLinkLocalUnicast and
// isGlobalUnicast. Kubernetes: library/ip.go.
func ipLibrary() cel.EnvOption {
	is := func(name string, f func(netip.Addr) bool) cel.EnvOption {
		return cel.Function(name, cel.MemberOverload("ip_"+name, []*cel.Type{ipType}, cel.BoolType,
			cel.UnaryBinding(func(v ref.Val) ref.Val {
				ip, ok := v.(ipVal)
				if !ok {
					return types.MaybeNoSuchOverloadErr(v)
				}
				return types.Bool(f(ip.a))
			})))
	}
	return cel.Lib(library{opts: []cel.EnvOption{
		cel.Function("ip", cel.Overload("string_to_ip", []*cel.Type{cel.StringType}, ipType,
			cel.UnaryBinding(func(v ref.Val) ref.Val {
				a, err := parseIP(string(v.(types.String)))
				if err != nil {
					return types.WrapErr(err)
				}
				return ipVal{a: a}
			}))),
		cel.Function("isIP", cel.Overload("is_ip", []*cel.Type{cel.StringType}, cel.BoolType,
			cel.UnaryBinding(func(v ref.Val) ref.Val {
				_, err := parseIP(string(v.(types.String)))
				return types.Bool(err == nil)
			}))),
		cel.Function("ip.isCanonical", cel.Overload("ip_is_canonical", []*cel.Type{cel.StringType}, cel.BoolType,
			cel.UnaryBinding(func(v ref.Val) ref.Val {
				s := string(v.(types.String))
				a, err := parseIP(s)
				if err != nil {
					return types.WrapErr(err)
				}
				return types.Bool(a.String() == s)
			}))),
		cel.Function("string", cel.Overload("ip_to_string", []*cel.Type{ipType}, cel.StringType,
			cel.UnaryBinding(func(v ref.Val) ref.Val { return v.ConvertToType(types.StringType) }))),
		cel.Function("family", cel.MemberOverload("ip_family", []*cel.Type{ipType}, cel.IntType,
			cel.UnaryBinding(func(v ref.Val) ref.Val {
				ip, ok := v.(ipVal)
				if !ok {
					return types.MaybeNoSuchOverloadErr(v)
				}
				if ip.a.Is4() {
					return types.Int(4)
				}
				return types.Int(6)
			}))),
		is("isUnspecified", netip.Addr.IsUnspecified),
		is("isLoopback", netip.Addr.IsLoopback),
		is("isLinkLocalMulticast", netip.Addr.IsLinkLocalMulticast),
		is("isLinkLocalUnicast", netip.Addr.IsLinkLocalUnicast),
		is("isGlobalUnicast", netip.Addr.IsGlobalUnicast),
	}})
}

// cidrLibrary is Kubernetes' CIDR library: cidr(string), isCIDR(string),
// string(cidr), and a CIDR's containsIP (an IP or a string), containsCIDR
// (a CIDR or a string), ip, masked and prefixLength. Kubernetes:
// library/cidr.go.
func cidrLibrary() cel.EnvOption {
	member := func(name string, arg *cel.Type, result *cel.Type, f func(netip.Prefix, ref.Val) ref.Val) cel.FunctionOpt {
		return cel.MemberOverload("cidr_"+name+"_"+arg.String(), []*cel.Type{cidrType, arg}, result,
			cel.BinaryBinding(func(c, x ref.Val) ref.Val {
				cv, ok := c.(cidrVal)
				if !ok {
					return types.MaybeNoSuchOverloadErr(c)
				}
				return f(cv.p, x)
			}))
	}
	containsIP := func(p netip.Prefix, x ref.Val) ref.Val {
		switch x := x.(type) {
		case ipVal:
			return types.Bool(p.Contains(x.a))
		case types.String:
			a, err := parseIP(string(x))
			if err != nil {
				return types.WrapErr(err)
			}
			return types.Bool(p.Contains(a))
		}
		return types.MaybeNoSuchOverloadErr(x)
	}
	containsCIDR := func(p netip.Prefix, x ref.Val) ref.Val {
		var q netip.Prefix
		switch x := x.(type) {
		case cidrVal:
			q = x.p
		case types.String:
			var err error
			if q, err = parseCIDR(string(x)); err != nil {
				return types.WrapErr(err)
			}
		default:
			return types.MaybeNoSuchOverloadErr(x)
		}
		return types.Bool(p.Addr().Is4() == q.Addr().Is4() && q.Bits() >= p.Bits() && p.Contains(q.Addr()))
	}
	unary := func(name string, result *cel.Type, f func(netip.Prefix) ref.Val) cel.EnvOption {
		return cel.Function(name, cel.MemberOverload("cidr_"+name, []*cel.Type{cidrType}, result,
			cel.UnaryBinding(func(v ref.Val) ref.Val {
				c, ok := v.(cidrVal)
				if !ok {
					return types.MaybeNoSuchOverloadErr(v)
				}
				return f(c.p)
			})))
	}
	return cel.Lib(library{opts: []cel.EnvOption{
		cel.Function("cidr", cel.Overload("string_to_cidr", []*cel.Type{cel.StringType}, cidrType,
			cel.UnaryBinding(func(v ref.Val) ref.Val {
				p, err := parseCIDR(string(v.(types.String)))
				if err != nil {
					return types.WrapErr(err)
				}
				return cidrVal{p: p}
			}))),
		cel.Function("isCIDR", cel.Overload("is_cidr", []*cel.Type{cel.StringType}, cel.BoolType,
			cel.UnaryBinding(func(v ref.Val) ref.Val {
				_, err := parseCIDR(string(v.(types.String)))
				return types.Bool(err == nil)
			}))),
		cel.Function("string", cel.Overload("cidr_to_string", []*cel.Type{cidrType}, cel.StringType,
			cel.UnaryBinding(func(v ref.Val) ref.Val { return v.ConvertToType(types.StringType) }))),
		cel.Function("containsIP",
			member("contains_ip", ipType, cel.BoolType, containsIP),
			member("contains_ip", cel.StringType, cel.BoolType, containsIP)),
		cel.Function("containsCIDR",
			member("contains_cidr", cidrType, cel.BoolType, containsCIDR),
			member("contains_cidr", cel.StringType, cel.BoolType, containsCIDR)),
		unary("ip", ipType, func(p netip.Prefix) ref.Val { return ipVal{a: p.Addr()} }),
		unary("masked", cidrType, func(p netip.Prefix) ref.Val { return cidrVal{p: p.Masked()} }),
		unary("prefixLength", cel.IntType, func(p netip.Prefix) ref.Val { return types.Int(p.Bits()) }),
	}})
}
