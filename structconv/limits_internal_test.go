package structconv

import (
	"testing"

	"github.com/structkit/structkit/internal/jsontext"
)

// The digit limit is spelled out for go doc; the lenient rules read the
// same value from jsontext.
func TestDigitLimitAgrees(t *testing.T) {
	if DefaultMaxNumberDigits != jsontext.DefaultMaxDigits {
		t.Errorf("DefaultMaxNumberDigits %d, jsontext.DefaultMaxDigits %d", DefaultMaxNumberDigits, jsontext.DefaultMaxDigits)
	}
}
