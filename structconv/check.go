package structconv

import (
	"context"
	"slices"
	"strings"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/structkit/structkit/coerce"
	"github.com/structkit/structkit/internal/pragma"
	"github.com/structkit/structkit/internal/restore"
	"github.com/structkit/structkit/internal/schema"
	"github.com/structkit/structkit/internal/terms"
)

// CheckOptions configures the pre-dispatch check of a tool call's
// arguments: coercion under the policy, then full validation against the
// schema. The zero value is strict: only the integer-literal rules of the
// codec apply, and a model's "20" for an integer is a problem, not a
// change.
//
// It is the one check configuration of structkit: the packages that check
// arguments (mcpbridge, bridge, grpcmcp, protoargs, protoschema, adapt)
// embed it in their options. Where one configuration serves many tools
// and calls, each check names its tool and is bounded by its call's
// context, in place of Tool and Context.
type CheckOptions struct {
	pragma.NoUnkeyedLiterals // fields by name only, so that fields can be added

	// Policy turns on lenient repairs; see coerce.Lenient.
	Policy coerce.Policy
	// Observer, if not nil, receives every change and problem, with the
	// tool's name.
	Observer coerce.Observer
	// Tool names the tool, for the Observer.
	Tool string
	// Context, if not nil, bounds the check: once it is done, the check
	// stops and returns its error (context.Canceled or
	// context.DeadlineExceeded, matchable with errors.Is).
	Context context.Context
	// MaxDepth and MaxNumberDigits bound the arguments as
	// UnmarshalOptions' fields of the same names do; 0 means the defaults
	// (2000 levels of nesting, 4300 digits).
	MaxDepth        int
	MaxNumberDigits int
}

func (o CheckOptions) ctx() context.Context {
	if o.Context == nil {
		return context.Background()
	}
	return o.Context
}

// JSON checks arguments given as JSON text, as a model wrote them. It
// returns the arguments as they should be sent (coerced, integers as
// integer literals) and the report: changes made and problems found. The
// arguments are valid when the report has no problems. err is only for
// input that is not JSON or cannot be converted at all (an *Error), or for
// a schema the validator cannot compile (a *coerce.SchemaError, the same
// on every method of CheckOptions).
func (o CheckOptions) JSON(schema *coerce.Schema, args []byte) ([]byte, *coerce.Report, error) {
	if schema == nil {
		return nil, nil, errNoSchema
	}
	rep := &coerce.Report{}
	var s structpb.Value
	if err := o.ctx().Err(); err != nil {
		return nil, nil, err
	}
	// A context from package adapt carries a restore (restore.WithHook):
	// the answer is restored to the original schema while it is read.
	hook := restore.HookOf(o.Context)
	if err := (UnmarshalOptions{Schema: schema, Policy: o.Policy, Report: rep, MaxDepth: o.MaxDepth, MaxNumberDigits: o.MaxNumberDigits, restore: hook}).Unmarshal(args, &s); err != nil {
		return nil, nil, err
	}
	if err := o.validate(schema, &s, rep); err != nil {
		return nil, nil, err
	}
	out, err := MarshalOptions{Schema: schema}.Marshal(&s)
	if err != nil {
		return nil, nil, err
	}
	return out, rep, nil
}

// Struct checks arguments held in a *structpb.Struct (or Value or
// ListValue), repairing them in place under the policy: values the policy
// repairs are replaced, optional empty members dropped. Numbers stay
// doubles (a Struct has no other kind); integers a rule produces beyond
// ±2^53 are carried as decimal strings.
func (o CheckOptions) Struct(schema *coerce.Schema, args proto.Message) (*coerce.Report, error) {
	if schema == nil {
		return nil, errNoSchema
	}
	if err := o.ctx().Err(); err != nil {
		return nil, err
	}
	rep := &coerce.Report{}
	if err := fix(schema, o.Policy, rep, args); err != nil {
		return nil, err
	}
	if err := o.validate(schema, args, rep); err != nil {
		return nil, err
	}
	return rep, nil
}

// Go checks arguments held in a decoded Go value tree (map[string]any of
// float64 or json.Number), repairing them in place under the policy;
// integers at integer locations become int64 (see GoOptions.Apply). It
// returns the tree, which is args itself unless args is a scalar.
func (o CheckOptions) Go(schema *coerce.Schema, args any) (any, *coerce.Report, error) {
	if schema == nil {
		return nil, nil, errNoSchema
	}
	if err := o.ctx().Err(); err != nil {
		return nil, nil, err
	}
	rep := &coerce.Report{}
	v, err := GoOptions{Schema: schema, Policy: o.Policy, Report: rep, MaxNumberDigits: o.MaxNumberDigits}.Apply(args)
	if err != nil {
		return nil, nil, err
	}
	if err := o.finish(schema, v, rep); err != nil {
		return nil, nil, err
	}
	return v, rep, nil
}

var errNoSchema = &Error{Code: CodeType, Offset: -1, Msg: "a check needs a schema"}

// validate converts a Struct into exact Go values (integers as int64,
// uint64 or json.Number where the schema admits integer) and validates.
func (o CheckOptions) validate(schema *coerce.Schema, m proto.Message, rep *coerce.Report) error {
	v, err := GoOptions{Schema: schema}.ToGo(m)
	if err != nil {
		return err
	}
	return o.finish(schema, v, rep)
}

// finish validates the converted value v and completes the report: the
// policy's changes, the problems, and a problem for every fraction the
// conversion saw in the text where only integers stand but the value
// lost (1.0000000000000001 is a double 1, yet it was not written as an
// integer).
func (o CheckOptions) finish(sch *coerce.Schema, v any, rep *coerce.Report) error {
	ctx := o.ctx()
	if err := ctx.Err(); err != nil {
		return err
	}
	problems, err := sch.ValidateContext(ctx, v)
	if err != nil {
		return err // a *coerce.SchemaError, or the context's error
	}
	for _, c := range rep.Changes {
		if c.Rule == terms.RuleFraction && !hasTypeProblemAt(problems, c.Path) {
			problems = append(problems, coerce.Problem{Path: c.Path, Keyword: schema.KwType, Expected: "integer",
				Got: "number " + c.From, Msg: "expected integer, got number " + c.From, Schema: c.Schema})
		}
	}
	if h := restore.HookOf(o.Context); h != nil {
		problems = append(problems, h.Problems()...)
	}
	slices.SortStableFunc(problems, func(a, b coerce.Problem) int { return strings.Compare(a.Path, b.Path) })
	rep.Changes = onlyPolicyChanges(rep.Changes)
	rep.Problems = problems
	o.observe(rep)
	return nil
}

func hasTypeProblemAt(problems []coerce.Problem, path string) bool {
	for _, p := range problems {
		if p.Path == path && p.Keyword == schema.KwType {
			return true
		}
	}
	return false
}

// onlyPolicyChanges keeps the changes a model's arguments underwent:
// lenient repairs and big-integer handling, not the integer literals every
// whole number at an integer location gets.
func onlyPolicyChanges(changes []coerce.Change) []coerce.Change {
	out := changes[:0]
	for _, c := range changes {
		if c.Rule != terms.RuleInteger {
			out = append(out, c)
		}
	}
	return out
}

func (o CheckOptions) observe(rep *coerce.Report) { terms.Observe(o.Observer, o.Tool, rep) }
