package protoschema

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/structkit/structkit/coerce"
	"github.com/structkit/structkit/internal/jsontext"
	"github.com/structkit/structkit/internal/plan"
	"github.com/structkit/structkit/internal/pointer"
	"github.com/structkit/structkit/internal/pragma"
	"github.com/structkit/structkit/internal/protojsondec"
	"github.com/structkit/structkit/internal/protojsonenc"
	"github.com/structkit/structkit/internal/schema"
	"github.com/structkit/structkit/structconv"
)

// resolver finds the message types google.protobuf.Any names, and
// extensions, for the decoder and the encoder.
type resolver = interface {
	protoregistry.MessageTypeResolver
	protoregistry.ExtensionTypeResolver
}

// CodecOptions configures NewCodec. The zero value is strict and uses the
// default schema.
type CodecOptions struct {
	pragma.NoUnkeyedLiterals // fields by name only, so that fields can be added

	// Schema says how the schema is generated.
	Schema SchemaOptions
	// CheckOptions check input (Unmarshal): the lenient policy (the zero
	// value is strict; every repair is reported), the Observer, the
	// limits.
	structconv.CheckOptions
	// Resolver resolves the types of google.protobuf.Any, and extensions,
	// for reading and writing; nil means protoregistry.GlobalTypes.
	// dynamicpb.NewTypes(files) is one for descriptors from reflection.
	Resolver interface {
		protoregistry.MessageTypeResolver
		protoregistry.ExtensionTypeResolver
	}
}

// Codec converts one message type to and from JSON under its generated
// schema. It is immutable and safe for concurrent use.
type Codec struct {
	md     protoreflect.MessageDescriptor
	raw    []byte
	schema *structconv.Schema
	gen    *generated
	opts   CodecOptions
}

// NewCodec generates the schema of md and compiles it (with formats
// asserted, so an email or a date-time that does not parse is a problem).
// The error is an *Error for a descriptor beyond the limits, or a
// *coerce.SchemaError should the schema not compile.
func NewCodec(md protoreflect.MessageDescriptor, opts CodecOptions) (*Codec, error) {
	g, err := opts.Schema.generate(md)
	if err != nil {
		return nil, err
	}
	s, err := structconv.CompileOptions{AssertFormat: true}.Compile(g.json)
	if err != nil {
		return nil, err
	}
	return &Codec{md: md, raw: g.json, schema: s, gen: g, opts: opts}, nil
}

// WithCheck returns a codec of the same message type and the same schema,
// generated and compiled once, that checks input under o: a tool per
// method shares the codec of a message type used by many methods, each
// with its own check (each call names its tool). It is cheap (a copy of a
// few words).
func (c *Codec) WithCheck(o structconv.CheckOptions) *Codec {
	d := *c
	d.opts.CheckOptions = o
	return &d
}

// Descriptor returns the message type of the codec.
func (c *Codec) Descriptor() protoreflect.MessageDescriptor { return c.md }

// Schema returns the generated JSON Schema document (do not modify it).
func (c *Codec) Schema() []byte { return c.raw }

// Compiled returns the compiled schema, for structconv and coerce.
func (c *Codec) Compiled() *structconv.Schema { return c.schema }

func (c *Codec) resolver() resolver {
	if c.opts.Resolver != nil {
		return c.opts.Resolver
	}
	return protoregistry.GlobalTypes
}

func (c *Codec) check(m proto.Message) error {
	if m == nil || !m.ProtoReflect().IsValid() {
		return &Error{Element: c.md.FullName(), Msg: "nil message"}
	}
	if got := m.ProtoReflect().Descriptor().FullName(); got != c.md.FullName() {
		return &Error{Element: c.md.FullName(), Msg: fmt.Sprintf("the codec converts %s, not %s", c.md.FullName(), got)}
	}
	return nil
}

// Unmarshal reads JSON text, as a model wrote it, into m (reset first),
// which must be of the codec's type (generated or dynamicpb). The input
// goes through the codec under the schema — integers exact at any
// magnitude, the Policy's repairs, full validation — and then into the
// message under the proto3 JSON mapping, through the same token layer.
// It returns the report of repairs; an invalid input gives a
// *Error (with Problems), JSON that does not parse a *structconv.Error, both
// naming the location. ctx bounds the check and tool names the tool for
// the Observer, as for structconv.CheckOptions.JSON.
func (c *Codec) Unmarshal(ctx context.Context, tool string, args []byte, m proto.Message) (*coerce.Report, error) {
	if err := c.check(m); err != nil {
		return nil, err
	}
	if len(bytes.TrimSpace(args)) == 0 {
		args = []byte("{}")
	}
	check := c.opts.CheckOptions
	out, rep, err := check.JSON(ctx, tool, c.schema, args)
	if err != nil {
		return nil, err
	}
	if !rep.Valid() {
		return rep, &Error{Element: c.md.FullName(), Problems: c.explain(out, rep.Problems), Report: rep}
	}
	// The message is read from the text the model wrote (so that a
	// refusal names its place there) unless a lenient rule repaired it.
	// Reading the text a second time costs its tokens (about 1 µs for a
	// 400-byte call, 1/40 of building the message: BenchmarkUnmarshal in
	// internal/protojsondec), which a decoder feeding the message from the
	// check's own pass would not save.
	// Either way integer fields are read exactly from their digits, and a
	// plain integer literal beyond ±2^53 in a Struct or Value field is
	// carried as the string of its digits, as the codec's output holds it.
	text := args
	if repaired(rep) {
		text = out
	}
	dec := protojsondec.Options{MaxDepth: check.MaxDepth, MaxDigits: check.MaxNumberDigits, Resolver: c.resolver(),
		Loc: (*plan.Schema)(c.schema).Root()}
	if err := dec.Unmarshal(string(text), m); err != nil {
		var de *protojsondec.Error
		if !errors.As(err, &de) {
			return nil, err // nothing was read into m: no report reads as valid
		}
		// The message refuses what the schema let through: the report
		// holds the problem too, so that it never reads as valid.
		p := problemOf(de)
		rep.Problems = append(rep.Problems, p)
		return rep, &Error{Element: c.md.FullName(), Problems: []coerce.Problem{p}, Report: rep}
	}
	return rep, nil
}

// problemOf turns the decoder's refusal into a problem, part for part.
func problemOf(e *protojsondec.Error) coerce.Problem {
	return coerce.Problem{Path: e.Path, Keyword: "protobuf", Expected: e.Expected, Got: e.Got, Msg: e.Msg}
}

// lenientRules are every lenient rule.
var lenientRules = func() []coerce.Rule { p, _ := coerce.ParsePolicy("all"); return p.Rules() }()

// repaired reports whether a lenient rule changed the input.
func repaired(rep *coerce.Report) bool {
	for _, ch := range rep.Changes {
		for _, r := range lenientRules {
			if ch.Rule == r {
				return true
			}
		}
	}
	return false
}

// UnmarshalStruct reads arguments held in a Struct (numbers as doubles,
// big integers carried as decimal strings) into m, as Unmarshal does.
func (c *Codec) UnmarshalStruct(ctx context.Context, tool string, s *structpb.Struct, m proto.Message) (*coerce.Report, error) {
	if s == nil {
		s = &structpb.Struct{}
	}
	b, err := structconv.MarshalOptions{Schema: c.schema}.Marshal(s)
	if err != nil {
		return nil, err
	}
	return c.Unmarshal(ctx, tool, b, m)
}

// Marshal writes m, of the codec's type, as compact JSON under the schema:
// protojson's field names and forms, but 64-bit integers as integer
// literals with every digit (unless the schema was generated with
// Int64Strings), members sorted by name, deterministic byte for byte.
// Struct, Value and ListValue fields are written under the schema as
// structconv writes them: whole numbers as integer literals and carried
// big integers as bare literals where the schema says integer, strings
// as strings at free-form locations (a Value field's generated schema).
// It is written with protoreflect by the module's own writer; an error is
// an *Error naming the field.
func (c *Codec) Marshal(m proto.Message) ([]byte, error) {
	return c.marshal(m, c.opts.Schema.Int64Strings)
}

func (c *Codec) marshal(m proto.Message, int64Strings bool) ([]byte, error) {
	if err := c.check(m); err != nil {
		return nil, err
	}
	b, err := protojsonenc.Options{Resolver: c.resolver(), Int64Strings: int64Strings,
		Loc: (*plan.Schema)(c.schema).Root()}.Marshal(m)
	if err != nil {
		var ee *protojsonenc.Error
		if errors.As(err, &ee) {
			return nil, &Error{Element: ee.Type, Msg: at(ee.Path) + ee.Msg}
		}
		return nil, err
	}
	return b, nil
}

// at names a location for an *Error's message.
func at(path string) string {
	if path == "" {
		return ""
	}
	return "at " + path + ": "
}

// MarshalStruct converts m into a Struct as Marshal writes it: integers
// within ±2^53 as numbers, beyond as StringValues of their exact digits
// (which structconv.MarshalOptions with the same schema writes back as
// bare literals).
func (c *Codec) MarshalStruct(m proto.Message) (*structpb.Struct, error) {
	// The 64-bit integers are written as the schema has them (integer
	// literals, or strings under Int64Strings) and read under the same
	// schema, which carries integer literals beyond ±2^53; every other
	// number is a double written in its shortest form, which reads back
	// as that double.
	raw, err := c.Marshal(m)
	if err != nil {
		return nil, err
	}
	var s structpb.Struct
	if err := (structconv.UnmarshalOptions{Schema: c.schema, MaxDepth: math.MaxInt}).Unmarshal(raw, &s); err != nil { // the codec's hard cap
		return nil, err
	}
	return &s, nil
}

// explain rewrites the problems of the constructs the generator uses for
// oneofs, aliases and required fields into words a model can act on.
func (c *Codec) explain(doc []byte, problems []coerce.Problem) []coerce.Problem {
	inst, _ := jsontext.Decode(doc, jsontext.Options{}) // the check's own output
	out := problems[:0:0]
	for _, p := range problems {
		// The pointer names the message's schema, or its "not".
		at := strings.TrimSuffix(p.Schema, "/not")
		if p.Keyword != schema.KwNot {
			out = append(out, p)
			continue
		}
		groups, pairs := c.gen.groups[at], c.gen.pairs[at]
		if len(groups) == 0 && len(pairs) == 0 {
			out = append(out, p)
			continue
		}
		obj, _ := valueAtPath(inst, p.Path).(map[string]any)
		found := false
		for _, g := range groups {
			present := false
			for _, n := range g.names {
				if _, ok := obj[n]; ok {
					present = true
				}
			}
			if present {
				continue
			}
			found = true
			msg := fmt.Sprintf("missing required %s", g.what)
			if len(g.names) > 1 {
				msg += " (accepted names: " + quoteList(g.names) + ")"
			}
			out = append(out, coerce.Problem{Path: p.Path, Keyword: schema.KwRequired, Expected: g.what, Got: "nothing",
				Msg: msg, Schema: p.Schema})
		}
		for _, pr := range pairs {
			a, b := pr[0], pr[1]
			_, hasA := obj[a]
			_, hasB := obj[b]
			if !hasA || !hasB {
				continue
			}
			found = true
			bp := string(pointer.AppendToken([]byte(p.Path), b))
			out = append(out, coerce.Problem{Path: bp, Keyword: "oneof", Expected: fmt.Sprintf("no %q beside %q", b, a),
				Got: fmt.Sprintf("both %q and %q", a, b),
				Msg: fmt.Sprintf("%q cannot be set together with %q: %s; keep one", b, a, c.gen.why[at][pr]), Schema: p.Schema})
		}
		if !found {
			out = append(out, p)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out
}

func valueAtPath(v any, ptr string) any {
	toks, _ := pointer.Split(ptr)
	for _, t := range toks {
		switch x := v.(type) {
		case map[string]any:
			v = x[t]
		case []any:
			i, err := strconv.Atoi(t)
			if err != nil || i < 0 || i >= len(x) {
				return nil
			}
			v = x[i]
		default:
			return nil
		}
	}
	return v
}
