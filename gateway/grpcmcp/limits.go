package grpcmcp

import (
	"bytes"
	"errors"
	"fmt"
	"sync"
	"unicode/utf8"

	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/structkit/structkit/adapt"
	"github.com/structkit/structkit/coerce"
	"github.com/structkit/structkit/gateway/internal/mcptool"
	"github.com/structkit/structkit/gateway/internal/mcptrace"
	"github.com/structkit/structkit/gateway/internal/scope"
	"github.com/structkit/structkit/protoschema"
)

// The default limits of Options, per registration (one call of AddTools,
// AddService or AddServices). A server's descriptors are input like any
// other: a reflection service may list 30,000 methods, a method comment of
// 29 MB, or one message of thousands of types used by a hundred methods.
const (
	// defaultMaxTools is the go-sdk's page of tools/list
	// (mcp.DefaultPageSize): the tools of one registration fit one page.
	defaultMaxTools = 1000
	// defaultMaxToolBytes bounds one tool as tools/list writes it.
	defaultMaxToolBytes = 4 << 20
	// defaultMaxListBytes keeps the tools/list result under the go-sdk
	// client's 16 MiB frame (mcp.DefaultMaxLineLength), with room for the
	// JSON-RPC envelope.
	defaultMaxListBytes = 15 << 20
	// defaultMaxDescription bounds a tool's description, as protoschema
	// bounds the descriptions in a schema.
	defaultMaxDescription = 4000
)

// Omission is a method a limit of Options left out: it is not a tool.
type Omission struct {
	// Method is the method's full name; Tool the name its tool would have
	// had.
	Method protoreflect.FullName
	Tool   string
	// Limit names the field of Options that left it out: "MaxTools",
	// "MaxToolBytes" or "MaxListBytes"; or "Schema" for a message type
	// beyond the limits of Options.Schema (protoschema.SchemaOptions:
	// MaxMessages, MaxSchemaBytes), or whose descriptor no schema can be
	// generated from (a *protoschema.Error); or "Streaming" for a
	// client-streaming or bidirectional method, which no tool call can
	// make (a call sends one request). Msg says by how much, or why. A
	// method the scope of Options hid (chosen, not a limit) has Limit
	// "Tools", "ExcludeTools" or "ReadOnly".
	Limit string
	Msg   string
}

// String renders the omission on one line.
func (o Omission) String() string {
	return fmt.Sprintf("%s left out (%s): %s", o.Method, o.Limit, o.Msg)
}

func orDefault(v, def int) int {
	if v > 0 {
		return v
	}
	return def
}

// registration shares, among the tools of one call of AddTools, the
// generated and compiled schema of each message type (one codec per type,
// whichever methods use it) and its adaptation to the profile, and counts
// what the limits bound.
type registration struct {
	o         Options
	codecs    map[protoreflect.FullName]*lazyCodec
	failed    map[protoreflect.FullName]error // what did not generate
	profiled  map[protoreflect.FullName]profiled
	listBytes int
	// generated is the sum of the schemas generated, which bounds the
	// work of the tools left out.
	generated int
	forward   scope.Forward         // Options.Forward, checked (scope)
	instr     *mcptrace.Instruments // the tools' tracer and histograms (instruments)
}

type profiled struct {
	adapted *adapt.Schema
	text    []byte
}

func newRegistration(o Options) *registration {
	return &registration{o: o, codecs: map[protoreflect.FullName]*lazyCodec{}, failed: map[protoreflect.FullName]error{},
		profiled: map[protoreflect.FullName]profiled{}}
}

// generateFactor bounds the bytes of schema generated for a registration,
// kept or left out, to this many times the default MaxListBytes, or to
// MaxListBytes if larger.
const generateFactor = 4

// precheck leaves out, before anything is compiled, a tool whose
// generated schemas cannot fit, and every tool once the generated
// schemas reach that bound (generateFactor): the work of a
// registration is bounded by its limits, not by methods × types (many
// methods, each with a message of its own holding one large tree of
// types). It applies to the tools whose schemas are generated and
// published as generated (no Profile).
func (r *registration) precheck(t Tool) (limit, msg string, err error) {
	if t.InputSchema != nil || t.OutputSchema != nil || (r.o.Profile != "" && r.o.Profile != adapt.MCP) {
		return "", "", nil
	}
	maxList := orDefault(r.o.MaxListBytes, defaultMaxListBytes)
	if gen := max(generateFactor*defaultMaxListBytes, maxList); r.generated > gen {
		return "MaxListBytes", fmt.Sprintf("tools/list is full: the schemas generated so far take %d bytes, over the %d generated for a limit of %d",
			r.generated, gen, maxList), nil
	}
	in, err := r.schemaSize(t.Method.Input())
	if err != nil {
		return "", "", fmt.Errorf("grpcmcp: %s: input: %w", t.Method.FullName(), err)
	}
	out, err := r.schemaSize(t.Method.Output())
	if err != nil {
		return "", "", fmt.Errorf("grpcmcp: %s: output: %w", t.Method.FullName(), err)
	}
	if max := orDefault(r.o.MaxToolBytes, defaultMaxToolBytes); in+out > max {
		return "MaxToolBytes", fmt.Sprintf("the tool's schemas take %d bytes in tools/list, over the limit of %d", in+out, max), nil
	}
	if r.listBytes+in+out > maxList {
		return "MaxListBytes", fmt.Sprintf("the tool's schemas take %d bytes, and tools/list holds %d of its limit of %d", in+out, r.listBytes, maxList), nil
	}
	return "", "", nil
}

// schemaSize is the length of the generated schema of md.
func (r *registration) schemaSize(md protoreflect.MessageDescriptor) (int, error) {
	if c, ok := r.codecs[md.FullName()]; ok {
		return len(c.Schema()), nil
	}
	c, err := r.codec(md)
	if err != nil {
		return 0, err
	}
	r.generated += len(c.Schema())
	return len(c.Schema()), nil
}

// lazyCodec is the codec of one message type, shared by the tools of a
// registration: its schema is generated at registration (it is
// published), compiled on the first call that needs it, so that a
// registration holds the schemas' bytes, not their compiled forms, until
// they are used.
type lazyCodec struct {
	md     protoreflect.MessageDescriptor
	co     protoschema.CodecOptions
	schema []byte // the generated document, as published
	once   sync.Once
	c      *protoschema.Codec
	err    error
}

// get compiles the codec on first use.
func (l *lazyCodec) get() (*protoschema.Codec, error) {
	l.once.Do(func() {
		l.c, l.err = protoschema.NewCodec(l.md, l.co)
		if l.err == nil && !bytes.Equal(l.c.Schema(), l.schema) {
			l.c, l.err = nil, fmt.Errorf("the schema of %s came out differently the second time", l.md.FullName())
		}
	})
	return l.c, l.err
}

// Schema is the generated document.
func (l *lazyCodec) Schema() []byte { return l.schema }

// codec returns the shared codec of md, its schema generated on first
// use. Its check options are the strict ones of an output; an input's
// tool derives its own with WithCheck.
func (r *registration) codec(md protoreflect.MessageDescriptor) (*lazyCodec, error) {
	if c, ok := r.codecs[md.FullName()]; ok {
		return c, nil
	}
	if err, ok := r.failed[md.FullName()]; ok {
		return nil, err
	}
	co := protoschema.CodecOptions{Schema: r.o.Schema, CheckOptions: r.o.CheckOptions, Resolver: r.o.Resolver}
	co.Policy, co.Observer = coerce.Policy{}, nil
	doc, _, err := r.o.Schema.Generate(md)
	if err == nil {
		err = objectSchema(doc)
	}
	if err != nil {
		r.failed[md.FullName()] = err
		return nil, err
	}
	c := &lazyCodec{md: md, co: co, schema: doc}
	r.codecs[md.FullName()] = c
	return c, nil
}

// profile returns the input schema of md adapted to the profile, shared
// by the tools whose input schema is generated.
func (r *registration) profile(md protoreflect.MethodDescriptor, given, inSchema []byte) (*adapt.Schema, []byte, error) {
	if given != nil {
		return profileSchema(md, given, inSchema, r.o)
	}
	if p, ok := r.profiled[md.Input().FullName()]; ok {
		return p.adapted, p.text, nil
	}
	a, text, err := profileSchema(md, nil, inSchema, r.o)
	if err != nil {
		return nil, nil, err
	}
	r.profiled[md.Input().FullName()] = profiled{a, text}
	return a, text, nil
}

// schemaOmission is the Omission of a tool whose schema cannot be
// generated (a *protoschema.Error), or false for any other error.
func schemaOmission(t Tool, o Options, err error) (Omission, bool) {
	var pe *protoschema.Error
	if t.Method == nil || !errors.As(err, &pe) {
		return Omission{}, false
	}
	return Omission{Method: t.Method.FullName(), Tool: toolName(t, o), Limit: "Schema", Msg: pe.Error()}, true
}

// admit counts a built tool against the byte limits, or says which one
// leaves it out.
func (r *registration) admit(t *tool) (limit, msg string) {
	size := mcptool.ListedSize(t.mcpTool)
	if max := orDefault(r.o.MaxToolBytes, defaultMaxToolBytes); size > max {
		return "MaxToolBytes", fmt.Sprintf("the tool takes %d bytes in tools/list, over the limit of %d", size, max)
	}
	if max := orDefault(r.o.MaxListBytes, defaultMaxListBytes); r.listBytes+size > max {
		return "MaxListBytes", fmt.Sprintf("the tool takes %d bytes, and tools/list holds %d of its limit of %d", size, r.listBytes, max)
	}
	r.listBytes += size
	return "", ""
}

// cutDescription cuts a description to max bytes at a character boundary
// and says so; total is the length of the text it came from.
func cutDescription(s string, limit, total int) string {
	if len(s) <= limit && total <= 2*limit {
		return s
	}
	if len(s) <= limit {
		return s + fmt.Sprintf(" … (description cut at %d of its %d bytes)", len(s), total)
	}
	cut := limit
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + fmt.Sprintf(" … (description cut at %d of its %d bytes)", cut, max(total, len(s)))
}
