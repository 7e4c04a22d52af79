package jsontext

import (
	"strings"
	"testing"
)

func TestInDoubleRange(t *testing.T) {
	for _, lit := range []string{
		"0", "-0", "1", "9007199254740993", "1e308", "1.7976931348623157e308", "1.7976931348623159e308",
		"2e308", "1e309", "1e400", "-1e400", "1e-400", "0e999999", "0.0001e312", "10e307", "100e307",
		"1" + strings.Repeat("0", 308), "1" + strings.Repeat("0", 309), "0." + strings.Repeat("0", 400) + "1e500",
		"123.456e306", "-99999999e301", "1e+308", "1E-99999999",
	} {
		_, err := ParseFloat(lit)
		if got, want := InDoubleRange(lit), err == nil; got != want {
			t.Errorf("InDoubleRange(%.40s) = %v, ParseFloat says %v", lit, got, want)
		}
	}
}

func FuzzInDoubleRange(f *testing.F) {
	for _, s := range []string{"1e308", "2e308", "-0.5e-3", "123456789e300"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, lit string) {
		if !IsNumber(lit) || len(lit) > 400 {
			return
		}
		_, err := ParseFloat(lit)
		if got, want := InDoubleRange(lit), err == nil; got != want {
			t.Fatalf("InDoubleRange(%s) = %v, ParseFloat says %v", lit, got, want)
		}
	})
}
