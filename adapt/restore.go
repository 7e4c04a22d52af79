package adapt

import (
	"context"
	"errors"

	"google.golang.org/protobuf/types/known/structpb"

	"github.com/structkit/structkit/coerce"
	"github.com/structkit/structkit/internal/pragma"
	"github.com/structkit/structkit/internal/restore"
	"github.com/structkit/structkit/structconv"
)

// The rules restore reports (Change.Rule in the coerce.Report), beside
// the codec's and the lenient policy's.
const (
	// RuleFromText: a string of JSON text became the value it encodes.
	RuleFromText coerce.Rule = "from-json-text"
	// RuleIntegerFromString: a string of digits became the exact integer.
	RuleIntegerFromString coerce.Rule = "integer-from-string"
	// RuleEnumFromString: a string became the (numeric) enum member it
	// names.
	RuleEnumFromString coerce.Rule = "enum-from-string"
	// RuleMapFromPairs: an array of {key, value} pairs became an object.
	RuleMapFromPairs coerce.Rule = "map-from-pairs"
	// RuleMembersFromExtra: the extra member's members joined their
	// object.
	RuleMembersFromExtra coerce.Rule = "members-from-extra"
	// RuleAbsentFromNull: null for an optional member became absence.
	RuleAbsentFromNull coerce.Rule = "absent-from-null"
	// RuleNullFromMarker: {"null": true} became null.
	RuleNullFromMarker coerce.Rule = "null-from-marker"
	// RuleUnwrapped: the arguments were taken out of the adapted root.
	RuleUnwrapped coerce.Rule = "unwrapped"
)

// RestoreOptions configures restoring a model's answer, written under an
// adapted schema, as arguments under the original schema. The zero value
// but Schema is ready to use.
type RestoreOptions struct {
	pragma.NoUnkeyedLiterals

	// Schema is the adapted schema the answer was written under. Required.
	Schema *Schema
	// Policy turns on lenient repairs (see coerce.Lenient), applied in the
	// same pass.
	Policy coerce.Policy
	// Tool names the tool, for the Observer and coerce.FormatProblems.
	Tool string
	// Observer, if not nil, receives every change and problem.
	Observer coerce.Observer
	// Context, if not nil, bounds the work.
	Context context.Context
	// MaxDepth and MaxNumberDigits bound the answer as
	// structconv.UnmarshalOptions' fields of the same names do; 0 means
	// the defaults.
	MaxDepth, MaxNumberDigits int
}

var errNoSchema = errors.New("adapt: RestoreOptions needs the adapted Schema")

// JSON restores an answer given as JSON text (a tool call's arguments as
// the provider returned them). In one pass of the codec, each stand-in of
// the adapted schema becomes what it stands for, integers are exact, the
// policy's repairs apply; then the result is validated against the
// original schema. It returns the arguments as the original schema has
// them (integers as integer literals), and the report: every change
// (restore's rules, the policy's, big integers), and the problems, named
// by their paths in the restored arguments and their locations in the
// original schema. The arguments are valid when the report has no
// problems.
//
// err is only for an answer that is not JSON (a *structconv.Error) or an
// original schema the validator cannot compile (a *coerce.SchemaError).
func (o RestoreOptions) JSON(answer []byte) ([]byte, *coerce.Report, error) {
	if o.Schema == nil {
		return nil, nil, errNoSchema
	}
	// The check applies the restore while it reads the answer: the hook
	// travels in the context of this one call (see restore.WithHook).
	ctx := restore.WithHook(o.Context, &restore.Run{T: o.Schema.tbl})
	return structconv.CheckOptions{Schema: o.Schema.orig, Policy: o.Policy, Tool: o.Tool, Observer: o.Observer,
		Context: ctx, MaxDepth: o.MaxDepth, MaxNumberDigits: o.MaxNumberDigits}.JSON(answer)
}

// Struct restores an answer held in a Struct, such as Vertex AI's
// FunctionCall.args: its values are read as JSON shows them (each number
// the double the Struct holds, so a 64-bit integer the adapted schema
// asks as a string stays exact) and restored as JSON does. It returns the
// arguments as a Struct under the original schema (integers beyond 2^53
// carried as decimal strings, as structconv.Unmarshal carries them).
func (o RestoreOptions) Struct(answer *structpb.Struct) (*structpb.Struct, *coerce.Report, error) {
	if o.Schema == nil {
		return nil, nil, errNoSchema
	}
	b, err := structconv.Marshal(answer)
	if err != nil {
		return nil, nil, err
	}
	out, rep, err := o.JSON(b)
	if err != nil {
		return nil, nil, err
	}
	var st structpb.Struct
	if err := (structconv.UnmarshalOptions{Schema: o.Schema.orig}).Unmarshal(out, &st); err != nil {
		return nil, nil, err
	}
	return &st, rep, nil
}

// Restore restores an answer given as JSON text with the default options;
// see RestoreOptions.JSON.
func (s *Schema) Restore(answer []byte) ([]byte, *coerce.Report, error) {
	return RestoreOptions{Schema: s}.JSON(answer)
}
