package quota

import (
	"math/big"
	"strings"

	"github.com/miniplane/miniplane/api"
)

// Parse returns the exact value of a quantity in Kubernetes' syntax ("500m",
// "1.5Gi", "2e3"), and false for text that is not one.
func Parse(s string) (*big.Rat, bool) {
	num, suffix := s, ""
	if i := strings.IndexFunc(s, func(r rune) bool { return r != '.' && r != '+' && r != '-' && (r < '0' || r > '9') }); i >= 0 {
		num, suffix = s[:i], s[i:]
	}
	if num == "" {
		return nil, false
	}
	r, ok := new(big.Rat).SetString(num)
	if !ok {
		return nil, false
	}
	base, exp, ok := api.QuantityScale(suffix)
	if !ok || exp < -30 || exp > 60 {
		return nil, false
	}
	m := new(big.Rat).SetInt(new(big.Int).Exp(big.NewInt(base), big.NewInt(max(exp, -exp)), nil))
	if exp < 0 {
		return r.Quo(r, m), true
	}
	return r.Mul(r, m), true
}

// value is Parse with anything unparsable read as zero: the API server
// validated every quantity before it was stored.
func value(s string) *big.Rat {
	if r, ok := Parse(s); ok {
		return r
	}
	return new(big.Rat)
}

// binarySuffixes are the power-of-two suffixes, smallest first.
var binarySuffixes = []string{"Ki", "Mi", "Gi", "Ti", "Pi", "Ei"}

// decimalSuffixes are the SI suffixes by power of 1000 from 10^-9.
var decimalSuffixes = []string{"n", "u", "m", "", "k", "M", "G", "T", "P", "E"}

// Format writes r in the canonical form resource.Quantity prints: binary
// suffixes when like (the quantity r was summed onto) used one and r is a
// whole number of at least 1Ki, else the largest SI suffix that keeps the
// number whole ("1500m", "2k", "0").
func Format(r *big.Rat, like string) string {
	if r.Sign() == 0 {
		return "0"
	}
	binary := false
	for _, s := range binarySuffixes {
		binary = binary || strings.HasSuffix(like, s)
	}
	abs := new(big.Rat).Abs(r)
	if binary && r.IsInt() && abs.Cmp(big.NewRat(1024, 1)) >= 0 {
		n := new(big.Int).Set(r.Num())
		k := big.NewInt(1024)
		i := -1
		for i+1 < len(binarySuffixes) && new(big.Int).Rem(n, k).Sign() == 0 {
			n.Quo(n, k)
			i++
		}
		if i < 0 {
			return n.String()
		}
		return n.String() + binarySuffixes[i]
	}
	// Scale to nanos, rounding up as resource.Quantity does below its precision.
	nanos := new(big.Rat).Mul(r, big.NewRat(1_000_000_000, 1))
	n := new(big.Int).Quo(nanos.Num(), nanos.Denom())
	if new(big.Int).Mul(n, nanos.Denom()).Cmp(nanos.Num()) != 0 && nanos.Sign() > 0 {
		n.Add(n, big.NewInt(1))
	}
	i, thousand := 0, big.NewInt(1000)
	for i+1 < len(decimalSuffixes) && new(big.Int).Rem(n, thousand).Sign() == 0 {
		n.Quo(n, thousand)
		i++
	}
	return n.String() + decimalSuffixes[i]
}

// Add returns a + b, by resource name; neither is changed.
func Add(a, b api.ResourceList) api.ResourceList {
	out := make(api.ResourceList, len(a)+len(b))
	for k, v := range a {
		out[k] = v
	}
	for k, v := range b {
		if old, ok := out[k]; ok {
			out[k] = Format(new(big.Rat).Add(value(old), value(v)), old)
		} else {
			out[k] = v
		}
	}
	return out
}

// Subtract returns a - b, by resource name, for the names in a or b.
func Subtract(a, b api.ResourceList) api.ResourceList {
	out := make(api.ResourceList, len(a)+len(b))
	for k, v := range a {
		out[k] = v
	}
	for k, v := range b {
		old, ok := out[k]
		if !ok {
			old = "0"
		}
		out[k] = Format(new(big.Rat).Sub(value(old), value(v)), v)
	}
	return out
}

// Max returns the larger of a and b for each name in either.
func Max(a, b api.ResourceList) api.ResourceList {
	out := make(api.ResourceList, len(a)+len(b))
	for k, v := range a {
		out[k] = v
	}
	for k, v := range b {
		if old, ok := out[k]; !ok || value(v).Cmp(value(old)) > 0 {
			out[k] = v
		}
	}
	return out
}

// Exceeded returns, in name order, the names of a whose value is above b's;
// a name b lacks is never exceeded. Kubernetes: quota.LessThanOrEqual.
func Exceeded(a, b api.ResourceList) []string {
	var out []string
	for _, k := range sortedNames(a) {
		if limit, ok := b[k]; ok && value(a[k]).Cmp(value(limit)) > 0 {
			out = append(out, k)
		}
	}
	return out
}

// Mask returns the entries of l named in names.
func Mask(l api.ResourceList, names []string) api.ResourceList {
	out := api.ResourceList{}
	for _, k := range names {
		if v, ok := l[k]; ok {
			out[k] = v
		}
	}
	return out
}

// IsZero reports whether every value of l is zero.
func IsZero(l api.ResourceList) bool {
	for _, v := range l {
		if value(v).Sign() != 0 {
			return false
		}
	}
	return true
}

// Equal reports whether a and b hold the same names with equal values.
func Equal(a, b api.ResourceList) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		w, ok := b[k]
		if !ok || value(v).Cmp(value(w)) != 0 {
			return false
		}
	}
	return true
}

// PrettyPrint writes l as "a=1,b=2" in name order, as the quota admission's
// messages do.
func PrettyPrint(l api.ResourceList) string {
	parts := make([]string, 0, len(l))
	for _, k := range sortedNames(l) {
		parts = append(parts, k+"="+Format(value(l[k]), l[k]))
	}
	return strings.Join(parts, ",")
}

// Grown returns what b adds to a: for each name whose value in b is above
// a's (a missing name is zero), the difference. Kubernetes: an update's
// usage, SubtractWithNonNegativeResult then RemoveZeros.
func Grown(b, a api.ResourceList) api.ResourceList {
	out := api.ResourceList{}
	for k, v := range b {
		old, ok := a[k]
		if !ok {
			old = "0"
		}
		if d := new(big.Rat).Sub(value(v), value(old)); d.Sign() > 0 {
			out[k] = Format(d, v)
		}
	}
	return out
}
