package jsontext

import (
	"math"
	"strings"
	"testing"
)

func TestAppendFloat(t *testing.T) {
	tests := []struct {
		in   float64
		want string
		why  string
	}{
		{5, "5", "whole doubles have no fraction"},
		{5.5, "5.5", "shortest round trip"},
		{1e21, "1e+21", "encoding/json switches to exponent at 1e21"},
		{1e20, "100000000000000000000", "no exponent below 1e21"},
		{1e-7, "1e-7", "exponent below 1e-6, without a leading zero"},
		{0.000001, "0.000001", "1e-6 still in plain form"},
		{math.Copysign(0, -1), "-0", "negative zero kept where numbers are plain"},
		{0.1, "0.1", "shortest form"},
	}
	for _, tt := range tests {
		if got := string(AppendFloat(nil, tt.in)); got != tt.want {
			t.Errorf("AppendFloat(%v) = %s, want %s (%s)", tt.in, got, tt.want, tt.why)
		}
	}
}

func TestAppendWhole(t *testing.T) {
	tests := []struct {
		in   float64
		want string
		why  string
	}{
		{5, "5", "small"},
		{-5, "-5", "negative"},
		{math.Copysign(0, -1), "0", "negative zero is the integer 0"},
		{1e21, "1000000000000000000000", "no exponent at any magnitude"},
		{1 << 63, "9223372036854775808", "just past int64"},
		{-(1 << 63), "-9223372036854775808", "int64 minimum"},
		{1e23, "99999999999999991611392", "the exact value the double holds"},
		{9007199254740993, "9007199254740992", "the double already rounded"},
	}
	for _, tt := range tests {
		if got := string(AppendWhole(nil, tt.in)); got != tt.want {
			t.Errorf("AppendWhole(%v) = %s, want %s (%s)", tt.in, got, tt.want, tt.why)
		}
	}
}

func TestCarried(t *testing.T) {
	tests := []struct {
		in   string
		want bool
		why  string
	}{
		{"9007199254740993", true, "2^53+1"},
		{"9007199254740992", false, "2^53 itself is exact"},
		{"-9007199254740993", true, "negative"},
		{"18446744073709551615", true, "uint64 max"},
		{"123456789012345678901234567890", true, "arbitrary length"},
		{"09007199254740993", false, "leading zero is not canonical"},
		{"+9007199254740993", false, "plus sign is not canonical"},
		{"9007199254740993.0", false, "fraction is not canonical"},
		{"20", false, "small numbers are never carried"},
		{"", false, "empty"},
		{"-", false, "sign only"},
		{"90071992547409930x", false, "trailing garbage"},
	}
	for _, tt := range tests {
		if got := Carried(tt.in); got != tt.want {
			t.Errorf("Carried(%q) = %v, want %v (%s)", tt.in, got, tt.want, tt.why)
		}
	}
}

func TestIntegerDigits(t *testing.T) {
	tests := []struct {
		in     string
		want   string
		wantOK bool
		why    string
	}{
		{"0", "0", true, "zero"},
		{"-0", "0", true, "negative zero is 0"},
		{"-0.0e5", "0", true, "zero with exponent"},
		{"125", "125", true, "plain"},
		{"12.50e1", "125", true, "fraction and exponent cancel"},
		{"1e3", "1000", true, "exponent expands"},
		{"1E+3", "1000", true, "upper-case exponent with sign"},
		{"9007199254740993.000", "9007199254740993", true, "zero fraction"},
		{"1.5", "", false, "fraction"},
		{"15e-1", "", false, "fraction through exponent"},
		{"150e-1", "15", true, "negative exponent, still whole"},
		{"1e401", "", false, "exponent beyond range"},
		{"0.001e2", "", false, "0.1"},
		{"0.001e3", "1", true, "1"},
		{"-123456789012345678901234567890", "-123456789012345678901234567890", true, "long negative"},
	}
	for _, tt := range tests {
		got, ok := IntegerDigits(tt.in)
		if got != tt.want || ok != tt.wantOK {
			t.Errorf("IntegerDigits(%q) = %q, %v; want %q, %v (%s)", tt.in, got, ok, tt.want, tt.wantOK, tt.why)
		}
	}
}

func TestParseFloatLong(t *testing.T) {
	zeros := func(n int) string { return strings.Repeat("0", n) }
	for _, c := range []struct {
		lit  string
		why  string
		want float64
	}{
		{"1" + zeros(999) + "e-998", "1000 digits, strconv reads 1e-199", 10},
		{"1" + zeros(800) + "e-799", "801 digits", 10},
		{"0." + zeros(900) + "1e901", "leading zeros of a fraction", 1},
		{strings.Repeat("1", 900) + "e-899", "900 significant digits", 1.1111111111111112},
		{"-" + zeros(900) + "0.0", "negative zero, long", math.Copysign(0, -1)},
		{"1" + zeros(4000), "beyond a double", math.Inf(1)},
		{"0." + zeros(4000) + "1", "below the smallest subnormal", 0},
		// 2^53+1 is halfway between two doubles: ties to even, unless a far
		// digit says above.
		{"9007199254740993" + "." + zeros(900), "an exact tie rounds to even", 9007199254740992},
		{"9007199254740993" + "." + zeros(900) + "1", "a digit 900 places on breaks the tie", 9007199254740994},
	} {
		got, err := ParseFloat(c.lit)
		if math.IsInf(c.want, 0) {
			if err == nil {
				t.Errorf("%s: got %v, want a range error", c.why, got)
			}
			continue
		}
		if err != nil || got != c.want || math.Signbit(got) != math.Signbit(c.want) {
			t.Errorf("%s: got %v, %v; want %v", c.why, got, err, c.want)
		}
	}
}

func TestHasFraction(t *testing.T) {
	for lit, want := range map[string]bool{
		"1": false, "1.0": false, "12.50e1": false, "-0.0": false, "1e400": false, "0e-99999999999": false,
		"1.0000000000000001": true, "0.5": true, "1e-400": true, "125e-1": true, "1.5e1": false, "1.25e1": true,
		"1" + strings.Repeat("0", 999) + "e-998": false, "1" + strings.Repeat("0", 999) + "e-1000": true,
	} {
		if got := HasFraction(lit); got != want {
			t.Errorf("HasFraction(%.40s) = %v, want %v", lit, got, want)
		}
	}
	if CountDigits("-12.5e+10") != 5 {
		t.Error("CountDigits counts mantissa and exponent digits")
	}
}
