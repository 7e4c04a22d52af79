package protoschema

import (
	"fmt"
	"strings"

	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/structkit/structkit/coerce"
	"github.com/structkit/structkit/internal/jsontext"
	"github.com/structkit/structkit/internal/pointer"
	"github.com/structkit/structkit/internal/pragma"
	"github.com/structkit/structkit/internal/schema"
)

// dialect is the "$schema" every generated document declares: draft
// 2020-12.
const dialect = "https://json-schema.org/draft/2020-12/schema"

// The default limits of SchemaOptions. A descriptor is input like any
// other: one from the reflection service of a server nobody vetted may
// hold a million message types or an enum of a million values. Past a
// limit, Generate answers with an *Error (or, for enums, a plain string
// schema and a Note), never with an unbounded document.
const (
	defaultMaxMessages    = 5000
	defaultMaxEnumValues  = 2000
	defaultMaxSchemaBytes = 8 << 20
	// maxDescription bounds one description, in bytes.
	maxDescription = 4000
)

// SchemaOptions configures Generate. The zero value gives the default
// schema: 64-bit integers as integers, enums by name, both field names
// accepted. Like protojson's options, it is a plain struct used by value.
type SchemaOptions struct {
	pragma.NoUnkeyedLiterals // fields by name only, so that fields can be added

	// Int64Strings writes 64-bit integers (and Int64Value, UInt64Value)
	// in protojson's output form, decimal strings, instead of integers
	// with exact bounds. Use it for a schema that protojson's own output
	// must validate against.
	Int64Strings bool
	// EnumNumbers admits enum value numbers beside their names, as
	// protojson does on input.
	EnumNumbers bool
	// JSONNamesOnly admits fields by their JSON names only, without the
	// proto-name aliases.
	JSONNamesOnly bool
	// NoDescriptions leaves out descriptions from comments (notes about
	// rules without an equivalent are still written).
	NoDescriptions bool
	// MaxMessages bounds the message types one schema may define;
	// 0 means 5000.
	MaxMessages int
	// MaxEnumValues bounds the names one enum schema lists; a larger enum
	// becomes a plain string with a Note. 0 means 2000.
	MaxEnumValues int
	// MaxSchemaBytes bounds the size of the document; 0 means 8 MiB.
	MaxSchemaBytes int
}

// Note is something a schema cannot say: a protovalidate rule without a
// JSON Schema equivalent, an enum too large to list. The schema keeps it in
// the description of the element.
type Note struct {
	// Element is the full name of the field or message the note is about.
	Element protoreflect.FullName `json:"element"`
	// Rule names the rule or construct, e.g. "string.max_bytes" or "cel".
	Rule string `json:"rule"`
	// Text says what is not expressed.
	Text string `json:"text"`
}

// String renders the note on one line: element, rule, text.
func (n Note) String() string { return string(n.Element) + ": " + n.Rule + ": " + n.Text }

// Error is the one error type of the protobuf layer (protoschema and
// protoargs), matched with errors.As: the error of Generate and of the
// Codec for a descriptor that cannot be given a schema within the limits
// or a message of the wrong type (Msg); of protoargs for a field whose
// structkit.v1.schema option cannot be used (an inline schema that does
// not compile, Err the *coerce.SchemaError; a name nothing registered);
// and of Codec.Unmarshal for input that does not fit the schema or the
// message (Problems: every problem, located by JSON Pointer).
type Error struct {
	// Element is the full name of the descriptor at fault (a message, a
	// field), or of the message type whose input is invalid.
	Element protoreflect.FullName
	// Msg says what is wrong with a descriptor or a message; empty for
	// invalid input, which Problems describes.
	Msg string
	// Err is the underlying error, if any.
	Err error
	// Problems, for input that does not fit the schema or the message
	// (Codec.Unmarshal), are what is wrong, sorted by path, in words a
	// model can act on: render them with coerce.FormatProblems.
	Problems []coerce.Problem
	// Report holds, with Problems, what lenient repairs changed before
	// the problems were found (nil when none ran).
	Report *coerce.Report
}

// Error names the element and what is wrong: for invalid input, its
// first problems on one line.
func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString("protoschema: ")
	if len(e.Problems) > 0 {
		b.WriteString("invalid ")
	}
	if e.Element != "" {
		b.WriteString(string(e.Element))
		b.WriteString(": ")
	}
	b.WriteString(e.Msg)
	if e.Err != nil {
		b.WriteString(": ")
		b.WriteString(e.Err.Error())
	}
	for i, p := range e.Problems {
		if i > 0 {
			b.WriteString("; ")
		}
		if i == 5 {
			fmt.Fprintf(&b, "and %d more", len(e.Problems)-i)
			break
		}
		b.WriteString(p.String())
	}
	return b.String()
}

// Unwrap returns the underlying error.
func (e *Error) Unwrap() error { return e.Err }

// Generate writes the JSON Schema 2020-12 document of md as compact JSON,
// members sorted by name, deterministic byte for byte. notes are what the
// document cannot say (a rule without an equivalent, an enum too large to
// list), each also written in its element's description.
func (o SchemaOptions) Generate(md protoreflect.MessageDescriptor) (doc []byte, notes []Note, err error) {
	s, err := o.generate(md)
	if err != nil {
		return nil, nil, err
	}
	return s.json, s.notes, nil
}

// generated is a schema with what the codec needs to explain it.
type generated struct {
	json  []byte
	notes []Note
	// groups are the required groups by the JSON Pointer of the schema of
	// the message holding them: which names make each present.
	groups map[string][]reqGroup
	// why says, by the JSON Pointer of a message's schema and a pair of
	// member names, why the two exclude each other.
	why map[string]map[[2]string]string
	// pairs lists the pairs of why in the order of the schema.
	pairs map[string][][2]string
}

// reqGroup is a field (or oneof) that must be present under one of
// several names.
type reqGroup struct {
	what  string // `field "userId"`, `oneof "payment"`
	names []string
}

type gen struct {
	o      SchemaOptions
	root   protoreflect.MessageDescriptor
	defs   map[string]any
	seen   map[protoreflect.FullName]bool
	queue  []protoreflect.MessageDescriptor
	notes  []Note
	groups map[string][]reqGroup
	why    map[string]map[[2]string]string
	pairs  map[string][][2]string
	err    error
}

func (o SchemaOptions) maxMessages() int {
	if o.MaxMessages > 0 {
		return o.MaxMessages
	}
	return defaultMaxMessages
}

func (o SchemaOptions) maxEnumValues() int {
	if o.MaxEnumValues > 0 {
		return o.MaxEnumValues
	}
	return defaultMaxEnumValues
}

func (o SchemaOptions) maxSchemaBytes() int {
	if o.MaxSchemaBytes > 0 {
		return o.MaxSchemaBytes
	}
	return defaultMaxSchemaBytes
}

func (o SchemaOptions) generate(md protoreflect.MessageDescriptor) (out *generated, err error) {
	if md == nil {
		return nil, &Error{Msg: "no message descriptor"}
	}
	// Descriptors come from anywhere (a reflection answer, a descriptor
	// set): a shape nothing here foresaw is an error, not a crash.
	defer func() {
		if r := recover(); r != nil {
			out, err = nil, &Error{Element: md.FullName(), Msg: fmt.Sprintf("unexpected descriptor: %v", r)}
		}
	}()
	g := &gen{o: o, root: md, defs: map[string]any{}, seen: map[protoreflect.FullName]bool{md.FullName(): true},
		groups: map[string][]reqGroup{}, why: map[string]map[[2]string]string{}, pairs: map[string][][2]string{}}
	var root map[string]any
	if wk := g.wellKnown(md); wk != nil {
		// A well-known type at the root keeps its JSON form; a tool's
		// schema must be an object, which Struct, Any and Empty are.
		root = wk
	} else {
		root = g.message(md, "")
	}
	for len(g.queue) > 0 && g.err == nil {
		m := g.queue[0]
		g.queue = g.queue[1:]
		g.defs[string(m.FullName())] = g.message(m, "/$defs/"+pointer.Escape(string(m.FullName())))
	}
	if g.err != nil {
		return nil, g.err
	}
	root[schema.KwSchema] = dialect
	if len(g.defs) > 0 {
		root[schema.KwDefs] = g.defs
	}
	doc, err := jsontext.Marshal(root)
	if err != nil {
		return nil, &Error{Element: md.FullName(), Msg: "writing the schema: " + err.Error()}
	}
	if len(doc) > o.maxSchemaBytes() {
		return nil, &Error{Element: md.FullName(), Msg: fmt.Sprintf("the schema would take %d bytes, over the limit of %d", len(doc), o.maxSchemaBytes())}
	}
	return &generated{json: doc, notes: g.notes, groups: g.groups, why: g.why, pairs: g.pairs}, nil
}

func (g *gen) note(el protoreflect.FullName, rule, text string) {
	g.notes = append(g.notes, Note{Element: el, Rule: rule, Text: text})
}

// ref returns the schema that points at a message type's definition,
// queueing the definition.
func (g *gen) ref(md protoreflect.MessageDescriptor) map[string]any {
	if md.FullName() == g.root.FullName() {
		return map[string]any{schema.KwRef: "#"}
	}
	if !g.seen[md.FullName()] {
		if len(g.seen) >= g.o.maxMessages() {
			if g.err == nil {
				g.err = &Error{Element: g.root.FullName(), Msg: fmt.Sprintf("reaches more than %d message types", g.o.maxMessages())}
			}
		} else {
			g.seen[md.FullName()] = true
			g.queue = append(g.queue, md)
		}
	}
	return map[string]any{schema.KwRef: "#/$defs/" + pointer.Escape(string(md.FullName()))}
}
