package celrules

import (
	"fmt"
	"net/netip"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
)

// ipKind and cidrKind are the types of ip(string) and cidr(string).
// Kubernetes: apiservercel.IPType and CIDRType.
var (
	ipKind = &libKind[netip.Addr]{t: cel.ObjectType("net.IP"), name: "IP",
		str: netip.Addr.String, equal: func(a, b netip.Addr) bool { return a == b }}
	cidrKind = &libKind[netip.Prefix]{t: cel.ObjectType("net.CIDR"), name: "CIDR",
		str: netip.Prefix.String, equal: func(a, b netip.Prefix) bool { return a == b }}
)

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
		return ipKind.member(name, "ip_"+name, cel.BoolType, func(a netip.Addr) ref.Val { return types.Bool(f(a)) })
	}
	return cel.Lib(library{opts: []cel.EnvOption{
		cel.Function("ip", cel.Overload("string_to_ip", []*cel.Type{cel.StringType}, ipKind.t,
			cel.UnaryBinding(func(v ref.Val) ref.Val {
				a, err := parseIP(string(v.(types.String)))
				if err != nil {
					return types.WrapErr(err)
				}
				return ipKind.of(a)
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
		ipKind.toString("ip_to_string"),
		ipKind.member("family", "ip_family", cel.IntType, func(a netip.Addr) ref.Val {
			if a.Is4() {
				return types.Int(4)
			}
			return types.Int(6)
		}),
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
		return cel.MemberOverload("cidr_"+name+"_"+arg.String(), []*cel.Type{cidrKind.t, arg}, result,
			cel.BinaryBinding(func(c, x ref.Val) ref.Val {
				p, err := unwrap[netip.Prefix](c)
				if err != nil {
					return err
				}
				return f(p, x)
			}))
	}
	containsIP := func(p netip.Prefix, x ref.Val) ref.Val {
		switch x := x.(type) {
		case libVal[netip.Addr]:
			return types.Bool(p.Contains(x.v))
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
		case libVal[netip.Prefix]:
			q = x.v
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
		return cidrKind.member(name, "cidr_"+name, result, f)
	}
	return cel.Lib(library{opts: []cel.EnvOption{
		cel.Function("cidr", cel.Overload("string_to_cidr", []*cel.Type{cel.StringType}, cidrKind.t,
			cel.UnaryBinding(func(v ref.Val) ref.Val {
				p, err := parseCIDR(string(v.(types.String)))
				if err != nil {
					return types.WrapErr(err)
				}
				return cidrKind.of(p)
			}))),
		cel.Function("isCIDR", cel.Overload("is_cidr", []*cel.Type{cel.StringType}, cel.BoolType,
			cel.UnaryBinding(func(v ref.Val) ref.Val {
				_, err := parseCIDR(string(v.(types.String)))
				return types.Bool(err == nil)
			}))),
		cidrKind.toString("cidr_to_string"),
		cel.Function("containsIP",
			member("contains_ip", ipKind.t, cel.BoolType, containsIP),
			member("contains_ip", cel.StringType, cel.BoolType, containsIP)),
		cel.Function("containsCIDR",
			member("contains_cidr", cidrKind.t, cel.BoolType, containsCIDR),
			member("contains_cidr", cel.StringType, cel.BoolType, containsCIDR)),
		unary("ip", ipKind.t, func(p netip.Prefix) ref.Val { return ipKind.of(p.Addr()) }),
		unary("masked", cidrKind.t, func(p netip.Prefix) ref.Val { return cidrKind.of(p.Masked()) }),
		unary("prefixLength", cel.IntType, func(p netip.Prefix) ref.Val { return types.Int(p.Bits()) }),
	}})
}
