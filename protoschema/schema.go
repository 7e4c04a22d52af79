package protoschema

import (
	// encoding/json: only its Number type, the exact literal of the schema
	// trees built here (written by jsontext); nothing is read by it.
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"google.golang.org/protobuf/reflect/protoreflect"

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

// Bounds of the integer kinds, as JSON Schema writes them.
const (
	minInt32  = "-2147483648"
	maxInt32  = "2147483647"
	maxUint32 = "4294967295"
	minInt64  = "-9223372036854775808"
	maxInt64  = "9223372036854775807"
	maxUint64 = "18446744073709551615"
	maxFloat  = "3.4028234663852886e+38"
	minFloat  = "-3.4028234663852886e+38"
)

// Patterns of the string forms of the proto3 JSON mapping.
const (
	// int64Pattern is the decimal string form of a signed 64-bit integer
	// (at most 19 digits; the exact range is in the description).
	int64Pattern = `^-?(0|[1-9][0-9]{0,18})$`
	// uint64Pattern is the decimal string form of an unsigned 64-bit
	// integer.
	uint64Pattern = `^(0|[1-9][0-9]{0,19})$`
	// timestampPattern is RFC 3339 as google.protobuf.Timestamp takes it:
	// "Z" or an offset, up to nine fractional digits.
	timestampPattern = `^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]{1,9})?(Z|[+-][0-9]{2}:[0-9]{2})$`
	// durationPattern is google.protobuf.Duration's form: seconds with up
	// to nine fractional digits and the suffix "s" ("1.5s", "-3s").
	durationPattern = `^-?[0-9]{1,12}(\.[0-9]{1,9})?s$`
	// fieldMaskPattern is google.protobuf.FieldMask's form: comma-separated
	// paths of lowerCamelCase names joined by dots.
	fieldMaskPattern = `^([a-z][A-Za-z0-9]*(\.[a-z][A-Za-z0-9]*)*(,[a-z][A-Za-z0-9]*(\.[a-z][A-Za-z0-9]*)*)*)?$`
	// base64Pattern admits standard and URL-safe base64, padded or not, as
	// protojson reads bytes.
	base64Pattern = `^[A-Za-z0-9+/_-]*={0,2}$`
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
	// Notes, if not nil, receives a Note for every rule or construct the
	// schema cannot express.
	Notes *[]Note

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

// Error is the error of Generate and of the Codec for a descriptor that
// cannot be given a schema within the limits. Match it with errors.As.
type Error struct {
	// Element is the full name of the descriptor at fault.
	Element protoreflect.FullName
	// Msg says what is wrong.
	Msg string
}

// Error names the element and what is wrong.
func (e *Error) Error() string {
	if e.Element == "" {
		return "protoschema: " + e.Msg
	}
	return "protoschema: " + string(e.Element) + ": " + e.Msg
}

// Generate writes the JSON Schema 2020-12 document of md as compact JSON,
// members sorted by name, deterministic byte for byte.
func (o SchemaOptions) Generate(md protoreflect.MessageDescriptor) ([]byte, error) {
	s, err := o.generate(md)
	if err != nil {
		return nil, err
	}
	return s.json, nil
}

// generated is a schema with what the codec needs to explain it.
type generated struct {
	json []byte
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
	if o.Notes != nil {
		*o.Notes = append(*o.Notes, g.notes...)
	}
	return &generated{json: doc, groups: g.groups, why: g.why, pairs: g.pairs}, nil
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

// message writes the object schema of a message type; at is the JSON
// Pointer of the schema in the document.
func (g *gen) message(md protoreflect.MessageDescriptor, at string) map[string]any {
	s := map[string]any{schema.KwType: "object"}
	props := map[string]any{}
	aliases := map[string]any{}
	// Pairs of names that must not stand together (a field's two names,
	// members of a oneof), with the reason, in the order found.
	var pairs [][2]string
	why := map[[2]string]string{}
	exclude := func(a, b, reason string) {
		p := [2]string{a, b}
		if _, dup := why[p]; !dup {
			pairs = append(pairs, p)
		}
		why[p] = reason
	}
	var required []string
	var groups []reqGroup
	var extra []string // description lines about the message's rules

	names := func(fd protoreflect.FieldDescriptor) []string {
		j, p := fd.JSONName(), string(fd.Name())
		if fd.Kind() == protoreflect.GroupKind {
			p = string(fd.Message().Name()) // protojson's name for a group
		}
		if j == p || g.o.JSONNamesOnly {
			return []string{j}
		}
		return []string{j, p}
	}

	fields := md.Fields()
	for i := 0; i < fields.Len(); i++ {
		fd := fields.Get(i)
		fs := g.field(fd)
		ns := names(fd)
		props[ns[0]] = fs
		if len(ns) == 2 {
			aliases["^"+regexp.QuoteMeta(ns[1])+"$"] = fs
			// One direction suffices: the problem lands on the alias.
			exclude(ns[0], ns[1], "both name the same field")
		}
		if g.isRequired(fd) {
			if len(ns) == 1 {
				required = append(required, ns[0])
			} else {
				groups = append(groups, reqGroup{what: fmt.Sprintf("field %q", ns[0]), names: ns})
			}
		}
	}

	// Oneofs: at most one member. A synthetic oneof (proto3 optional) has
	// one member and says nothing.
	oneofs := md.Oneofs()
	for i := 0; i < oneofs.Len(); i++ {
		od := oneofs.Get(i)
		if od.IsSynthetic() {
			continue
		}
		var members [][]string
		var all []string
		of := od.Fields()
		for j := 0; j < of.Len(); j++ {
			ns := names(of.Get(j))
			members = append(members, ns)
			all = append(all, ns...)
		}
		for a := range members {
			for b := a + 1; b < len(members); b++ {
				for _, x := range members[a] {
					for _, y := range members[b] {
						exclude(x, y, fmt.Sprintf("both are members of oneof %q, which admits at most one", od.Name()))
					}
				}
			}
		}
		if oneofRequired(od) {
			groups = append(groups, reqGroup{what: fmt.Sprintf("oneof %q", od.Name()), names: all})
		}
		line := fmt.Sprintf("At most one of %s may be set (oneof %s)", quoteList(jsonNames(members)), od.Name())
		if oneofRequired(od) {
			line = fmt.Sprintf("Exactly one of %s must be set (oneof %s)", quoteList(jsonNames(members)), od.Name())
		}
		extra = append(extra, line+".")
	}

	// protovalidate message rules: oneof groups, CEL.
	if mr := messageRules(md); mr != nil {
		for _, r := range mr.GetOneof() {
			var members [][]string
			var all []string
			for _, f := range r.GetFields() {
				fd := fields.ByName(protoreflect.Name(f))
				if fd == nil {
					g.note(md.FullName(), "message.oneof", fmt.Sprintf("names %q, which is not a field", f))
					continue
				}
				ns := names(fd)
				members = append(members, ns)
				all = append(all, ns...)
			}
			for a := range members {
				for b := a + 1; b < len(members); b++ {
					for _, x := range members[a] {
						for _, y := range members[b] {
							exclude(x, y, "at most one of "+quoteList(r.GetFields())+" may be set")
						}
					}
				}
			}
			if r.GetRequired() && len(all) > 0 {
				groups = append(groups, reqGroup{what: "one of " + quoteList(jsonNames(members)), names: all})
			}
			extra = append(extra, fmt.Sprintf("At most one of %s may be set.", quoteList(jsonNames(members))))
		}
		for _, c := range mr.GetCel() {
			text := celText(c.GetId(), c.GetMessage(), c.GetExpression())
			g.note(md.FullName(), "message.cel", text+": no JSON Schema equivalent")
			extra = append(extra, "Also checked by the server: "+text+".")
		}
		for _, c := range mr.GetCelExpression() {
			g.note(md.FullName(), "message.cel_expression", "CEL `"+c+"`: no JSON Schema equivalent")
			extra = append(extra, "Also checked by the server: CEL `"+c+"`.")
		}
	}

	s[schema.KwProperties] = props
	if len(aliases) > 0 {
		s[schema.KwPatternProperties] = aliases
	}
	s[schema.KwAdditionalProperties] = false
	if len(required) > 0 {
		sort.Strings(required)
		s[schema.KwRequired] = required
	}
	// One "not" forbids what must not be: a required group absent
	// ({"properties": {names: false}} holds when none of the names is
	// there) or two names of a pair present ({"required": [a, b]}). A
	// "not" is no union at the root, which model providers refuse; the
	// codec's plan leaves it to validation, and Codec explains a failure
	// by the group or pair at fault.
	var forbidden []any
	for _, gr := range groups {
		p := map[string]any{}
		for _, n := range gr.names {
			p[n] = false
		}
		forbidden = append(forbidden, map[string]any{schema.KwProperties: p})
	}
	for _, p := range pairs {
		forbidden = append(forbidden, map[string]any{schema.KwRequired: []string{p[0], p[1]}})
	}
	switch len(forbidden) {
	case 0:
	case 1:
		s[schema.KwNot] = forbidden[0]
	default:
		s[schema.KwNot] = map[string]any{schema.KwAnyOf: forbidden}
	}
	if len(groups) > 0 {
		g.groups[at] = groups
		var req []string
		for _, gr := range groups {
			req = append(req, gr.what)
		}
		extra = append(extra, "Required: "+strings.Join(req, ", ")+".")
	}
	if len(pairs) > 0 {
		g.why[at] = why
		g.pairs[at] = pairs
	}
	if d := g.describe(md, extra); d != "" {
		s[schema.KwDescription] = d
	}
	return s
}

func jsonNames(members [][]string) []string {
	out := make([]string, len(members))
	for i, m := range members {
		out[i] = m[0]
	}
	return out
}

func quoteList(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = strconv.Quote(n)
	}
	return strings.Join(q, ", ")
}

// field writes the schema of one field: its value, or an array or object
// of them, with its rules and description.
func (g *gen) field(fd protoreflect.FieldDescriptor) map[string]any {
	rules := fieldRules(fd)
	var extra []string
	var s map[string]any
	switch {
	case fd.IsMap():
		val := g.single(fd.MapValue())
		if rules != nil && rules.GetMap().GetValues() != nil {
			extra = append(extra, g.applyRules(fd, val, fd.MapValue(), rules.GetMap().GetValues(), "map.values.")...)
		}
		s = map[string]any{schema.KwType: "object", schema.KwAdditionalProperties: val}
		keys := keyNames(fd.MapKey())
		if rules != nil && rules.GetMap().GetKeys() != nil {
			if keys == nil {
				keys = map[string]any{}
			}
			extra = append(extra, g.applyRules(fd, keys, fd.MapKey(), rules.GetMap().GetKeys(), "map.keys.")...)
			if len(keys) == 1 && keys[schema.KwType] == "string" {
				keys = nil
			}
		}
		if keys != nil {
			delete(keys, schema.KwType) // property names are strings
			if len(keys) > 0 {
				s[schema.KwPropertyNames] = keys
			}
		}
	case fd.IsList():
		item := g.single(fd)
		if rules != nil && rules.GetRepeated().GetItems() != nil {
			extra = append(extra, g.applyRules(fd, item, fd, rules.GetRepeated().GetItems(), "repeated.items.")...)
		}
		s = map[string]any{schema.KwType: "array", schema.KwItems: item}
	default:
		s = g.single(fd)
	}
	if rules != nil {
		extra = append(extra, g.applyRules(fd, s, fd, rules, "")...)
	}
	if behaviors := fieldBehaviors(fd); behaviors.outputOnly {
		s[schema.KwReadOnly] = true
	} else if behaviors.inputOnly {
		s[schema.KwWriteOnly] = true
	}
	if d := g.describe(fd, extra); d != "" {
		s[schema.KwDescription] = d
	}
	return s
}

// keyNames is the propertyNames schema of a map key kind, or nil for
// string keys.
func keyNames(fd protoreflect.FieldDescriptor) map[string]any {
	switch fd.Kind() {
	case protoreflect.BoolKind:
		return map[string]any{schema.KwType: "string", schema.KwEnum: []any{"false", "true"}}
	case protoreflect.Int32Kind, protoreflect.Sint32Kind, protoreflect.Sfixed32Kind:
		return map[string]any{schema.KwType: "string", schema.KwPattern: `^-?(0|[1-9][0-9]{0,9})$`}
	case protoreflect.Uint32Kind, protoreflect.Fixed32Kind:
		return map[string]any{schema.KwType: "string", schema.KwPattern: `^(0|[1-9][0-9]{0,9})$`}
	case protoreflect.Int64Kind, protoreflect.Sint64Kind, protoreflect.Sfixed64Kind:
		return map[string]any{schema.KwType: "string", schema.KwPattern: int64Pattern}
	case protoreflect.Uint64Kind, protoreflect.Fixed64Kind:
		return map[string]any{schema.KwType: "string", schema.KwPattern: uint64Pattern}
	}
	return nil
}

// single writes the schema of one value of a field's kind.
func (g *gen) single(fd protoreflect.FieldDescriptor) map[string]any {
	switch fd.Kind() {
	case protoreflect.BoolKind:
		return map[string]any{schema.KwType: "boolean"}
	case protoreflect.StringKind:
		return map[string]any{schema.KwType: "string"}
	case protoreflect.BytesKind:
		return map[string]any{schema.KwType: "string", schema.KwContentEncoding: "base64", schema.KwPattern: base64Pattern}
	case protoreflect.FloatKind:
		return map[string]any{schema.KwType: "number", schema.KwMinimum: json.Number(minFloat), schema.KwMaximum: json.Number(maxFloat)}
	case protoreflect.DoubleKind:
		return map[string]any{schema.KwType: "number"}
	case protoreflect.Int32Kind, protoreflect.Sint32Kind, protoreflect.Sfixed32Kind:
		return intSchema(minInt32, maxInt32)
	case protoreflect.Uint32Kind, protoreflect.Fixed32Kind:
		return intSchema("0", maxUint32)
	case protoreflect.Int64Kind, protoreflect.Sint64Kind, protoreflect.Sfixed64Kind:
		return g.int64Schema(true)
	case protoreflect.Uint64Kind, protoreflect.Fixed64Kind:
		return g.int64Schema(false)
	case protoreflect.EnumKind:
		return g.enum(fd.Enum())
	case protoreflect.MessageKind, protoreflect.GroupKind:
		if wk := g.wellKnown(fd.Message()); wk != nil {
			return wk
		}
		return g.ref(fd.Message())
	}
	return map[string]any{}
}

func intSchema(lo, hi string) map[string]any {
	return map[string]any{schema.KwType: "integer", schema.KwMinimum: json.Number(lo), schema.KwMaximum: json.Number(hi)}
}

func (g *gen) int64Schema(signed bool) map[string]any {
	if g.o.Int64Strings {
		if signed {
			return map[string]any{schema.KwType: "string", schema.KwPattern: int64Pattern}
		}
		return map[string]any{schema.KwType: "string", schema.KwPattern: uint64Pattern}
	}
	if signed {
		return intSchema(minInt64, maxInt64)
	}
	return intSchema("0", maxUint64)
}

func (g *gen) enum(ed protoreflect.EnumDescriptor) map[string]any {
	if ed.FullName() == "google.protobuf.NullValue" {
		return map[string]any{schema.KwType: "null"}
	}
	vals := ed.Values()
	if vals.Len() > g.o.maxEnumValues() {
		g.note(ed.FullName(), schema.KwEnum, fmt.Sprintf("%d values, over the limit of %d: names not listed", vals.Len(), g.o.maxEnumValues()))
		return map[string]any{schema.KwType: "string", schema.KwDescription: fmt.Sprintf("A value name of %s (%d values).", ed.FullName(), vals.Len())}
	}
	var names []any
	var nums []any
	seenNum := map[protoreflect.EnumNumber]bool{}
	for i := 0; i < vals.Len(); i++ {
		v := vals.Get(i)
		names = append(names, string(v.Name()))
		if !seenNum[v.Number()] {
			seenNum[v.Number()] = true
			nums = append(nums, json.Number(strconv.Itoa(int(v.Number()))))
		}
	}
	if g.o.EnumNumbers {
		return map[string]any{schema.KwType: []any{"string", "integer"}, schema.KwEnum: append(names, nums...)}
	}
	return map[string]any{schema.KwType: "string", schema.KwEnum: names}
}

// wellKnown returns the schema of a well-known type's JSON form, or nil.
func (g *gen) wellKnown(md protoreflect.MessageDescriptor) map[string]any {
	if md.ParentFile() == nil || !strings.HasPrefix(string(md.FullName()), "google.protobuf.") {
		return nil
	}
	nullable := func(s map[string]any) map[string]any {
		s[schema.KwType] = []any{s[schema.KwType], "null"}
		return s
	}
	switch md.FullName() {
	case "google.protobuf.Timestamp":
		return map[string]any{schema.KwType: "string", schema.KwFormat: "date-time", schema.KwPattern: timestampPattern,
			schema.KwDescription: `An RFC 3339 time in UTC ("Z") or with an offset, e.g. "2024-05-01T12:00:00Z".`}
	case "google.protobuf.Duration":
		return map[string]any{schema.KwType: "string", schema.KwPattern: durationPattern,
			schema.KwDescription: `A duration in seconds with the suffix "s", e.g. "1.5s".`}
	case "google.protobuf.FieldMask":
		return map[string]any{schema.KwType: "string", schema.KwPattern: fieldMaskPattern,
			schema.KwDescription: `Comma-separated field paths in lowerCamelCase, e.g. "name,address.city".`}
	case "google.protobuf.Struct":
		return map[string]any{schema.KwType: "object"}
	case "google.protobuf.Value":
		return map[string]any{}
	case "google.protobuf.ListValue":
		return map[string]any{schema.KwType: "array"}
	case "google.protobuf.Empty":
		return map[string]any{schema.KwType: "object", schema.KwProperties: map[string]any{}, schema.KwAdditionalProperties: false}
	case "google.protobuf.Any":
		return map[string]any{schema.KwType: "object", schema.KwProperties: map[string]any{"@type": map[string]any{schema.KwType: "string"}},
			schema.KwRequired: []string{"@type"}, schema.KwDescription: `A message of any type: "@type" names it (type.googleapis.com/full.Name) beside its fields, or beside "value" for a well-known type.`}
	case "google.protobuf.DoubleValue":
		return nullable(map[string]any{schema.KwType: "number"})
	case "google.protobuf.FloatValue":
		return nullable(map[string]any{schema.KwType: "number", schema.KwMinimum: json.Number(minFloat), schema.KwMaximum: json.Number(maxFloat)})
	case "google.protobuf.Int32Value":
		return nullable(intSchema(minInt32, maxInt32))
	case "google.protobuf.UInt32Value":
		return nullable(intSchema("0", maxUint32))
	case "google.protobuf.Int64Value":
		return nullable(g.int64Schema(true))
	case "google.protobuf.UInt64Value":
		return nullable(g.int64Schema(false))
	case "google.protobuf.BoolValue":
		return nullable(map[string]any{schema.KwType: "boolean"})
	case "google.protobuf.StringValue":
		return nullable(map[string]any{schema.KwType: "string"})
	case "google.protobuf.BytesValue":
		return nullable(map[string]any{schema.KwType: "string", schema.KwContentEncoding: "base64", schema.KwPattern: base64Pattern})
	}
	return nil
}

// describe returns the description of a descriptor: its comments (unless
// NoDescriptions), then the extra lines.
func (g *gen) describe(d protoreflect.Descriptor, extra []string) string {
	var parts []string
	if !g.o.NoDescriptions {
		if c := comment(d); c != "" {
			parts = append(parts, c)
		}
	}
	parts = append(parts, extra...)
	s := strings.Join(parts, "\n")
	if len(s) > maxDescription {
		cut := maxDescription
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s = s[:cut] + "…"
	}
	return s
}

// comment returns the leading (else trailing) comment of a descriptor,
// trimmed, or "".
func comment(d protoreflect.Descriptor) string {
	f := d.ParentFile()
	if f == nil {
		return ""
	}
	loc := f.SourceLocations().ByDescriptor(d)
	c := loc.LeadingComments
	if strings.TrimSpace(c) == "" {
		c = loc.TrailingComments
	}
	lines := strings.Split(c, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimSpace(l)
	}
	return strings.TrimSpace(strings.Join(lines, "\n"))
}
