package celrules

import (
	"net/url"
	"regexp"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	"github.com/google/cel-go/common/types/traits"
	"github.com/google/cel-go/ext"
)

// envOptions are the CEL environment of validation rules, as Kubernetes v1.32
// builds its base environment (environment.MustBaseEnvSet) less the
// authorizer and format libraries: cel-go's standard functions and macros,
// optional types, the string and set extensions, two-variable
// comprehensions, and Kubernetes' list, regex, URL, IP, CIDR and quantity
// libraries.
func envOptions() []cel.EnvOption {
	return []cel.EnvOption{
		cel.HomogeneousAggregateLiterals(),
		cel.EagerlyValidateDeclarations(true),
		cel.DefaultUTCTimeZone(true),
		cel.CrossTypeNumericComparisons(true),
		cel.OptionalTypes(),
		cel.ASTValidators(
			cel.ValidateDurationLiterals(),
			cel.ValidateTimestampLiterals(),
			cel.ValidateRegexLiterals(),
			cel.ValidateHomogeneousAggregateLiterals(),
		),
		ext.Strings(ext.StringsVersion(2)),
		ext.Sets(),
		ext.TwoVarComprehensions(),
		listsLibrary(),
		regexLibrary(),
		urlLibrary(),
		ipLibrary(),
		cidrLibrary(),
		quantityLibrary(),
	}
}

// comparableTypes are the element types Kubernetes' list functions accept.
var comparableTypes = []*cel.Type{cel.IntType, cel.UintType, cel.DoubleType, cel.BoolType,
	cel.DurationType, cel.TimestampType, cel.StringType, cel.BytesType}

// summableTypes are the element types sum() accepts, with each one's zero.
var summableTypes = []struct {
	t    *cel.Type
	zero ref.Val
}{
	{cel.IntType, types.IntZero}, {cel.UintType, types.Uint(0)}, {cel.DoubleType, types.Double(0)},
	{cel.DurationType, types.Duration{}},
}

// listsLibrary is Kubernetes' lists library: isSorted, sum, min, max, indexOf
// and lastIndexOf on lists. Kubernetes: k8s.io/apiserver/pkg/cel/library/lists.go.
func listsLibrary() cel.EnvOption {
	var isSorted, sum, minO, maxO, indexOf, lastIndexOf []cel.FunctionOpt
	for _, t := range comparableTypes {
		name := t.String()
		lt := cel.ListType(t)
		isSorted = append(isSorted, cel.MemberOverload("list_"+name+"_is_sorted_bool", []*cel.Type{lt}, cel.BoolType, cel.UnaryBinding(listIsSorted)))
		minO = append(minO, cel.MemberOverload("list_"+name+"_min_"+name, []*cel.Type{lt}, t, cel.UnaryBinding(listExtreme(types.IntNegOne))))
		maxO = append(maxO, cel.MemberOverload("list_"+name+"_max_"+name, []*cel.Type{lt}, t, cel.UnaryBinding(listExtreme(types.IntOne))))
	}
	for _, s := range summableTypes {
		zero := s.zero
		sum = append(sum, cel.MemberOverload("list_"+s.t.String()+"_sum_"+s.t.String(), []*cel.Type{cel.ListType(s.t)}, s.t,
			cel.UnaryBinding(func(v ref.Val) ref.Val { return listSum(v, zero) })))
	}
	t := cel.TypeParamType("T")
	indexOf = append(indexOf, cel.MemberOverload("list_a_index_of_int", []*cel.Type{cel.ListType(t), t}, cel.IntType, cel.BinaryBinding(listIndexOf(false))))
	lastIndexOf = append(lastIndexOf, cel.MemberOverload("list_a_last_index_of_int", []*cel.Type{cel.ListType(t), t}, cel.IntType, cel.BinaryBinding(listIndexOf(true))))
	return cel.Lib(library{opts: []cel.EnvOption{
		cel.Function("isSorted", isSorted...),
		cel.Function("sum", sum...),
		cel.Function("min", minO...),
		cel.Function("max", maxO...),
		cel.Function("indexOf", indexOf...),
		cel.Function("lastIndexOf", lastIndexOf...),
	}})
}

// library is a cel.Library of compile options alone.
type library struct{ opts []cel.EnvOption }

func (l library) CompileOptions() []cel.EnvOption     { return l.opts }
func (l library) ProgramOptions() []cel.ProgramOption { return nil }

func listIsSorted(v ref.Val) ref.Val {
	l, ok := v.(traits.Lister)
	if !ok {
		return types.MaybeNoSuchOverloadErr(v)
	}
	var prev ref.Val
	for it := l.Iterator(); it.HasNext() == types.True; {
		next := it.Next()
		if prev != nil {
			cmp := compare(prev, next)
			if types.IsError(cmp) {
				return cmp
			}
			if cmp == types.IntOne {
				return types.False
			}
		}
		prev = next
	}
	return types.True
}

// compare is a.Compare(b), or an error when a cannot be ordered.
func compare(a, b ref.Val) ref.Val {
	c, ok := a.(traits.Comparer)
	if !ok {
		return types.MaybeNoSuchOverloadErr(a)
	}
	return c.Compare(b)
}

func listSum(v ref.Val, zero ref.Val) ref.Val {
	l, ok := v.(traits.Lister)
	if !ok {
		return types.MaybeNoSuchOverloadErr(v)
	}
	sum := zero
	for it := l.Iterator(); it.HasNext() == types.True; {
		a, ok := sum.(traits.Adder)
		if !ok {
			return types.MaybeNoSuchOverloadErr(sum)
		}
		sum = a.Add(it.Next())
		if types.IsError(sum) {
			return sum
		}
	}
	return sum
}

// listExtreme returns min (want -1) or max (want 1).
func listExtreme(want types.Int) func(ref.Val) ref.Val {
	name := "min"
	if want == types.IntOne {
		name = "max"
	}
	return func(v ref.Val) ref.Val {
		l, ok := v.(traits.Lister)
		if !ok {
			return types.MaybeNoSuchOverloadErr(v)
		}
		if l.Size() == types.IntZero {
			return types.NewErr("%s called on empty list", name)
		}
		var best ref.Val
		for it := l.Iterator(); it.HasNext() == types.True; {
			next := it.Next()
			if best == nil {
				best = next
				continue
			}
			cmp := compare(next, best)
			if types.IsError(cmp) {
				return cmp
			}
			if cmp == want {
				best = next
			}
		}
		return best
	}
}

func listIndexOf(last bool) func(ref.Val, ref.Val) ref.Val {
	return func(lv, e ref.Val) ref.Val {
		l, ok := lv.(traits.Lister)
		if !ok {
			return types.MaybeNoSuchOverloadErr(lv)
		}
		n := int64(l.Size().(types.Int))
		for k := range n {
			i := k
			if last {
				i = n - 1 - k
			}
			if l.Get(types.Int(i)).Equal(e) == types.True {
				return types.Int(i)
			}
		}
		return types.IntNegOne
	}
}

// regexLibrary is Kubernetes' regex library: string.find(regex) and
// string.findAll(regex[, limit]). Kubernetes: library/regex.go.
func regexLibrary() cel.EnvOption {
	return cel.Lib(library{opts: []cel.EnvOption{
		cel.Function("find", cel.MemberOverload("string_find_string_string", []*cel.Type{cel.StringType, cel.StringType}, cel.StringType,
			cel.BinaryBinding(func(s, re ref.Val) ref.Val {
				r, err := compileRegex(re)
				if err != nil {
					return err
				}
				return types.String(r.FindString(string(s.(types.String))))
			}))),
		cel.Function("findAll",
			cel.MemberOverload("string_find_all_string_list_string", []*cel.Type{cel.StringType, cel.StringType}, cel.ListType(cel.StringType),
				cel.BinaryBinding(func(s, re ref.Val) ref.Val { return findAll(s, re, types.IntNegOne) })),
			cel.MemberOverload("string_find_all_string_int_list_string", []*cel.Type{cel.StringType, cel.StringType, cel.IntType}, cel.ListType(cel.StringType),
				cel.FunctionBinding(func(args ...ref.Val) ref.Val { return findAll(args[0], args[1], args[2]) }))),
	}})
}

func compileRegex(re ref.Val) (*regexp.Regexp, ref.Val) {
	s, ok := re.(types.String)
	if !ok {
		return nil, types.MaybeNoSuchOverloadErr(re)
	}
	r, err := regexp.Compile(string(s))
	if err != nil {
		return nil, types.WrapErr(err)
	}
	return r, nil
}

func findAll(s, re, limit ref.Val) ref.Val {
	r, err := compileRegex(re)
	if err != nil {
		return err
	}
	str, ok := s.(types.String)
	n, isInt := limit.(types.Int)
	if !ok || !isInt {
		return types.MaybeNoSuchOverloadErr(limit)
	}
	return types.DefaultTypeAdapter.NativeToValue(r.FindAllString(string(str), int(n)))
}

// urlKind is the type of url(string). Kubernetes: apiservercel.URLType.
var urlKind = &libKind[*url.URL]{
	t: cel.ObjectType("kubernetes.URL"), name: "URL",
	str:   (*url.URL).String,
	equal: func(a, b *url.URL) bool { return a.String() == b.String() },
}

// urlLibrary is Kubernetes' URL library: url(string), isURL(string) and the
// URL's getScheme, getHost, getHostname, getPort, getEscapedPath and getQuery.
// Kubernetes: library/urls.go.
func urlLibrary() cel.EnvOption {
	getter := func(name string, f func(*url.URL) ref.Val, result *cel.Type) cel.EnvOption {
		return urlKind.member(name, "url_"+name, result, f)
	}
	str := func(f func(*url.URL) string) func(*url.URL) ref.Val {
		return func(u *url.URL) ref.Val { return types.String(f(u)) }
	}
	return cel.Lib(library{opts: []cel.EnvOption{
		cel.Function("url", cel.Overload("string_to_url", []*cel.Type{cel.StringType}, urlKind.t,
			cel.UnaryBinding(func(v ref.Val) ref.Val {
				s := string(v.(types.String))
				if _, err := url.ParseRequestURI(s); err != nil {
					return types.NewErr("URL parse error during conversion from string: %v", err)
				}
				u, err := url.Parse(s)
				if err != nil {
					return types.NewErr("URL parse error during conversion from string: %v", err)
				}
				return urlKind.of(u)
			}))),
		cel.Function("isURL", cel.Overload("is_url_string", []*cel.Type{cel.StringType}, cel.BoolType,
			cel.UnaryBinding(func(v ref.Val) ref.Val {
				_, err := url.ParseRequestURI(string(v.(types.String)))
				return types.Bool(err == nil)
			}))),
		getter("getScheme", str(func(u *url.URL) string { return u.Scheme }), cel.StringType),
		getter("getHost", str(func(u *url.URL) string { return u.Host }), cel.StringType),
		getter("getHostname", str((*url.URL).Hostname), cel.StringType),
		getter("getPort", str((*url.URL).Port), cel.StringType),
		getter("getEscapedPath", str((*url.URL).EscapedPath), cel.StringType),
		getter("getQuery", func(u *url.URL) ref.Val {
			q := map[string][]string(u.Query())
			return types.DefaultTypeAdapter.NativeToValue(q)
		}, cel.MapType(cel.StringType, cel.ListType(cel.StringType))),
	}})
}
