package structconv

import (
	"google.golang.org/protobuf/proto"

	"github.com/structkit/structkit/coerce"
)

// Fix exposes to the tests the repair in place that CheckOptions.Struct
// makes before it validates.
func Fix(schema *Schema, policy coerce.Policy, report *coerce.Report, m proto.Message) error {
	return fix(schema, policy, report, m)
}

// The limits, for the tests that probe them.
const (
	MaxDepthLimit          = maxDepthLimit
	DefaultMaxNumberDigits = defaultMaxNumberDigits
)
