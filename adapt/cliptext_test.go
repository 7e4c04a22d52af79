package adapt

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/structkit/structkit/internal/msgtext"
)

// TestClip: what a description quotes is cut on a character
// boundary, within its bound, and left whole when it fits.
func TestClip(t *testing.T) {
	for _, s := range []string{"", "short", strings.Repeat("é", 400), strings.Repeat("a", 299) + "日本語", strings.Repeat("🙂", 100)} {
		got := msgtext.Clip(s, 300)
		if !utf8.ValidString(got) || len(got) > 300 || len(s) <= 300 && got != s || len(s) > 300 && !strings.HasSuffix(got, "...") {
			t.Errorf("Clip(%d bytes) = %q (%d bytes)", len(s), got, len(got))
		}
	}
}
