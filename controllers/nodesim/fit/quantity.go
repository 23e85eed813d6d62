package fit

import (
	"math"
	"math/big"
	"strconv"
	"strings"
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

// scale returns the multiplier a quantity suffix stands for, as base**exp.
func scale(suffix string) (base, exp int64, ok bool) {
	switch suffix {
	case "":
		return 10, 0, true
	case "n":
		return 10, -9, true
	case "u":
		return 10, -6, true
	case "m":
		return 10, -3, true
	case "k":
		return 10, 3, true
	case "M":
		return 10, 6, true
	case "G":
		return 10, 9, true
	case "T":
		return 10, 12, true
	case "P":
		return 10, 15, true
	case "E":
		return 10, 18, true
	case "Ki":
		return 2, 10, true
	case "Mi":
		return 2, 20, true
	case "Gi":
		return 2, 30, true
	case "Ti":
		return 2, 40, true
	case "Pi":
		return 2, 50, true
	case "Ei":
		return 2, 60, true
	}
	if len(suffix) > 1 && (suffix[0] == 'e' || suffix[0] == 'E') {
		if e, err := strconv.ParseInt(suffix[1:], 10, 32); err == nil && e >= -30 && e <= 30 {
			return 10, e, true
		}
	}
	return 0, 0, false
}
