package fit

import (
	"math"
	"math/big"
	"strconv"
	"strings"

	"github.com/miniplane/miniplane/api"
)

// parseQuantity returns a quantity in Kubernetes' syntax ("500m", "1.5",
// "128Mi", "1e3") as an integer count of units, where one unit is 1/milli
// of the quantity's own unit (milli 1000 gives millicores, 1 gives bytes),
// rounded up, as resource.Quantity's MilliValue and Value round. ok is
// false for text that is not a quantity (the API server refuses it before
// the scheduler sees it) and the value saturates at math.MaxInt64.
func parseQuantity(s string, milli int64) (n int64, ok bool) {
	if v, err := strconv.ParseInt(s, 10, 64); err == nil && v >= 0 && v <= math.MaxInt64/milli {
		return v * milli, true // "2", "110": the usual case, without big numbers
	}
	num, suffix := s, ""
	if i := strings.IndexFunc(s, func(r rune) bool { return r != '.' && r != '+' && r != '-' && (r < '0' || r > '9') }); i >= 0 {
		num, suffix = s[:i], s[i:]
	}
	r, okNum := new(big.Rat).SetString(num)
	if num == "" || !okNum {
		return 0, false
	}
	base, exp, okSuffix := scale(suffix)
	if !okSuffix {
		return 0, false
	}
	m := new(big.Int).Exp(big.NewInt(base), big.NewInt(max(exp, -exp)), nil)
	if exp < 0 {
		r.Quo(r, new(big.Rat).SetInt(m))
	} else {
		r.Mul(r, new(big.Rat).SetInt(m))
	}
	r.Mul(r, new(big.Rat).SetInt64(milli))
	if r.Sign() < 0 {
		return 0, true
	}
	q, rem := new(big.Int).QuoRem(r.Num(), r.Denom(), new(big.Int))
	if rem.Sign() != 0 {
		q.Add(q, big.NewInt(1))
	}
	if !q.IsInt64() {
		return math.MaxInt64, true
	}
	return q.Int64(), true
}

// IsQuantity reports whether s is a non-negative quantity in Kubernetes'
// syntax.
func IsQuantity(s string) bool {
	_, ok := parseQuantity(s, 1)
	return ok && (s == "" || s[0] != '-')
}

// scale is api.QuantityScale with a decimal exponent ("e7") bounded to
// ±30, so that the arithmetic below stays small for any text the API
// server let through.
func scale(suffix string) (base, exp int64, ok bool) {
	base, exp, ok = api.QuantityScale(suffix)
	if !ok || (base == 10 && (exp < -30 || exp > 30)) {
		return 0, 0, false
	}
	return base, exp, true
}

// Units returns the quantity s as a count of units of 1/milli of its own
// unit, rounded up (milli 1000: millicores; 1: bytes), as
// resource.Quantity's MilliValue and Value do. ok is false for text that is
// not a quantity.
func Units(s string, milli int64) (n int64, ok bool) { return parseQuantity(s, milli) }
