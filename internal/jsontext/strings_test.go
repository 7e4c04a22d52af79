package jsontext

import (
	"math/rand/v2"
	"testing"
	"unicode/utf8"
)

// skipPlainNaive is skipPlain one byte at a time.
func skipPlainNaive(s string, i int) int {
	for ; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c == '"' || c == '\\' || c >= utf8.RuneSelf {
			return i
		}
	}
	return i
}

// TestSkipPlain: eight bytes at a time finds what one at a time finds,
// for every byte value at every position of a word, behind plain bytes
// and behind other special bytes (borrows across the word).
func TestSkipPlain(t *testing.T) {
	for c := 0; c < 256; c++ {
		for n := 0; n < 20; n++ {
			for at := 0; at <= n; at++ {
				b := make([]byte, n)
				for i := range b {
					b[i] = 'a' + byte(i%26)
				}
				if at < n {
					b[at] = byte(c)
				}
				for from := 0; from <= n; from++ {
					s := string(b)
					if got, want := skipPlain(s, from), skipPlainNaive(s, from); got != want {
						t.Fatalf("skipPlain(%q, %d) = %d, want %d", s, from, got, want)
					}
				}
			}
		}
	}
	r := rand.New(rand.NewPCG(1, 2))
	pick := []byte{0, 0x1f, 0x20, 0x21, '"', 0x23, '\\', 0x5b, 0x5d, 0x7f, 0x80, 0xc3, 0xff, 'a'}
	for range 100000 {
		b := make([]byte, r.IntN(40))
		for i := range b {
			if r.IntN(4) == 0 {
				b[i] = pick[r.IntN(len(pick))]
			} else {
				b[i] = byte(0x20 + r.IntN(0x60))
			}
		}
		s := string(b)
		from := r.IntN(len(s) + 1)
		if got, want := skipPlain(s, from), skipPlainNaive(s, from); got != want {
			t.Fatalf("skipPlain(%q, %d) = %d, want %d", s, from, got, want)
		}
	}
}
