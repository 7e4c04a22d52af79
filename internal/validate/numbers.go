package validate

import (
	"encoding/json"
	"math"
	"math/big"
	"strconv"
	"strings"
)

// num is a JSON number as validation compares it: exactly, as the decimal
// it is written as. A json.Number is the decimal of its literal; a float64
// (or float32) stands for its shortest decimal form, the literal
// encoding/json would write for it, so 0.1 is one tenth and 1e300 an
// integer. Comparisons take fast paths where both sides are int64 or both
// are floats, and fall back to big.Rat otherwise.
type num struct {
	kind numKind
	i    int64
	f    float64
	r    *big.Rat
}

type numKind uint8

const (
	numInt   numKind = iota + 1 // i holds the value
	numFloat                    // f holds the value: not whole, or beyond ±2^53
	numRat                      // r holds the value
)

// maxExact is 2^53: every integer of magnitude up to it is exact in a
// float64.
const maxExact = 1 << 53

// numOf reads a number of a decoded value. ok is false for anything else,
// NaN and the infinities included.
func numOf(v any) (n num, ok bool) {
	switch x := v.(type) {
	case json.Number:
		return parseNumber(string(x))
	case float64:
		return floatNum(x)
	case float32:
		if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
			return num{}, false
		}
		// A float32 stands for its own shortest decimal.
		return parseNumber(strconv.FormatFloat(float64(x), 'g', -1, 32))
	case int:
		return num{kind: numInt, i: int64(x)}, true
	case int8:
		return num{kind: numInt, i: int64(x)}, true
	case int16:
		return num{kind: numInt, i: int64(x)}, true
	case int32:
		return num{kind: numInt, i: int64(x)}, true
	case int64:
		return num{kind: numInt, i: x}, true
	case uint:
		return uintNum(uint64(x)), true
	case uint8:
		return num{kind: numInt, i: int64(x)}, true
	case uint16:
		return num{kind: numInt, i: int64(x)}, true
	case uint32:
		return num{kind: numInt, i: int64(x)}, true
	case uint64:
		return uintNum(x), true
	}
	return num{}, false
}

func uintNum(u uint64) num {
	if u <= math.MaxInt64 {
		return num{kind: numInt, i: int64(u)}
	}
	return num{kind: numRat, r: new(big.Rat).SetInt(new(big.Int).SetUint64(u))}
}

func floatNum(f float64) (num, bool) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return num{}, false
	}
	if f == math.Trunc(f) && f > -maxExact && f < maxExact {
		return num{kind: numInt, i: int64(f)}, true
	}
	return num{kind: numFloat, f: f}, true
}

// parseNumber reads a JSON number literal exactly. Plain integers that
// fit an int64 take the fast path; other literals that denote an int64
// (5.0, 1e3) are recognised without big arithmetic; the rest become a
// big.Rat.
func parseNumber(s string) (num, bool) {
	if i, err := strconv.ParseInt(s, 10, 64); err == nil {
		return num{kind: numInt, i: i}, true
	}
	if i, ok := wholeLiteral(s); ok {
		return num{kind: numInt, i: i}, true
	}
	if !isNumberLiteral(s) || !exponentInRange(s) {
		return num{}, false
	}
	r, ok := new(big.Rat).SetString(s)
	if !ok {
		return num{}, false
	}
	if r.IsInt() && r.Num().IsInt64() {
		return num{kind: numInt, i: r.Num().Int64()}, true
	}
	return num{kind: numRat, r: r}, true
}

// wholeLiteral recognises a literal with a fraction or an exponent that
// denotes an integer of at most 18 digits (5.0, -1.50e1, 1e3).
func wholeLiteral(s string) (int64, bool) {
	if !isNumberLiteral(s) {
		return 0, false
	}
	neg := false
	if s[0] == '-' {
		neg, s = true, s[1:]
	}
	// The value is 0.d1d2...dn × 10^dp, leading zeros dropped.
	var digits [24]byte
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
		if nd == 0 && c == '0' {
			if seenPoint {
				dp--
			}
			continue
		}
		if nd == len(digits) {
			return 0, false
		}
		digits[nd] = c
		nd++
		if !seenPoint {
			dp++
		}
	}
	if i < len(s) { // the exponent
		e, err := strconv.Atoi(strings.TrimPrefix(s[i+1:], "+"))
		if err != nil || e > 40 || e < -40 {
			return 0, false
		}
		dp += e
	}
	for nd > 0 && digits[nd-1] == '0' {
		nd-- // trailing zeros change nothing
	}
	if nd == 0 {
		return 0, true
	}
	if dp < nd || dp > 18 {
		return 0, false
	}
	var v int64
	for k := 0; k < dp; k++ {
		v *= 10
		if k < nd {
			v += int64(digits[k] - '0')
		}
	}
	if neg {
		v = -v
	}
	return v, true
}

// isNumberLiteral reports whether s is a JSON number literal (big.Rat
// accepts more: "1/2", "0x10").
func isNumberLiteral(s string) bool {
	i := 0
	if i < len(s) && s[i] == '-' {
		i++
	}
	start := i
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	if i == start {
		return false
	}
	if i < len(s) && s[i] == '.' {
		i++
		start = i
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		if i == start {
			return false
		}
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		start = i
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		if i == start {
			return false
		}
	}
	return i == len(s)
}

// maxExponent bounds the exponent of a literal read exactly: 1e1000000000
// would take gigabytes as a big.Rat. Such a literal is not taken for a
// number (no JSON decoder of this module produces one).
const maxExponent = 10000

func exponentInRange(s string) bool {
	i := strings.IndexAny(s, "eE")
	if i < 0 {
		return true
	}
	e, err := strconv.Atoi(strings.TrimPrefix(s[i+1:], "+"))
	return err == nil && e >= -maxExponent && e <= maxExponent
}

// rat returns the exact value as a big.Rat.
func (n num) rat() *big.Rat {
	switch n.kind {
	case numInt:
		return new(big.Rat).SetInt64(n.i)
	case numFloat:
		r, _ := new(big.Rat).SetString(strconv.FormatFloat(n.f, 'g', -1, 64))
		return r
	}
	return n.r
}

// isInt reports whether the number is whole.
func (n num) isInt() bool {
	switch n.kind {
	case numInt:
		return true
	case numFloat:
		return n.f == math.Trunc(n.f)
	}
	return n.r.IsInt()
}

// cmpNum compares two numbers exactly: -1, 0 or +1.
func cmpNum(a, b num) int {
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
	return a.rat().Cmp(b.rat())
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

// multipleOf reports whether n divided by m (positive) is an integer.
func multipleOf(n, m num, mr *big.Rat) bool {
	if n.kind == numInt && m.kind == numInt {
		return n.i%m.i == 0
	}
	if n.kind == numInt && n.i == 0 {
		return true
	}
	q := new(big.Rat).Quo(n.rat(), mr)
	return q.IsInt()
}

// bound is a number of the schema (minimum, multipleOf, ...): its value
// for comparisons and as a big.Rat for the wording of problems.
type bound struct {
	n num
	r *big.Rat
}

func newBound(v any) (*bound, bool) {
	n, ok := numOf(v)
	if !ok {
		return nil, false
	}
	return &bound{n: n, r: n.rat()}, true
}
