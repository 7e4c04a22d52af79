package adapt

import (
	"context"
	"errors"

	"google.golang.org/protobuf/types/known/structpb"

	"github.com/structkit/structkit/coerce"
	"github.com/structkit/structkit/internal/plan"
	"github.com/structkit/structkit/internal/pragma"
	"github.com/structkit/structkit/internal/restore"
	"github.com/structkit/structkit/structconv"
)

// RestoreOptions configures restoring a model's answer, written under an
// adapted schema, as arguments under the original schema. The zero value
// but Schema is ready to use.
//
// Besides the codec's rules and the lenient policy's, restore reports
// these (Change.Rule in the coerce.Report):
//
//	"from-json-text"       a string of JSON text became the value it encodes
//	"integer-from-string"  a string of digits became the exact integer
//	"enum-from-string"     a string became the (numeric) enum member it names
//	"map-from-pairs"       an array of {key, value} pairs became an object
//	"members-from-extra"   the extra member's members joined their object
//	"absent-from-null"     null for an optional member became absence
//	"null-from-marker"     {"null": true} became null
//	"unwrapped"            the arguments were taken out of the adapted root
type RestoreOptions struct {
	pragma.NoUnkeyedLiterals // fields by name only, so that fields can be added

	// Schema is the adapted schema the answer was written under. Required.
	Schema *Schema
	// CheckOptions configure the check of the restored arguments: the
	// lenient policy's repairs (see coerce.Lenient), applied in the same
	// pass; the Observer; the limits of the answer.
	structconv.CheckOptions
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
// ctx bounds the work and tool names the tool for the Observer, as for
// structconv.CheckOptions.JSON. err is only for an answer that is not
// JSON (a *structconv.Error), an original schema the validator cannot
// compile (a *coerce.SchemaError), or ctx's error.
func (o RestoreOptions) JSON(ctx context.Context, tool string, answer []byte) ([]byte, *coerce.Report, error) {
	// The check applies the restore while it reads the answer: it is
	// given the original schema and, as its hook, the table of the
	// adapted schema's stand-ins.
	out, _, rep, err := o.check(ctx, tool, restore.Input{JSON: answer})
	return out, rep, err
}

// Struct restores an answer held in a Struct, such as Vertex AI's
// FunctionCall.args, read in place as the JSON it stands for (each
// number the double the Struct holds, so a 64-bit integer the adapted
// schema asks as a string stays exact; a string of digits beyond 2^53
// where the original schema has integers is that integer, as the codec
// carries it) and restored as JSON is, in the same one pass. It returns
// the arguments as a Struct under the original schema (integers beyond
// 2^53 carried as decimal strings, as structconv.Unmarshal carries them).
// ctx and tool are as for JSON.
func (o RestoreOptions) Struct(ctx context.Context, tool string, answer *structpb.Struct) (*structpb.Struct, *coerce.Report, error) {
	if answer == nil {
		answer = &structpb.Struct{}
	}
	_, v, rep, err := o.check(ctx, tool, restore.Input{Tree: structpb.NewStructValue(answer)})
	if err != nil {
		return nil, nil, err
	}
	return v.GetStructValue(), rep, nil
}

// Restore restores an answer given as JSON text with the default options;
// see RestoreOptions.JSON.
func (s *Schema) Restore(answer []byte) ([]byte, *coerce.Report, error) {
	return RestoreOptions{Schema: s}.JSON(context.Background(), "", answer)
}

// check runs the codec's check of the answer under the original schema,
// with the table of the adapted schema's stand-ins as its hook.
func (o RestoreOptions) check(ctx context.Context, tool string, answer restore.Input) ([]byte, *structpb.Value, *coerce.Report, error) {
	if o.Schema == nil {
		return nil, nil, nil, errNoSchema
	}
	c := o.CheckOptions
	return restore.CheckInput(ctx, restore.Check{Policy: c.Policy, Observer: c.Observer, MaxDepth: c.MaxDepth,
		MaxNumberDigits: c.MaxNumberDigits}, tool, (*plan.Schema)(o.Schema.orig), answer, &restore.Run{T: o.Schema.tbl})
}
