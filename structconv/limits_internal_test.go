package structconv

import (
	"testing"

	"github.com/structkit/structkit/internal/jsonnum"
)

// The digit limit is spelled out for go doc; the lenient rules read the
// same value from jsonnum.
func TestDigitLimitAgrees(t *testing.T) {
	if DefaultMaxNumberDigits != jsonnum.DefaultMaxDigits {
		t.Errorf("DefaultMaxNumberDigits %d, jsonnum.DefaultMaxDigits %d", DefaultMaxNumberDigits, jsonnum.DefaultMaxDigits)
	}
}
