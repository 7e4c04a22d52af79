// Package jsonnum holds the number rules shared by the codec: how doubles
// are written, which decimal strings are carried integers, and the exact
// integer value of a JSON number literal.
package jsonnum

import (
	"math"
	"strconv"
	"strings"
)

// MaxSafe is 2^53: every integer of magnitude up to it is exact in a double.
const MaxSafe = 1 << 53

const maxSafeDigits = "9007199254740992"

// AppendFloat appends f in the shortest form that reads back as f, as
// encoding/json writes it (ECMAScript style: no exponent between 1e-6 and
// 1e21). f must be finite.
func AppendFloat(b []byte, f float64) []byte {
	abs := math.Abs(f)
	format := byte('f')
	if abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if format == 'e' {
		// e-09 → e-9
		if n := len(b); n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b
}

// AppendWhole appends a whole, finite f as an integer literal holding the
// exact value of the double, at any magnitude (1e21 →
// 1000000000000000000000). Negative zero is written as 0.
func AppendWhole(b []byte, f float64) []byte {
	if f >= -(1<<63) && f < 1<<63 {
		return strconv.AppendInt(b, int64(f), 10)
	}
	return strconv.AppendFloat(b, f, 'f', 0, 64)
}

// IsWhole reports whether f is finite and has no fractional part.
func IsWhole(f float64) bool { return f == math.Trunc(f) && !math.IsInf(f, 0) }

// Unsafe reports whether a whole double lies beyond ±2^53, where a double
// can no longer tell neighbouring integers apart.
func Unsafe(f float64) bool { return f > MaxSafe || f < -MaxSafe }

// IsCanonicalInt reports whether s is an integer in canonical decimal form:
// an optional "-", then "0" or digits without a leading zero ("-0" is not
// canonical).
func IsCanonicalInt(s string) bool {
	d := s
	if len(d) > 0 && d[0] == '-' {
		d = d[1:]
		if d == "0" {
			return false
		}
	}
	if len(d) == 0 || (d[0] == '0' && len(d) > 1) {
		return false
	}
	for i := 0; i < len(d); i++ {
		if d[i] < '0' || d[i] > '9' {
			return false
		}
	}
	return true
}

// Carried reports whether s is a canonical integer of magnitude beyond
// 2^53: the form in which the codec carries integers a double cannot hold.
func Carried(s string) bool {
	if len(s) < len(maxSafeDigits) || !IsCanonicalInt(s) {
		return false
	}
	return BeyondSafe(s)
}

// BeyondSafe reports whether a canonical integer's magnitude exceeds 2^53.
func BeyondSafe(canonical string) bool {
	d := strings.TrimPrefix(canonical, "-")
	if len(d) != len(maxSafeDigits) {
		return len(d) > len(maxSafeDigits)
	}
	return d > maxSafeDigits
}

// maxExponent bounds the exponents IntegerDigits expands: beyond it the
// literal is out of range of a double anyway.
const maxExponent = 400

// IntegerDigits returns the exact value of a syntactically valid JSON
// number literal in canonical decimal form, if that value is an integer
// ("12.50e1" → "125", "-0.0" → "0", "1e3" → "1000"). ok is false for
// values with a fractional part and for exponents beyond ±400.
func IntegerDigits(lit string) (digits string, ok bool) {
	neg := false
	if lit[0] == '-' {
		neg = true
		lit = lit[1:]
	}
	mant, exp := lit, 0
	if i := strings.IndexAny(lit, "eE"); i >= 0 {
		mant = lit[:i]
		e, err := strconv.Atoi(strings.TrimPrefix(lit[i+1:], "+"))
		if err != nil || e > maxExponent || e < -maxExponent {
			return "", false
		}
		exp = e
	}
	intPart, frac, _ := strings.Cut(mant, ".")
	all := intPart + frac
	exp -= len(frac) // value = all × 10^exp
	all = strings.TrimLeft(all, "0")
	if all == "" {
		return "0", true
	}
	if exp < 0 {
		cut := len(all) + exp
		if cut < 0 {
			cut = 0
		}
		if strings.TrimRight(all[cut:], "0") != "" {
			return "", false // a fractional part
		}
		all = all[:cut]
		if all == "" {
			return "0", true
		}
	} else if exp > 0 {
		all += strings.Repeat("0", exp)
	}
	if neg {
		return "-" + all, true
	}
	return all, true
}
