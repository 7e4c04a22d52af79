package schema

import (
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/structkit/structkit/internal/jsontext"
)

// ratOf is the reference reading of a number: the decimal its literal (or
// a float's shortest form) denotes, as big.Rat.
func ratOf(t *testing.T, v any) *big.Rat {
	t.Helper()
	s := fmt.Sprint(v)
	if f, ok := v.(float64); ok {
		s = strconv.FormatFloat(f, 'g', -1, 64)
	}
	r, ok := new(big.Rat).SetString(s)
	if !ok {
		t.Fatalf("reference cannot read %v", v)
	}
	return r
}

// randomNumber makes literals and floats around the fast paths' edges.
func randomNumber(r *rand.Rand) any {
	digits := func(n int) string {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte('0' + r.IntN(10))
		}
		return string(b)
	}
	// An integer part: JSON writes no leading zeros.
	intDigits := func(n int) string {
		d := digits(n)
		if n > 1 && d[0] == '0' {
			d = string(rune('1'+r.IntN(9))) + d[1:]
		}
		return d
	}
	switch r.IntN(7) {
	case 0:
		return json.Number(strconv.FormatInt(r.Int64N(2000)-1000, 10))
	case 1:
		return json.Number(intDigits(1+r.IntN(3)) + "." + digits(1+r.IntN(4)))
	case 2:
		return json.Number("-" + intDigits(1+r.IntN(20)) + "." + digits(r.IntN(20)+1))
	case 3:
		return json.Number(intDigits(1+r.IntN(3)) + "e" + strconv.Itoa(r.IntN(40)-20))
	case 4:
		return float64(r.IntN(2000)-1000) / float64([]int{1, 2, 4, 10, 100, 3}[r.IntN(6)])
	case 5:
		return math.Ldexp(r.Float64(), r.IntN(140)-70)
	}
	return json.Number(intDigits(19 + r.IntN(5)))
}

// TestNumbersExact: comparisons, wholeness and multipleOf agree with
// big.Rat arithmetic on the decimals, across the fast paths.
func TestNumbersExact(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for i := 0; i < 20000; i++ {
		a, b := randomNumber(r), randomNumber(r)
		na, ok1 := NumberOf(a)
		nb, ok2 := NumberOf(b)
		if !ok1 || !ok2 {
			t.Fatalf("NumberOf(%v) %v, NumberOf(%v) %v", a, ok1, b, ok2)
		}
		ra, rb := ratOf(t, a), ratOf(t, b)
		if got, want := na.Cmp(nb), ra.Cmp(rb); got != want {
			t.Fatalf("cmp(%v, %v) = %d, want %d", a, b, got, want)
		}
		if got, want := na.IsInt(), ra.IsInt(); got != want {
			t.Fatalf("isInt(%v) = %v, want %v", a, got, want)
		}
		if rb.Sign() > 0 {
			if got, want := na.MultipleOf(nb), new(big.Rat).Quo(ra, rb).IsInt(); got != want {
				t.Fatalf("multipleOf(%v, %v) = %v, want %v", a, b, got, want)
			}
		}
	}
}

func TestNumberEdges(t *testing.T) {
	tenth, fifth := 0.1, 0.2
	sum := tenth + fifth // 0.30000000000000004 at run time (the constant 0.1 + 0.2 is 0.3)
	for _, c := range []struct {
		a, b any
		cmp  int
	}{
		{json.Number("1"), json.Number("1.0"), 0},
		{json.Number("1e2"), int64(100), 0},
		{json.Number("-0.0"), json.Number("0"), 0},
		{json.Number("9007199254740993"), float64(9007199254740992), 1},
		{json.Number("0.30000000000000004"), sum, 0},
		{json.Number("0.3"), sum, -1},
		{float64(0.1), json.Number("0.1"), 0},
		{uint64(math.MaxUint64), json.Number("18446744073709551615"), 0},
		{json.Number("1e400"), float64(math.MaxFloat64), 1},
		{json.Number("123456789012345678901234567890"), json.Number("1.2345678901234567890123456789e29"), 0},
		{float32(0.1), json.Number("0.1"), 0},
	} {
		na, _ := NumberOf(c.a)
		nb, _ := NumberOf(c.b)
		if got := na.Cmp(nb); got != c.cmp {
			t.Errorf("cmp(%v, %v) = %d, want %d", c.a, c.b, got, c.cmp)
		}
	}
	for _, bad := range []any{json.Number("1e1000000000"), json.Number("0x10"), json.Number("1/2"), math.NaN(), math.Inf(1), "1"} {
		if IsNumberValue(bad) {
			t.Errorf("%v taken for a number", bad)
		}
	}
}

// TestNumberString: String writes a JSON number literal of the exact
// value (read back, it compares equal), across the fast paths.
func TestNumberString(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for i := 0; i < 20000; i++ {
		v := randomNumber(r)
		n, _ := NumberOf(v)
		s := n.String()
		back, ok := ParseNumber(s)
		if !ok || !jsontext.IsNumber(s) || back.Cmp(n) != 0 {
			t.Fatalf("String(%v) = %q, which reads back as %v, %v", v, s, back.Rat(), ok)
		}
	}
	for _, c := range []struct {
		v    any
		want string
	}{
		{json.Number("5"), "5"}, {json.Number("5.0"), "5"}, {json.Number("1e2"), "100"}, {json.Number("-1.50"), "-1.5"},
		{json.Number("0.001"), "0.001"}, {json.Number("-0.0"), "0"}, {float64(1.5), "1.5"}, {float64(1e21), "1e+21"},
		{float64(1e-7), "1e-7"}, {uint64(math.MaxUint64), "18446744073709551615"},
		{json.Number("1.2345678901234567890123456789"), "1.2345678901234567890123456789"},
		{json.Number("-9223372036854775808"), "-9223372036854775808"},
	} {
		n, _ := NumberOf(c.v)
		if got := n.String(); got != c.want {
			t.Errorf("String(%v) = %q, want %q", c.v, got, c.want)
		}
	}
}

// TestNumberFloat64: a number is exact when a double holds it: a float
// always, a literal when its value is a double's.
func TestNumberFloat64(t *testing.T) {
	for _, c := range []struct {
		v     any
		f     float64
		exact bool
	}{
		{float64(0.1), 0.1, true}, {json.Number("0.1"), 0.1, false}, {json.Number("0.5"), 0.5, true},
		{json.Number("9007199254740992"), 1 << 53, true}, {json.Number("9007199254740993"), 1 << 53, false},
		{json.Number("1152921504606846976"), 1 << 60, true}, {json.Number("1e400"), math.Inf(1), false},
		{int64(math.MaxInt64), 1 << 63, false}, {json.Number("-7"), -7, true},
	} {
		n, _ := NumberOf(c.v)
		if f, exact := n.Float64(); f != c.f || exact != c.exact {
			t.Errorf("Float64(%v) = %v, %v; want %v, %v", c.v, f, exact, c.f, c.exact)
		}
	}
}
