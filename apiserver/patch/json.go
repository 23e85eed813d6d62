package patch

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"math/big"
	"strconv"
)

// The patch algorithms work on JSON decoded into plain Go values: map[string]any for
// objects, []any for arrays, string, bool, nil, and json.Number for numbers, so that a
// number passes through a patch with exactly the digits it came with (an int64 such as a
// resourceVersion-sized integer would lose precision as a float64).

// decode parses one JSON value from data; trailing data other than white space is an
// error.
func decode(data []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, errors.New("empty body")
		}
		return nil, err
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, errors.New("unexpected data after the JSON value")
	}
	return v, nil
}

// decodeObject parses data as a JSON object.
func decodeObject(data []byte) (map[string]any, error) {
	v, err := decode(data)
	if err != nil {
		return nil, err
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return nil, errors.New("expected a JSON object, got " + describe(v))
	}
	return obj, nil
}

// encode renders v as compact JSON. Object keys come out sorted (encoding/json sorts map
// keys), so equal values always encode to equal bytes; HTML characters are not escaped.
func encode(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// describe names the JSON type of v, for error messages.
func describe(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case map[string]any:
		return "an object"
	case []any:
		return "an array"
	case string:
		return "a string"
	case bool:
		return "a boolean"
	case json.Number:
		return "a number"
	default:
		return "an unknown value"
	}
}

// deepCopy returns a copy of v that shares no map or slice with it, and adds the number of
// values copied to *count when count is not nil.
func deepCopy(v any, count *int) any {
	if count != nil {
		*count++
	}
	switch v := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, e := range v {
			out[k] = deepCopy(e, count)
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			out[i] = deepCopy(e, count)
		}
		return out
	default:
		return v
	}
}

// equal reports whether a and b are the same JSON value. Numbers are equal when they are
// numerically equal ("1", "1.0" and "1e0" are one number), as RFC 6902's "test" requires.
func equal(a, b any) bool {
	switch a := a.(type) {
	case nil:
		return b == nil
	case bool:
		bb, ok := b.(bool)
		return ok && a == bb
	case string:
		bs, ok := b.(string)
		return ok && a == bs
	case json.Number:
		bn, ok := b.(json.Number)
		return ok && numbersEqual(a, bn)
	case map[string]any:
		bm, ok := b.(map[string]any)
		if !ok || len(a) != len(bm) {
			return false
		}
		for k, av := range a {
			bv, ok := bm[k]
			if !ok || !equal(av, bv) {
				return false
			}
		}
		return true
	case []any:
		bl, ok := b.([]any)
		if !ok || len(a) != len(bl) {
			return false
		}
		for i := range a {
			if !equal(a[i], bl[i]) {
				return false
			}
		}
		return true
	default:
		return false
	}
}

func numbersEqual(a, b json.Number) bool {
	if a == b {
		return true
	}
	if ai, err := strconv.ParseInt(string(a), 10, 64); err == nil {
		if bi, err := strconv.ParseInt(string(b), 10, 64); err == nil {
			return ai == bi
		}
	}
	// Exponents are bounded so that a hostile "1e999999999" cannot make big.Rat build a
	// huge integer; beyond the bound, compare as float64.
	if len(a) < 64 && len(b) < 64 && smallExponent(a) && smallExponent(b) {
		ar, aok := new(big.Rat).SetString(string(a))
		br, bok := new(big.Rat).SetString(string(b))
		if aok && bok {
			return ar.Cmp(br) == 0
		}
	}
	af, aerr := strconv.ParseFloat(string(a), 64)
	bf, berr := strconv.ParseFloat(string(b), 64)
	return aerr == nil && berr == nil && af == bf
}

// smallExponent reports whether n has no exponent or one of at most three digits.
func smallExponent(n json.Number) bool {
	s := string(n)
	for i := 0; i < len(s); i++ {
		if s[i] == 'e' || s[i] == 'E' {
			digits := 0
			for _, c := range s[i+1:] {
				if c >= '0' && c <= '9' {
					digits++
				}
			}
			return digits <= 3
		}
	}
	return true
}
