package pointer

import (
	"slices"
	"testing"
)

func TestTokens(t *testing.T) {
	for _, c := range []struct {
		why    string
		tokens []string
		ptr    string
	}{
		{"the root has no tokens", nil, ""},
		{"plain names", []string{"a", "b"}, "/a/b"},
		{"an empty name is a token", []string{""}, "/"},
		{"~ and / are escaped, ~ first", []string{"a/b", "m~n", "~1"}, "/a~1b/m~0n/~01"},
		{"digits stay digits", []string{"items", "0"}, "/items/0"},
	} {
		if got := Join(c.tokens); got != c.ptr {
			t.Errorf("%s: Join(%q) = %q, want %q", c.why, c.tokens, got, c.ptr)
		}
		back, ok := Split(c.ptr)
		if !ok || !slices.Equal(back, c.tokens) {
			t.Errorf("%s: Split(%q) = %q, %v; want %q", c.why, c.ptr, back, ok, c.tokens)
		}
	}
	if _, ok := Split("a/b"); ok {
		t.Error("Split accepted a pointer without a leading '/'")
	}
}

func TestAppend(t *testing.T) {
	b := AppendToken(nil, "a/b")
	b = AppendIndex(b, 12)
	b = AppendToken(b, "~")
	if got, want := string(b), "/a~1b/12/~0"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if Escape("x") != "x" || Escape("a/~") != "a~1~0" || Unescape("a~1~0") != "a/~" {
		t.Error("Escape/Unescape disagree with RFC 6901")
	}
}

func TestIsIndex(t *testing.T) {
	for tok, want := range map[string]bool{
		"0": true, "7": true, "120": true,
		"": false, "01": false, "-1": false, "1a": false, "+1": false, "1.0": false,
	} {
		if got := IsIndex(tok); got != want {
			t.Errorf("IsIndex(%q) = %v, want %v", tok, got, want)
		}
	}
	if i, ok := Index("42"); !ok || i != 42 {
		t.Errorf("Index(42) = %d, %v", i, ok)
	}
	if _, ok := Index("99999999999999999999999"); ok {
		t.Error("Index accepted an index that overflows int")
	}
}
