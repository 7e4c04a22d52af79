package msgtext

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestEscape(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"plain text, tab\tkept", "plain text, tab\tkept"},
		{"a\x00b", `a\u0000b`},
		{"line\n- /forged: problem", `line\n- /forged: problem`},
		{"cr\r", `cr\r`},
		{"del\x7f", `del\u007f`},
		{"c1\u0085", `c1\u0085`},
		{"bidi\u202egnp.exe", `bidi\u202egnp.exe`},
		{"\u2066\u2067\u2068\u2069\u200e\u200f\u202a\u202b\u202c\u202d", `\u2066\u2067\u2068\u2069\u200e\u200f\u202a\u202b\u202c\u202d`},
		{"sep\u2028\u2029", `sep\u2028\u2029`},
		{"bad\xffutf8", `bad\xffutf8`},
		{"日本語 ok", "日本語 ok"},
	} {
		if got := Escape(tc.in); got != tc.want {
			t.Errorf("Escape(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestBounded(t *testing.T) {
	if got := Bounded("short\n", 4096); got != `short\n` {
		t.Errorf("short: %q", got)
	}
	big := strings.Repeat("é", 2_450_000) // 4.9 MB
	got := Bounded(big, 4096)
	if len(got) > 4096 || !utf8.ValidString(got) || !strings.HasSuffix(got, " bytes of 4.9 MB)") || !strings.Contains(got, " … (cut at ") {
		t.Errorf("big: %d bytes, ends %q", len(got), got[max(len(got)-60, 0):])
	}
	// Escapes count towards the bound, and are never cut in half.
	nuls := Bounded(strings.Repeat("\x00", 10000), 100)
	if len(nuls) > 100 || strings.Contains(nuls, `\u00 `) || !strings.HasPrefix(nuls, `\u0000\u0000`) {
		t.Errorf("nuls: %q", nuls)
	}
	for _, n := range []int{0, 1, 64, 65, 100, 1000} {
		for _, s := range []string{strings.Repeat("x", 2000), strings.Repeat("\u202e", 700), strings.Repeat("ab\n", 700)} {
			if got := Bounded(s, n); len(got) > max(n, 64) || !utf8.ValidString(got) || strings.ContainsAny(got, "\n\u202e") {
				t.Errorf("Bounded(%.10q, %d) = %d bytes %.40q", s, n, len(got), got)
			}
		}
	}
}

func TestSize(t *testing.T) {
	for n, want := range map[int]string{0: "0 bytes", 999: "999 bytes", 4096: "4.1 KB", 4_900_000: "4.9 MB", 2e9: "2.0 GB"} {
		if got := Size(n); got != want {
			t.Errorf("Size(%d) = %q, want %q", n, got, want)
		}
	}
}
