package structconv

import (
	"google.golang.org/protobuf/proto"

	"github.com/structkit/structkit/coerce"
)

// Fix exposes to the tests the fixer of fix_oracle_test.go, the repair in
// place by a walk of its own that CheckOptions.Struct is held to.
func Fix(schema *Schema, policy coerce.Policy, report *coerce.Report, m proto.Message) error {
	return fix(schema, policy, report, m)
}

// The limits, for the tests that probe them.
const (
	MaxDepthLimit          = maxDepthLimit
	DefaultMaxNumberDigits = defaultMaxNumberDigits
)
