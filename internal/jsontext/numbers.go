package jsontext

import (
	"math"
	"strconv"
	"strings"
)

// DefaultMaxDigits bounds the digits of one number literal by default (see
// the MaxNumberDigits options of structconv): exact big-number work grows faster
// than linearly with them.
const DefaultMaxDigits = 4300

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

// CountDigits returns how many decimal digits a number literal holds, in
// its mantissa and its exponent: the measure the digit limit bounds.
func CountDigits(lit string) int {
	n := 0
	for i := 0; i < len(lit); i++ {
		if lit[i] >= '0' && lit[i] <= '9' {
			n++
		}
	}
	return n
}

// decompose splits a syntactically valid JSON number literal into its
// significant digits (no leading or trailing zeros; "" for zero) and the
// exponent e such that the magnitude is 0.digits × 10^e. The exponent
// saturates far beyond any double's range.
func decompose(lit string) (neg bool, digits string, e int) {
	if lit != "" && lit[0] == '-' {
		neg = true
		lit = lit[1:]
	}
	mant, exp := lit, 0
	if i := strings.IndexAny(lit, "eE"); i >= 0 {
		mant = lit[:i]
		exp = saturatingAtoi(lit[i+1:])
	}
	intPart, frac, _ := strings.Cut(mant, ".")
	all := intPart + frac
	point := len(intPart) // digits before the decimal point
	trimmed := strings.TrimLeft(all, "0")
	point -= len(all) - len(trimmed)
	trimmed = strings.TrimRight(trimmed, "0")
	if trimmed == "" {
		return neg, "", 0
	}
	return neg, trimmed, saturatingAdd(point, exp)
}

const expSaturation = 1 << 30

// saturatingAtoi reads an exponent ([+-]digits), saturating at
// ±expSaturation instead of overflowing.
func saturatingAtoi(s string) int {
	neg := false
	switch {
	case strings.HasPrefix(s, "-"):
		neg, s = true, s[1:]
	case strings.HasPrefix(s, "+"):
		s = s[1:]
	}
	n := 0
	for i := 0; i < len(s); i++ {
		n = n*10 + int(s[i]-'0')
		if n > expSaturation {
			n = expSaturation
			break
		}
	}
	if neg {
		return -n
	}
	return n
}

func saturatingAdd(a, b int) int {
	s := a + b
	return max(-expSaturation, min(expSaturation, s))
}

// HasFraction reports whether the exact value of a syntactically valid
// JSON number literal is not an integer ("1.0000000000000001", "1e-400",
// "0.5"), whatever double it rounds to. "1.0", "12.50e1" and "-0.0" are
// integers.
func HasFraction(lit string) bool {
	_, digits, e := decompose(lit)
	return digits != "" && e < len(digits)
}

// significant is how many significant digits ParseFloat hands to strconv:
// a double's halfway points have at most 767, and strconv keeps up to 800,
// beyond which it can misread literals (1 followed by 999 zeros and
// e-998 reads as 1e-199).
const significant = 780

// ParseFloat returns the double nearest to a syntactically valid JSON
// number literal, correctly rounded at any length: beyond 780 significant
// digits the rest is folded into one sticky digit, which keeps every
// rounding decision. Errors are strconv's (ErrRange beyond a double).
func ParseFloat(lit string) (float64, error) {
	if len(lit) <= significant {
		return strconv.ParseFloat(lit, 64)
	}
	neg, digits, e := decompose(lit)
	if digits == "" {
		if neg {
			return math.Copysign(0, -1), nil
		}
		return 0, nil
	}
	if len(digits) > significant {
		sticky := strings.TrimRight(digits[significant:], "0") != ""
		digits = digits[:significant]
		if sticky {
			digits += "1"
		}
	}
	var b strings.Builder
	if neg {
		b.WriteByte('-')
	}
	b.WriteString("0.")
	b.WriteString(digits)
	b.WriteByte('e')
	b.WriteString(strconv.Itoa(e))
	return strconv.ParseFloat(b.String(), 64)
}

// IsNumber reports whether s is exactly one JSON number literal under
// RFC 8259's grammar: an optional '-', an integer part without leading
// zeros, an optional fraction of at least one digit, an optional
// exponent of at least one digit. "007", "1.", ".5", "+1", "-", "1e" and
// "0x1" are not numbers. It is the grammar the Decoder applies; use it
// for number text from elsewhere (a json.Number handed over by an SDK).
func IsNumber(s string) bool {
	end, _, bad := scanNumber(s, 0)
	return bad < 0 && end == len(s)
}

// scanNumber scans the number literal that starts at s[i] (a '-' or a
// digit, or anything: then it fails). It returns the end of the literal
// and whether it is plain (digits only, no fraction or exponent). bad is
// -1 when the literal is well formed, else the offset of the byte that
// breaks the grammar (end is then meaningless), see numberProblem for why.
func scanNumber(s string, i int) (end int, plain bool, bad int) {
	if i < len(s) && s[i] == '-' {
		i++
	}
	switch {
	case i < len(s) && s[i] == '0':
		i++
	case i < len(s) && s[i] >= '1' && s[i] <= '9':
		i++
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
	default:
		return i, false, i
	}
	plain = true
	if i < len(s) && s[i] == '.' {
		plain = false
		i++
		if i >= len(s) || s[i] < '0' || s[i] > '9' {
			return i, false, i
		}
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		plain = false
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		if i >= len(s) || s[i] < '0' || s[i] > '9' {
			return i, false, i
		}
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
	}
	return i, plain, -1
}

// numberProblem says what is wrong at s[bad] in a malformed literal
// starting at s[start].
func numberProblem(s string, start, bad int) string {
	switch {
	case bad > start && (s[bad-1] == '.'):
		return "malformed number, want a digit after '.'"
	case bad > start && (s[bad-1] == 'e' || s[bad-1] == 'E' || s[bad-1] == '+' || (s[bad-1] == '-' && bad-1 > start)):
		return "malformed number, want a digit in the exponent"
	}
	return "malformed number, want a digit"
}
