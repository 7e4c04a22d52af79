package schema

import (
	"encoding/json"
	"math"
	"math/big"
	"strconv"
	"strings"

	"github.com/structkit/structkit/internal/jsontext"
)

// Number is a JSON number as validation compares it: exactly, as the decimal
// it is written as. A json.Number is the decimal of its literal; a float64
// (or float32) stands for its shortest decimal form, the literal
// encoding/json would write for it, so 0.1 is one tenth and 1e300 an
// integer. Integers that fit an int64 and decimals of up to 18
// significant digits are compared with integer arithmetic, two floats as
// floats; big.Rat is the fallback for the rest.
type Number struct {
	kind numKind
	e    int32    // numDec: the exponent
	i    int64    // numInt: the value; numDec: the significand
	f    float64  // numFloat
	r    *big.Rat // numRat
}

type numKind uint8

const (
	numInt   numKind = iota + 1 // i
	numDec                      // i × 10^e, e < 0, i without trailing zeros: not whole
	numFloat                    // f: not whole, or beyond ±2^53
	numRat                      // r
)

// maxExact is 2^53: every integer of magnitude up to it is exact in a
// float64.
const maxExact = 1 << 53

// maxExponent bounds the exponent of a literal read exactly: 1e1000000000
// would take gigabytes as a big.Rat. Such a literal is not taken for a
// number (no JSON decoder of this module produces one).
const maxExponent = 10000

// IsNumberValue reports whether v is a JSON number a decoded value may
// hold: a Go number type, finite, and for json.Number a literal of
// bounded exponent. It does not parse it.
func IsNumberValue(v any) bool {
	switch x := v.(type) {
	case json.Number:
		return jsontext.IsNumber(string(x)) && exponentInRange(string(x))
	case float64:
		return !math.IsNaN(x) && !math.IsInf(x, 0)
	case float32:
		return !math.IsNaN(float64(x)) && !math.IsInf(float64(x), 0)
	case int, int8, int16, int32, int64, uint, uint8, uint16, uint32, uint64:
		return true
	}
	return false
}

// NumberOf reads a number of a decoded value. ok is false for anything else,
// NaN and the infinities included.
func NumberOf(v any) (n Number, ok bool) {
	switch x := v.(type) {
	case json.Number:
		return ParseNumber(string(x))
	case float64:
		return floatNum(x)
	case float32:
		if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
			return Number{}, false
		}
		// A float32 stands for its own shortest decimal.
		return ParseNumber(strconv.FormatFloat(float64(x), 'g', -1, 32))
	case int:
		return Number{kind: numInt, i: int64(x)}, true
	case int8:
		return Number{kind: numInt, i: int64(x)}, true
	case int16:
		return Number{kind: numInt, i: int64(x)}, true
	case int32:
		return Number{kind: numInt, i: int64(x)}, true
	case int64:
		return Number{kind: numInt, i: x}, true
	case uint:
		return uintNum(uint64(x)), true
	case uint8:
		return Number{kind: numInt, i: int64(x)}, true
	case uint16:
		return Number{kind: numInt, i: int64(x)}, true
	case uint32:
		return Number{kind: numInt, i: int64(x)}, true
	case uint64:
		return uintNum(x), true
	}
	return Number{}, false
}

func uintNum(u uint64) Number {
	if u <= math.MaxInt64 {
		return Number{kind: numInt, i: int64(u)}
	}
	return Number{kind: numRat, r: new(big.Rat).SetInt(new(big.Int).SetUint64(u))}
}

func floatNum(f float64) (Number, bool) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return Number{}, false
	}
	if f == math.Trunc(f) && f > -maxExact && f < maxExact {
		return Number{kind: numInt, i: int64(f)}, true
	}
	return Number{kind: numFloat, f: f}, true
}

// ParseNumber reads a JSON number literal exactly.
func ParseNumber(s string) (Number, bool) {
	if !jsontext.IsNumber(s) || !exponentInRange(s) {
		return Number{}, false
	}
	if n, ok := parseSmall(s); ok {
		return n, true
	}
	r, ok := new(big.Rat).SetString(s)
	if !ok {
		return Number{}, false
	}
	if r.IsInt() && r.Num().IsInt64() {
		return Number{kind: numInt, i: r.Num().Int64()}, true
	}
	return Number{kind: numRat, r: r}, true
}

// parseSmall reads a literal of at most 18 significant digits whose value
// is an int64 or a decimal m × 10^e (e ≥ -340) without big arithmetic.
// The literal is well formed.
func parseSmall(s string) (Number, bool) {
	neg := s[0] == '-'
	if neg {
		s = s[1:]
	}
	// The value is d1d2...dn × 10^dp, leading zeros dropped.
	var m int64
	nd, dp, seenPoint, i := 0, 0, false, 0
	for ; i < len(s); i++ {
		c := s[i]
		if c == '.' {
			seenPoint = true
			continue
		}
		if c < '0' || c > '9' {
			break
		}
		if seenPoint {
			dp--
		}
		if nd == 0 && c == '0' {
			continue
		}
		if nd == 18 {
			if c != '0' {
				return Number{}, false
			}
			dp++ // a trailing zero beyond 18 digits: scale instead
			continue
		}
		m = m*10 + int64(c-'0')
		nd++
	}
	if i < len(s) { // the exponent, in range
		e, err := strconv.Atoi(strings.TrimPrefix(s[i+1:], "+"))
		if err != nil {
			return Number{}, false
		}
		dp += e
	}
	if m == 0 {
		return Number{kind: numInt}, true
	}
	for m%10 == 0 {
		m /= 10
		dp++
	}
	if neg {
		m = -m
	}
	if dp < 0 {
		if dp < -340 {
			return Number{}, false
		}
		return Number{kind: numDec, i: m, e: int32(dp)}, true
	}
	for ; dp > 0; dp-- {
		if m > math.MaxInt64/10 || m < math.MinInt64/10 {
			return Number{}, false
		}
		m *= 10
	}
	return Number{kind: numInt, i: m}, true
}

func exponentInRange(s string) bool {
	i := strings.IndexAny(s, "eE")
	if i < 0 {
		return true
	}
	e, err := strconv.Atoi(strings.TrimPrefix(s[i+1:], "+"))
	return err == nil && e >= -maxExponent && e <= maxExponent
}

// dec returns the number as a decimal m × 10^e when it has one of at most
// 18 significant digits (every int64 does, as m × 10^0).
func (n Number) dec() (m int64, e int32, ok bool) {
	switch n.kind {
	case numInt:
		return n.i, 0, true
	case numDec:
		return n.i, n.e, true
	case numFloat:
		d, ok := parseSmall(strconv.FormatFloat(n.f, 'e', -1, 64))
		if !ok {
			return 0, 0, false
		}
		return d.dec()
	}
	return 0, 0, false
}

// Rat returns the exact value as a big.Rat.
func (n Number) Rat() *big.Rat {
	switch n.kind {
	case numInt:
		return new(big.Rat).SetInt64(n.i)
	case numDec:
		return new(big.Rat).SetFrac(big.NewInt(n.i), new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(-n.e)), nil))
	case numFloat:
		r, _ := new(big.Rat).SetString(strconv.FormatFloat(n.f, 'g', -1, 64))
		return r
	}
	return n.r
}

// IsInt reports whether the number is whole.
func (n Number) IsInt() bool {
	switch n.kind {
	case numInt:
		return true
	case numDec:
		return false
	case numFloat:
		return n.f == math.Trunc(n.f)
	}
	return n.r.IsInt()
}

// Cmp compares two numbers exactly: -1, 0 or +1.
func (a Number) Cmp(b Number) int {
	switch {
	case a.kind == numInt && b.kind == numInt:
		return cmpInt(a.i, b.i)
	case a.kind == numFloat && b.kind == numFloat:
		// The shortest decimal of a float orders as the float does.
		return cmpFloat(a.f, b.f)
	case a.kind == numInt && b.kind == numFloat && math.Abs(b.f) < maxExact:
		// b is not whole: no integer equals it, and float64(a.i) keeps
		// its order against b even where it rounds.
		return cmpFloat(float64(a.i), b.f)
	case a.kind == numFloat && b.kind == numInt && math.Abs(a.f) < maxExact:
		return cmpFloat(a.f, float64(b.i))
	}
	if am, ae, ok := a.dec(); ok {
		if bm, be, ok := b.dec(); ok {
			if c, ok := cmpDec(am, ae, bm, be); ok {
				return c
			}
		}
	}
	return a.Rat().Cmp(b.Rat())
}

// cmpDec compares am × 10^ae with bm × 10^be; ok is false when scaling to
// a common exponent would overflow.
func cmpDec(am int64, ae int32, bm int64, be int32) (int, bool) {
	if sa, sb := sign(am), sign(bm); sa != sb {
		return cmpInt(int64(sa), int64(sb)), true
	}
	e := min(ae, be)
	x, ok1 := scale(am, ae-e)
	y, ok2 := scale(bm, be-e)
	if !ok1 || !ok2 {
		return 0, false
	}
	return cmpInt(x, y), true
}

func sign(m int64) int {
	switch {
	case m < 0:
		return -1
	case m > 0:
		return 1
	}
	return 0
}

// scale returns m × 10^k, ok false on overflow.
func scale(m int64, k int32) (int64, bool) {
	for ; k > 0; k-- {
		if m > math.MaxInt64/10 || m < math.MinInt64/10 {
			return 0, false
		}
		m *= 10
	}
	return m, true
}

func cmpInt(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// MultipleOf reports whether n divided by m (positive) is an integer.
func (n Number) MultipleOf(m Number) bool {
	if n.kind == numInt && m.kind == numInt {
		return n.i%m.i == 0
	}
	if nm, ne, ok := n.dec(); ok {
		if mm, me, ok := m.dec(); ok {
			// n/m = nm/mm × 10^(ne-me).
			if ne >= me {
				if x, ok := scale(nm, ne-me); ok {
					return x%mm == 0
				}
			} else if y, ok := scale(mm, me-ne); ok {
				return nm%y == 0
			}
		}
	}
	return new(big.Rat).Quo(n.Rat(), m.Rat()).IsInt()
}

// Sign returns -1, 0 or +1 as the number is negative, zero or positive.
func (n Number) Sign() int { return n.Cmp(Number{kind: numInt}) }

// Int64 returns the number when it is an integer that fits an int64 and
// is held as one (every such integer a literal writes).
func (n Number) Int64() (int64, bool) { return n.i, n.kind == numInt }

// Float64 returns the double nearest the number; exact says the number
// is that double: the float64 (or float32) a decoded value held, or a
// literal whose value a double holds exactly (0.5, 2^60, not 0.1 or
// 2^53+1), so that a reader of the schema into doubles keeps it.
func (n Number) Float64() (f float64, exact bool) {
	switch n.kind {
	case numInt:
		f = float64(n.i)
		return f, f < 1<<63 && int64(f) == n.i
	case numFloat:
		return n.f, true
	}
	f, exact = n.Rat().Float64()
	return f, exact && !math.IsInf(f, 0)
}

// String returns the number as a JSON number literal of its exact value:
// an integer as its digits, a float64 as encoding/json writes it (1.5,
// 1e+21), any other decimal in positional notation (0.001).
func (n Number) String() string {
	switch n.kind {
	case numInt:
		return strconv.FormatInt(n.i, 10)
	case numDec:
		neg := n.i < 0
		digits := strconv.FormatUint(uint64(max(n.i, -n.i)), 10)
		if n.i == math.MinInt64 {
			digits = strconv.FormatUint(1<<63, 10)
		}
		point := len(digits) + int(n.e) // digits before the point
		if point <= 0 {
			digits = strings.Repeat("0", 1-point) + digits
			point = 1
		}
		s := digits[:point] + "." + digits[point:]
		if neg {
			s = "-" + s
		}
		return s
	case numFloat:
		abs := math.Abs(n.f)
		if abs != 0 && (abs < 1e-6 || abs >= 1e21) {
			s := strconv.FormatFloat(n.f, 'e', -1, 64)
			if i := strings.Index(s, "e-0"); i >= 0 { // e-07 → e-7
				s = s[:i+2] + s[i+3:]
			}
			return s
		}
		return strconv.FormatFloat(n.f, 'f', -1, 64)
	}
	if n.r.IsInt() {
		return n.r.Num().String()
	}
	// A decimal's denominator is 2^a × 5^b: max(a, b) places are exact.
	d := new(big.Int).Set(n.r.Denom())
	twos := d.TrailingZeroBits()
	d.Rsh(d, twos)
	fives, five, q, m := uint(0), big.NewInt(5), new(big.Int), new(big.Int)
	for d.Cmp(big.NewInt(1)) > 0 {
		if q.QuoRem(d, five, m); m.Sign() != 0 {
			break
		}
		d, q = q, d
		fives++
	}
	places := int(max(twos, fives))
	return n.r.FloatString(places)
}
