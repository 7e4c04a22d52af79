package structconv

import (
	"bytes"
	"context"
	"slices"
	"strings"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/structkit/structkit/coerce"
	"github.com/structkit/structkit/internal/jsontext"
	"github.com/structkit/structkit/internal/plan"
	"github.com/structkit/structkit/internal/pragma"
	"github.com/structkit/structkit/internal/restore"
	"github.com/structkit/structkit/internal/schema"
	"github.com/structkit/structkit/internal/validate"
)

// CheckOptions configures the pre-dispatch check of a tool call's
// arguments: coercion under the policy, then full validation against the
// schema. The zero value is strict: only the integer-literal rules of the
// codec apply, and a model's "20" for an integer is a problem, not a
// change.
//
// It is the one check configuration of structkit: the packages that check
// arguments (mcpbridge, bridge, grpcmcp, protoargs, protoschema, adapt)
// hold it in their options. It holds configuration only: each check is
// given its call's context and its tool's name as arguments, so that one
// configuration serves many tools and calls.
type CheckOptions struct {
	pragma.NoUnkeyedLiterals // fields by name only, so that fields can be added

	// Policy turns on lenient repairs; see coerce.Lenient.
	Policy coerce.Policy
	// Observer, if not nil, receives every change and problem, with the
	// name of the tool the check was given.
	Observer coerce.Observer
	// MaxDepth and MaxNumberDigits bound the arguments as
	// UnmarshalOptions' fields of the same names do; 0 means the defaults
	// (DefaultMaxDepth levels of nesting, 4300 digits).
	MaxDepth        int
	MaxNumberDigits int
}

// background stands in for a nil context.
func background(ctx context.Context) context.Context {
	if ctx == nil {
		return context.Background()
	}
	return ctx
}

func init() {
	// Package adapt restores an answer in the check's one pass: the
	// hook is an argument of the check (see restore.CheckInput).
	restore.CheckInput = func(ctx context.Context, c restore.Check, tool string, s *plan.Schema, in restore.Input, h restore.Hook) ([]byte, *structpb.Value, *coerce.Report, error) {
		o := CheckOptions{Policy: c.Policy, Observer: c.Observer, MaxDepth: c.MaxDepth, MaxNumberDigits: c.MaxNumberDigits}
		out, tree, rep, err := o.check(background(ctx), tool, (*Schema)(s), in, h, true)
		v, _ := tree.(*structpb.Value)
		return out, v, rep, err
	}
}

// JSON checks arguments given as JSON text, as a model wrote them, for
// the tool named tool (for the Observer); ctx bounds the check: once it
// is done, the check stops and returns its error (context.Canceled or
// context.DeadlineExceeded, matchable with errors.Is). It returns the
// arguments as they should be sent and the report: changes made and
// problems found. The arguments are valid when the report has no
// problems. They go out compact, members sorted, and every literal as
// the input wrote it (1.50 stays 1.50, 1e21 stays 1e21), but where the
// schema calls for a change: an integer literal at an integer location
// (5.0 becomes 5), an integer beyond ±2^53 rounded where the plan rounds
// it (bigint-rounded), and the policy's repairs, which the report lists.
// err is only for input that is not JSON or cannot be converted at all
// (an *Error), for a schema the validator cannot compile (a
// *coerce.SchemaError, the same on every method of CheckOptions), or for
// ctx's error.
func (o CheckOptions) JSON(ctx context.Context, tool string, schema *Schema, args []byte) ([]byte, *coerce.Report, error) {
	out, _, rep, err := o.check(background(ctx), tool, schema, restore.Input{JSON: args}, nil, true)
	return out, rep, err
}

// Repair is JSON without the validation: the arguments as they should be
// sent, with the changes the schema's integer rules and the policy made,
// for callers that forward arguments whatever the schema says (a schema
// the validator cannot compile, or a bridge with its check off). The
// report has changes only. A nil schema means none: the text is read
// strictly and within the limits, and written back compact, every
// literal as written.
func (o CheckOptions) Repair(ctx context.Context, tool string, schema *Schema, args []byte) ([]byte, *coerce.Report, error) {
	out, _, rep, err := o.check(background(ctx), tool, schema, restore.Input{JSON: args}, nil, false)
	return out, rep, err
}

// check is the check of arguments in one pass over them: the decoder
// reads them once (JSON text, or a Struct or Go tree as the JSON it
// stands for), applying the integer rules, the policy and hook (a restore, or
// nil) at each location, and keeps the literals not written as their
// double is (literals); the encoder writes the result (for a tree, without keeping the
// text) and records, as it writes, the instance the validator reads
// (numbers exact: the literals kept, carried big integers as the integers
// they are); the validator evaluates it once. It returns the text of the
// arguments for JSON in, their tree for a tree in: a *structpb.Value for
// a Struct, a Go tree (built as ToGo builds it) for a Go tree.
func (o CheckOptions) check(ctx context.Context, tool string, schema *Schema, in restore.Input, hook restore.Hook, validating bool) ([]byte, any, *coerce.Report, error) {
	if schema == nil && validating {
		return nil, nil, nil, errNoSchema
	}
	if err := ctx.Err(); err != nil {
		return nil, nil, nil, err
	}
	rep := &coerce.Report{}
	s := &structpb.Value{}
	var lits literals
	if err := (UnmarshalOptions{Schema: schema, Policy: o.Policy, Report: rep, MaxDepth: o.MaxDepth,
		MaxNumberDigits: o.MaxNumberDigits}).unmarshal(in, s, hook, &lits); err != nil {
		return nil, nil, nil, err
	}
	var gt *goTree
	if in.Go != nil {
		gt = &goTree{}
	}
	out, problems, err := o.write(ctx, schema, s, &lits, in.JSON == nil, nil, validating, gt)
	if err != nil {
		return nil, nil, nil, err
	}
	if hook != nil {
		problems = append(problems, hook.Problems()...)
	}
	// JSON in, JSON out: a big integer the decoder carried as digits is
	// written back as the number it was, so its carry is no change of the
	// arguments and is not reported (it would read as if the server got a
	// string). A tree out carries it as the tree in did.
	rep.Changes = slices.DeleteFunc(rep.Changes, func(c coerce.Change) bool { return c.Rule == coerce.RuleBigIntCarried })
	o.finish(tool, rep, problems)
	switch {
	case gt != nil:
		return nil, intoRoot(*in.Go, gt.root), rep, nil
	case in.Tree != nil:
		return nil, s, rep, nil
	}
	return out, nil, rep, nil
}

// Struct checks arguments held in a *structpb.Struct (or Value or
// ListValue), repairing them in place under the policy: values the policy
// repairs are replaced, optional empty members dropped. Numbers stay
// doubles (a Struct has no other kind); integers a rule produces beyond
// ±2^53 are carried as decimal strings. ctx and tool are as for JSON.
func (o CheckOptions) Struct(ctx context.Context, tool string, schema *Schema, args proto.Message) (*coerce.Report, error) {
	ctx = background(ctx)
	if schema == nil {
		return nil, errNoSchema
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	// The Struct is walked once, by the encoder, as Marshal under the
	// policy would write it (the bytes are not kept): each repair is made
	// in the Struct as it is written, what is written is what the
	// validator reads, and what JSON cannot hold (NaN, text that is not
	// UTF-8) is left for the validator to name. The report has, in
	// document order, the repairs and the codec's rules that say
	// something of the arguments: a fraction at an integer location (as
	// the decoder reports of text) and a whole double beyond ±2^53 that
	// may have lost digits (as Marshal reports).
	rep := &coerce.Report{}
	_, problems, err := o.write(ctx, schema, args, nil, true, rep, true, nil)
	if err != nil {
		return nil, err
	}
	o.finish(tool, rep, problems)
	return rep, nil
}

// Go checks arguments held in a decoded Go value tree (map[string]any of
// float64 or json.Number), as JSON checks text: it returns the arguments
// as they should be sent (in args itself when it is a map or slice, as
// GoOptions.Apply fixes a tree: integers at integer locations become
// int64) and the report. ctx and tool are as for JSON, and so are the
// limits (MaxDepth, MaxNumberDigits) and the errors (those of
// GoOptions.FromGo for a value JSON cannot hold).
func (o CheckOptions) Go(ctx context.Context, tool string, schema *Schema, args any) (any, *coerce.Report, error) {
	_, tree, rep, err := o.check(background(ctx), tool, schema, restore.Input{Go: &args}, nil, true)
	return tree, rep, err
}

var errNoSchema = &Error{Code: CodeType, Offset: -1, Msg: "a check needs a schema"}

// write writes m under the schema, as Marshal does, and validates what it
// wrote: the encoder records the instance for the validator as it writes
// (numbers exact). lits, when not nil, holds what the decoder kept of the
// JSON it read m from: those literals are written (and recorded) as they
// were read, so that a number reaches the output as the number the input
// held, schema or not. With scratch, the bytes are not kept and what JSON
// cannot hold is written as it comes, for the validator to name. rep,
// when not nil, receives the codec's rules that change what the
// arguments say (not the integer literals every whole number gets, nor a
// carried big integer written as the integer it is). tree, when not nil,
// receives what is written too (CheckOptions.Go). problems is sorted by
// path.
func (o CheckOptions) write(ctx context.Context, schema *Schema, m proto.Message, lits *literals, scratch bool, rep *coerce.Report, validating bool, tree *goTree) ([]byte, []coerce.Problem, error) {
	var val *validate.Validator
	if validating {
		val = validate.Of(planOf(schema))
	}
	e := encoderPool.Get().(*encoder)
	e.b = e.buf[:0]
	e.lits, e.quiet = lits, rep != nil
	policy := coerce.Policy{}
	if lits == nil && rep != nil { // a Struct's check: its policy repairs it in place
		policy, e.inPlace = o.Policy, true
	}
	var rec *validate.Recorder
	if val != nil {
		rec = validate.NewRecorder()
		defer rec.Release()
		e.rec, e.tolerant = rec, scratch
	}
	if tree != nil {
		e.rec, e.discard = tree, rep == nil
		if rec != nil {
			e.rec = both{rec, tree}
		}
	}
	err := MarshalOptions{Schema: schema, Report: rep, Policy: policy}.encode(e, m)
	var out []byte
	if err == nil && !scratch {
		out = bytes.Clone(e.b)
	}
	if cap(e.b) <= maxPooledBuffer {
		e.buf = e.b[:0]
	}
	e.release()
	if err != nil || val == nil {
		return out, nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	problems, err := val.ValidateRecorded(ctx, rec)
	if err != nil {
		return nil, nil, err // a *coerce.SchemaError, or the context's error
	}
	return out, problems, nil
}

// finish completes the report: the policy's changes and the problems,
// sorted by path (stably: the validator's first), then tells the
// observer.
func (o CheckOptions) finish(tool string, rep *coerce.Report, problems []coerce.Problem) {
	slices.SortStableFunc(problems, func(a, b coerce.Problem) int { return strings.Compare(a.Path, b.Path) })
	rep.Changes = onlyPolicyChanges(rep.Changes)
	if len(problems) > 0 {
		rep.Problems = problems
	}
	rep.Observe(o.Observer, tool)
}

// onlyPolicyChanges keeps the changes a model's arguments underwent:
// lenient repairs and big-integer handling, not the integer literals every
// whole number at an integer location gets.
func onlyPolicyChanges(changes []coerce.Change) []coerce.Change {
	out := changes[:0]
	for _, c := range changes {
		if c.Rule != coerce.RuleInteger {
			out = append(out, c)
		}
	}
	if len(out) == 0 {
		return nil // none, on every path
	}
	return out
}

// check is what the encoder keeps for the check's recording of what it
// writes (write); the zero value records nothing.
type check struct {
	rec      recorder
	lits     *literals // what the decoder kept of the literals it read; nil for none
	tolerant bool      // write NaN, ±Inf and text that is not UTF-8 as they come: the bytes are not kept
	discard  bool      // write no numbers nor strings: nothing reads the text (ToGo without a report)
	quiet    bool      // report only what changes what the arguments say (write)
	inPlace  bool      // make the policy's repairs in the Struct written, too
}

// recorder receives each value the encoder writes, in the order
// validate.Recorder documents: the check's *validate.Recorder, which
// records the instance for the validator, or ToGo's goTree.
type recorder interface {
	Object(n int)
	Key(name string)
	Array(n int)
	End()
	Null()
	Bool(b bool)
	String(s string)
	Float(f float64, integer bool)
	Literal(lit string)
}

// both is two recorders, given each value in turn.
type both [2]recorder

func (b both) Object(n int)                  { b[0].Object(n); b[1].Object(n) }
func (b both) Key(name string)               { b[0].Key(name); b[1].Key(name) }
func (b both) Array(n int)                   { b[0].Array(n); b[1].Array(n) }
func (b both) End()                          { b[0].End(); b[1].End() }
func (b both) Null()                         { b[0].Null(); b[1].Null() }
func (b both) Bool(v bool)                   { b[0].Bool(v); b[1].Bool(v) }
func (b both) String(s string)               { b[0].String(s); b[1].String(s) }
func (b both) Float(f float64, integer bool) { b[0].Float(f, integer); b[1].Float(f, integer) }
func (b both) Literal(lit string)            { b[0].Literal(lit); b[1].Literal(lit) }

// record records the scalar v, about to be written at l, for the
// validator: a number by its literal when the decoder kept it, a carried
// big integer (a string the encoder writes as an integer literal) by its
// digits.
func (e *encoder) record(v *structpb.Value, l *plan.Loc) {
	switch k := v.GetKind().(type) {
	case *structpb.Value_NullValue:
		e.rec.Null()
	case *structpb.Value_BoolValue:
		e.rec.Bool(k.BoolValue)
	case *structpb.Value_NumberValue:
		if lit, ok := e.lits.number(k); ok && inexact(lit, k.NumberValue) {
			e.rec.Literal(lit)
			return
		}
		e.rec.Float(k.NumberValue, l.Integer())
	case *structpb.Value_StringValue:
		if e.lits.isCarried(k) || e.lits == nil && l.RestoresCarried() && jsontext.Carried(k.StringValue) {
			e.rec.Literal(k.StringValue)
			return
		}
		e.rec.String(k.StringValue)
	}
}

// literals keeps, for the check, what a Struct cannot say of the number
// literals the decoder read, so that the check's output says what its
// input wrote, JSON in to JSON out, and its validation reads the numbers
// exactly: the literals that are not the text the encoder would write of
// their double (1.50, 1e2, 1.0000000000000001, whose double is 1), and
// the big integers it carried as strings of digits (which, where the
// schema does not say integer, such as a location with no schema, could
// not be told from strings the input wrote). They are kept by the value's
// kind (what Unmarshal keeps of the root it read into a Value).
type literals struct {
	m       map[*structpb.Value_NumberValue]string
	carried map[*structpb.Value_StringValue]struct{}
}

// carry marks v, a string of digits standing for a big integer the input
// wrote as a number.
func (t *literals) carry(v *structpb.Value) {
	k, ok := v.GetKind().(*structpb.Value_StringValue)
	if !ok {
		return
	}
	if t.carried == nil {
		t.carried = map[*structpb.Value_StringValue]struct{}{}
	}
	t.carried[k] = struct{}{}
}

// number returns the literal kept for k; ok is false when there is none.
func (t *literals) number(k *structpb.Value_NumberValue) (lit string, ok bool) {
	if t == nil {
		return "", false
	}
	lit, ok = t.m[k]
	return lit, ok
}

// written returns the literal to write for k: the one kept for it, but
// for an integer beyond ±2^53 that the plan rounded to its double
// (bigint-rounded), which is written as that double; "" for none.
func (t *literals) written(k *structpb.Value_NumberValue) string {
	lit, ok := t.number(k)
	if !ok {
		return ""
	}
	if canon, ok := jsontext.IntegerDigits(lit); ok && jsontext.BeyondSafe(canon) &&
		string(jsontext.AppendWhole(nil, k.NumberValue)) != canon {
		return ""
	}
	return lit
}

// isCarried reports whether k is a big integer the input wrote as a
// number.
func (t *literals) isCarried(k *structpb.Value_StringValue) bool {
	if t == nil {
		return false
	}
	_, ok := t.carried[k]
	return ok
}

// keep keeps lit, the literal v was read from, when v is a double whose
// text, as the encoder writes it, is not lit.
func (t *literals) keep(v *structpb.Value, lit string) {
	k, ok := v.GetKind().(*structpb.Value_NumberValue)
	if !ok || asWritten(lit, k.NumberValue) {
		return
	}
	if t.m == nil {
		t.m = map[*structpb.Value_NumberValue]string{}
	}
	t.m[k] = lit
}

// asWritten reports whether lit is the text the encoder writes of f, its
// double: at once for an integer literal of at most 15 digits (most of
// what models write), else by writing f.
func asWritten(lit string, f float64) bool {
	if len(lit) <= 15 && !strings.ContainsAny(lit, ".eE") && (len(lit) < 2 || lit[0] != '-' || lit[1] != '0') {
		return true
	}
	var buf [32]byte
	return string(jsontext.AppendFloat(buf[:0], f)) == lit
}

// inexact reports whether f, the double of the literal lit, is not lit's
// value as validation reads a double (its shortest decimal).
func inexact(lit string, f float64) bool {
	if exactDouble(lit) {
		return false
	}
	n, ok := schema.ParseNumber(lit)
	d, dok := schema.NumberOf(f)
	return ok && dok && n.Cmp(d) != 0
}

// exactDouble reports, without parsing, whether the literal's double is
// its value as validation reads a double (its shortest decimal): a
// literal of at most 15 digits (DBL_DIG) whose exponent, if any, keeps it
// in the range of normal doubles.
func exactDouble(lit string) bool {
	digits := 0
	for i := 0; i < len(lit); i++ {
		switch c := lit[i]; {
		case c >= '0' && c <= '9':
			digits++
		case c == 'e' || c == 'E':
			e := lit[i+1:]
			if e != "" && (e[0] == '+' || e[0] == '-') {
				e = e[1:]
			}
			return digits <= 15 && len(e) <= 2
		}
	}
	return digits <= 15
}
