package coerce

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"sort"
	"strconv"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"golang.org/x/text/message"

	"github.com/structkit/structkit/internal/jsontype"
	"github.com/structkit/structkit/internal/plan"
	"github.com/structkit/structkit/internal/pointer"
)

// Problem is one reason a value fails its schema, in words a model can act
// on: which location, what was expected, what was received.
type Problem struct {
	// Path is the JSON Pointer of the value in the instance ("" is the
	// root).
	Path string `json:"path"`
	// Keyword is the schema keyword that failed ("type", "required",
	// "enum", "anyOf", ...).
	Keyword string `json:"keyword"`
	// Expected says what would have been accepted ("integer", `one of
	// "fast", "slow"`).
	Expected string `json:"expected"`
	// Got says what was received: its JSON type and a short literal
	// (`string "20"`).
	Got string `json:"got"`
	// Message is the whole problem on one line, starting with the path:
	// `/limit: expected integer, got string "20"`.
	Message string `json:"message"`
	// Schema is the JSON Pointer of the failing keyword's schema.
	Schema string `json:"schema,omitempty"`
}

func (p Problem) String() string { return p.Message }

// Validate checks v, a decoded JSON value (map[string]any, []any, string,
// bool, nil, and numbers as json.Number, float64 or Go integers), against
// the whole schema: every keyword, format as an annotation unless
// CompileOptions.AssertFormat. It returns every problem found, in one
// pass; none means valid. The full validator is compiled on first use; an
// error means it could not be (the schema uses something the validator
// rejects) and is returned on every call.
//
// Integers are compared exactly: pass json.Number (or int64/uint64) for
// values beyond ±2^53.
func (s *Schema) Validate(v any) ([]Problem, error) {
	return s.ValidateContext(context.Background(), v)
}

// ValidateContext is Validate bounded by ctx: once ctx is done, it
// returns ctx's error (context.Canceled or context.DeadlineExceeded).
func (s *Schema) ValidateContext(ctx context.Context, v any) ([]Problem, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if s == nil {
		return nil, nil
	}
	sch, err := s.plan().Validator()
	if err != nil {
		return nil, schemaError(err)
	}
	err = sch.Validate(v)
	if err == nil {
		return nil, nil
	}
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return nil, err
	}
	var out []Problem
	s.collect(ve, v, &out)
	sort.SliceStable(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out, nil
}

// collect turns a validation error tree into problems.
func (s *Schema) collect(e *jsonschema.ValidationError, inst any, out *[]Problem) {
	path := pointer.Join(e.InstanceLocation)
	val := valueAt(inst, e.InstanceLocation)
	loc, schemaPtr := s.plan().LocAt(e.SchemaURL)
	add := func(keyword, expected, got, msg string) {
		p := path
		if p == "" {
			p = "/"
		}
		*out = append(*out, Problem{Path: path, Keyword: keyword, Expected: expected, Got: got, Message: p + ": " + msg, Schema: schemaPtr})
	}
	expectGot := func(keyword, expected string) {
		got := describeValue(val)
		add(keyword, expected, got, "expected "+expected+", got "+got)
	}
	switch k := e.ErrorKind.(type) {
	case *kind.Group, *kind.Schema, *kind.Reference, *kind.AllOf:
		for _, c := range e.Causes {
			s.collect(c, inst, out)
		}
	case *kind.AnyOf, *kind.OneOf:
		keyword := "anyOf"
		if one, ok := k.(*kind.OneOf); ok {
			keyword = "oneOf"
			if len(one.Subschemas) > 1 {
				add(keyword, "exactly one alternative", describeValue(val),
					fmt.Sprintf("matches alternatives %d and %d, but exactly one is allowed", one.Subschemas[0]+1, one.Subschemas[1]+1))
				return
			}
		}
		// Where exactly one alternative takes a value of this type, its
		// problems are the useful ones.
		t := typeOfValue(val)
		branches := loc.AltGroup(keyword == "oneOf")
		var fit []*jsonschema.ValidationError
		for _, c := range e.Causes {
			i := branchIndex(e.SchemaURL, keyword, c.SchemaURL)
			if i < 0 || i >= len(branches) || branches[i].Admits()&t != 0 {
				fit = append(fit, c)
			}
		}
		if len(fit) == 1 {
			s.collect(fit[0], inst, out)
			return
		}
		var wants []string
		for _, b := range branches {
			wants = append(wants, describeLoc(b))
		}
		if len(branches) == 0 {
			for _, c := range e.Causes {
				bl, _ := s.plan().LocAt(c.SchemaURL)
				wants = append(wants, describeLoc(bl))
			}
		}
		expected := strings.Join(wants, ", or ")
		got := describeValue(val)
		if i := strings.IndexByte(got, ' '); i > 0 {
			got = got[:i] // the type says enough beside a list of alternatives
		}
		add(keyword, expected, got, fmt.Sprintf("matches none of %d alternatives: expected %s; got %s", len(wants), expected, got))
	case *kind.Type:
		want := make([]string, len(k.Want))
		copy(want, k.Want)
		sort.SliceStable(want, func(i, j int) bool { return typeRank(want[i]) < typeRank(want[j]) })
		expectGot("type", strings.Join(want, " or "))
	case *kind.Enum:
		items := make([]string, 0, len(k.Want))
		for i, w := range k.Want {
			if i == 12 {
				items = append(items, "…")
				break
			}
			items = append(items, shortJSON(w))
		}
		expected := "one of " + strings.Join(items, ", ")
		got := shortJSON(val)
		add("enum", expected, got, "expected "+expected+"; got "+got)
	case *kind.Const:
		expected := shortJSON(k.Want)
		got := shortJSON(val)
		add("const", expected, got, "expected "+expected+"; got "+got)
	case *kind.Required:
		for _, m := range k.Missing {
			add("required", fmt.Sprintf("property %q", m), "", fmt.Sprintf("missing required property %q", m))
		}
	case *kind.AdditionalProperties:
		allowed := ""
		if names := loc.PropertyNames(); len(names) > 0 {
			allowed = " (allowed: " + strings.Join(names, ", ") + ")"
		}
		for _, p := range k.Properties {
			pp := string(pointer.AppendToken([]byte(path), p))
			*out = append(*out, Problem{Path: pp, Keyword: "additionalProperties", Expected: "no property " + strconv.Quote(p),
				Got:     describeValue(valueAt(inst, append(append([]string(nil), e.InstanceLocation...), p))),
				Message: fmt.Sprintf("%s: property %q is not allowed%s", pp, p, allowed), Schema: schemaPtr})
		}
	case *kind.FalseSchema:
		add("false", "nothing", describeValue(val), "no value is allowed here")
	case *kind.Not:
		add("not", "a different value", describeValue(val), "this value is not allowed here")
	case *kind.Minimum:
		expectGot("minimum", "at least "+ratString(k.Want))
	case *kind.Maximum:
		expectGot("maximum", "at most "+ratString(k.Want))
	case *kind.ExclusiveMinimum:
		expectGot("exclusiveMinimum", "more than "+ratString(k.Want))
	case *kind.ExclusiveMaximum:
		expectGot("exclusiveMaximum", "less than "+ratString(k.Want))
	case *kind.MultipleOf:
		expectGot("multipleOf", "a multiple of "+ratString(k.Want))
	case *kind.MinLength:
		add("minLength", plural(k.Want, "character")+" or more", plural(k.Got, "character"),
			fmt.Sprintf("expected at least %s, got %d", plural(k.Want, "character"), k.Got))
	case *kind.MaxLength:
		add("maxLength", plural(k.Want, "character")+" or fewer", plural(k.Got, "character"),
			fmt.Sprintf("expected at most %s, got %d", plural(k.Want, "character"), k.Got))
	case *kind.Pattern:
		expectGot("pattern", "a string matching "+k.Want)
	case *kind.MinItems:
		add("minItems", plural(k.Want, "item")+" or more", plural(k.Got, "item"),
			fmt.Sprintf("expected at least %s, got %d", plural(k.Want, "item"), k.Got))
	case *kind.MaxItems:
		add("maxItems", plural(k.Want, "item")+" or fewer", plural(k.Got, "item"),
			fmt.Sprintf("expected at most %s, got %d", plural(k.Want, "item"), k.Got))
	case *kind.MinProperties:
		add("minProperties", plural(k.Want, "property")+" or more", plural(k.Got, "property"),
			fmt.Sprintf("expected at least %s, got %d", plural(k.Want, "property"), k.Got))
	case *kind.MaxProperties:
		add("maxProperties", plural(k.Want, "property")+" or fewer", plural(k.Got, "property"),
			fmt.Sprintf("expected at most %s, got %d", plural(k.Want, "property"), k.Got))
	case *kind.UniqueItems:
		add("uniqueItems", "unique items", "duplicates",
			fmt.Sprintf("expected unique items, but items %d and %d are equal", k.Duplicates[0], k.Duplicates[1]))
	case *kind.AdditionalItems:
		add("additionalItems", "fewer items", plural(k.Count, "extra item"), fmt.Sprintf("the last %s are not allowed", plural(k.Count, "item")))
	case *kind.Format:
		expectGot("format", "a valid "+k.Want)
	case *kind.DependentRequired:
		for _, m := range k.Missing {
			add("dependentRequired", fmt.Sprintf("property %q", m), "", fmt.Sprintf("property %q requires property %q", k.Prop, m))
		}
	case *kind.Dependency:
		for _, m := range k.Missing {
			add("dependencies", fmt.Sprintf("property %q", m), "", fmt.Sprintf("property %q requires property %q", k.Prop, m))
		}
	case *kind.PropertyNames:
		add("propertyNames", "a valid property name", strconv.Quote(k.Property), fmt.Sprintf("property name %q is not allowed", k.Property))
	case *kind.Contains:
		add("contains", "an item matching the schema", "none", "expected at least one matching item, got none")
	case *kind.MinContains:
		add("minContains", fmt.Sprintf("at least %s", plural(k.Want, "matching item")), strconv.Itoa(len(k.Got)),
			fmt.Sprintf("expected at least %s, got %d", plural(k.Want, "matching item"), len(k.Got)))
	case *kind.MaxContains:
		add("maxContains", fmt.Sprintf("at most %s", plural(k.Want, "matching item")), strconv.Itoa(len(k.Got)),
			fmt.Sprintf("expected at most %s, got %d", plural(k.Want, "matching item"), len(k.Got)))
	default:
		kw := "schema"
		if p := e.ErrorKind.KeywordPath(); len(p) > 0 {
			kw = p[len(p)-1]
		}
		add(kw, "", describeValue(val), e.ErrorKind.LocalizedString(message.NewPrinter(message.MatchLanguage("en"))))
	}
}

// branchIndex reads which branch of a combinator a cause's schema URL is
// in: parent + "/anyOf/2/..." → 2; -1 if it cannot be told.
func branchIndex(parent, keyword, cause string) int {
	rest, ok := strings.CutPrefix(cause, parent+"/"+keyword+"/")
	if !ok {
		return -1
	}
	if i := strings.IndexByte(rest, '/'); i >= 0 {
		rest = rest[:i]
	}
	n, err := strconv.Atoi(rest)
	if err != nil {
		return -1
	}
	return n
}

// typeRank orders type names as people say them: "integer or null".
func typeRank(name string) int {
	switch name {
	case "null":
		return 9
	case "object":
		return 1
	case "array":
		return 2
	case "string":
		return 3
	case "integer":
		return 4
	case "number":
		return 5
	case "boolean":
		return 6
	}
	return 8
}

func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	if strings.HasSuffix(noun, "y") {
		return strconv.Itoa(n) + " " + noun[:len(noun)-1] + "ies"
	}
	return strconv.Itoa(n) + " " + noun + "s"
}

func ratString(r *big.Rat) string {
	if r.IsInt() {
		return r.Num().String()
	}
	s := strings.TrimRight(r.FloatString(12), "0")
	return strings.TrimSuffix(s, ".")
}

func valueAt(v any, tokens []string) any {
	for _, t := range tokens {
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

// typeOfValue names the type of a decoded value.
func typeOfValue(v any) jsontype.Set {
	if t := plan.TypeOf(v); t != 0 {
		return t
	}
	return jsontype.Number
}

// describeValue says what a value is, with a short literal for scalars:
// `string "20"`, `integer 5`, `object`.
func describeValue(v any) string {
	switch typeOfValue(v) {
	case jsontype.Null:
		return "null"
	case jsontype.Object:
		return "object"
	case jsontype.Array:
		return "array"
	case jsontype.String:
		return "string " + shortJSON(v)
	case jsontype.Boolean:
		return "boolean " + shortJSON(v)
	case jsontype.Integer:
		return "integer " + shortJSON(v)
	}
	return "number " + shortJSON(v)
}

// shortJSON renders a value as JSON, clipped for messages.
func shortJSON(v any) string {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return fmt.Sprint(v)
	}
	s := strings.TrimSuffix(b.String(), "\n")
	if len(s) > 48 {
		cut := 44
		for cut > 0 && s[cut]&0xC0 == 0x80 {
			cut-- // do not split a UTF-8 sequence
		}
		s = s[:cut] + "…"
		if strings.HasPrefix(s, `"`) {
			s += `"`
		}
	}
	return s
}

// describeLoc says in words what a plan location admits: "integer",
// "array of strings", `one of "a", "b"`, "integer or null".
func describeLoc(l *plan.Loc) string {
	return describeTypes(l, 0)
}

var typeWords = []struct {
	t           jsontype.Set
	one, plural string
}{
	{jsontype.Object, "object", "objects"}, {jsontype.Array, "array", "arrays"}, {jsontype.String, "string", "strings"},
	{jsontype.Numeric, "number", "numbers"}, {jsontype.Integer, "integer", "integers"}, {jsontype.Number, "number", "numbers"},
	{jsontype.Boolean, "boolean", "booleans"}, {jsontype.Null, "null", "nulls"},
}

func describeTypes(l *plan.Loc, depth int) string {
	admit := l.Admits()
	if admit == jsontype.Any {
		return "any value"
	}
	if admit == 0 {
		return "nothing"
	}
	if strs, ok := l.Strings(); ok && admit == jsontype.String && len(strs) > 0 && len(strs) <= 8 {
		q := make([]string, len(strs))
		for i, s := range strs {
			q[i] = strconv.Quote(s)
		}
		if len(q) == 1 {
			return q[0]
		}
		return "one of " + strings.Join(q, ", ")
	}
	var parts []string
	left := admit
	for _, w := range typeWords {
		if left&w.t != w.t {
			continue
		}
		left &^= w.t
		word := w.one
		if w.t == jsontype.Array && depth < 2 {
			if item := l.Item(0, nil); item != nil && item.Admits() != jsontype.Any && item.Admits() != 0 {
				inner := describeTypes(item, depth+1)
				if !strings.Contains(inner, " ") {
					for _, w2 := range typeWords {
						if w2.one == inner {
							inner = w2.plural
							break
						}
					}
				}
				word = "array of " + inner
			}
		}
		parts = append(parts, word)
	}
	return strings.Join(parts, " or ")
}

// FormatProblems renders problems as the text of an MCP CallToolResult
// with isError: true: what is wrong, then a request to retry. The wording
// is stable.
func FormatProblems(tool string, problems []Problem) string {
	var b strings.Builder
	if tool != "" {
		fmt.Fprintf(&b, "Invalid arguments for tool %q:\n", tool)
	} else {
		b.WriteString("Invalid arguments:\n")
	}
	for _, p := range problems {
		b.WriteString("- ")
		b.WriteString(p.Message)
		b.WriteByte('\n')
	}
	b.WriteString("Correct these arguments and call the tool again.")
	return b.String()
}
