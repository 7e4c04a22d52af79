package lenient

import (
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/structkit/structkit/coerce"
	"github.com/structkit/structkit/internal/jsontext"
	"github.com/structkit/structkit/internal/jsontype"
	"github.com/structkit/structkit/internal/plan"
)

// policyAll has every switch on.
var policyAll = coerce.Policy{
	StringToInteger: true, StringToNumber: true, StringToBoolean: true, BooleanWords: true,
	NumberToString: true, EnumCase: true, DropEmpty: true, JSONString: true, WrapScalar: true,
}

// dropOf reads Member's decision as (drop, set to null).
func dropOf(p coerce.Policy, parent *plan.Loc, name string, child *plan.Loc, v Scalar) (drop, toNull bool) {
	d := Member(p, parent, name, child, v)
	if d.Action != Keep && d.Rule != coerce.RuleDropEmpty {
		panic("Member decided a rule other than drop-empty")
	}
	return d.Action == Drop, d.Action == Replace && d.Out.Type == jsontype.Null
}

// compileDoc plans a schema document as structconv.Compile does, without the
// validator.
func compileDoc(t *testing.T, b []byte) (*plan.Schema, error) {
	t.Helper()
	doc, err := plan.Normalize(b)
	if err != nil {
		return nil, err
	}
	return plan.Compile(doc, plan.Options{})
}

// policyLoc compiles schema and returns the plan of its member "v".
func policyLoc(t *testing.T, schema string) *plan.Loc {
	t.Helper()
	doc, err := plan.Normalize([]byte(`{"type":"object","properties":{"v":` + schema + `}}`))
	if err != nil {
		t.Fatalf("Normalize(%s): %v", schema, err)
	}
	s, err := plan.Compile(doc, plan.Options{})
	if err != nil {
		t.Fatalf("Compile(%s): %v", schema, err)
	}
	l := s.Root().Property("v", nil)
	if l == nil {
		t.Fatalf("no plan for %s", schema)
	}
	return l
}

func str(s string) Scalar { return Scalar{Type: jsontype.String, Text: s} }

// fixCase is one scalar through Policy.Fix. ok false: nothing fires.
type fixCase struct {
	in   Scalar
	ok   bool
	rule coerce.Rule
	want Scalar // Type and Bool, Text and Num as far as they are set
}

func runFix(t *testing.T, name string, l *plan.Loc, p coerce.Policy, cases []fixCase) {
	t.Helper()
	for _, c := range cases {
		out, rule, ok := fix(p, l, c.in)
		where := name + ": " + c.in.JSON()
		if ok != c.ok {
			t.Errorf("%s: fired=%v (%s %s), want fired=%v", where, ok, rule, out.JSON(), c.ok)
			continue
		}
		if !ok {
			if rule != "" || !sameScalar(out, c.in) {
				t.Errorf("%s: nothing fired, yet Fix returned %s %+v; want the value unchanged", where, rule, out)
			}
			continue
		}
		if rule != c.rule {
			t.Errorf("%s: rule %s, want %s", where, rule, c.rule)
		}
		if out.Type != c.want.Type || out.Bool != c.want.Bool {
			t.Errorf("%s: got %+v, want %+v", where, out, c.want)
		}
		if c.want.Text != "" && out.Text != c.want.Text {
			t.Errorf("%s: text %q, want %q", where, out.Text, c.want.Text)
		}
		if (c.want.Type == jsontype.Integer || c.want.Type == jsontype.Number) && out.Num != c.want.Num {
			t.Errorf("%s: value %v, want %v", where, out.Num, c.want.Num)
		}
		if got, want := out.JSON(), c.want.JSON(); got != want {
			t.Errorf("%s: JSON %s, want %s", where, got, want)
		}
	}
}

// sameScalar is == with NaN equal to itself.
func sameScalar(a, b Scalar) bool {
	if math.IsNaN(a.Num) && math.IsNaN(b.Num) {
		a.Num, b.Num = 0, 0
	}
	return a == b
}

func toInt(text string, f float64) Scalar {
	return Scalar{Type: jsontype.Integer, Text: text, Num: f}
}

// TestPolicyFixIntegerText: what integerText accepts, seen through Fix at
// a location that admits only integers.
func TestPolicyFixIntegerText(t *testing.T) {
	l := policyLoc(t, `{"type":"integer"}`)
	yes := func(in, canon string, f float64) fixCase {
		return fixCase{in: str(in), ok: true, rule: coerce.RuleStringToInteger, want: toInt(canon, f)}
	}
	no := func(in string) fixCase { return fixCase{in: str(in)} }
	cases := []fixCase{
		yes("20", "20", 20),
		yes("0", "0", 0),
		yes("-0", "0", 0),
		yes("+5", "5", 5),
		yes("-7", "-7", -7),
		yes("007", "7", 7),
		yes("-007", "-7", -7),
		yes(" 42 ", "42", 42),
		yes("\t42\r\n", "42", 42),
		yes("5.0", "5", 5),
		yes("5.000", "5", 5),
		yes("-3.00", "-3", -3),
		yes("0.0", "0", 0),
		yes("9007199254740993", "9007199254740993", 9007199254740992), // every digit kept in Text
		yes("-9223372036854775809", "-9223372036854775809", -9223372036854775808),
		yes("123456789012345678901234567890", "123456789012345678901234567890", 1.2345678901234568e29),
		yes(" 18446744073709551616.0 ", "18446744073709551616", 18446744073709551616),
		no(""),
		no(" "),
		no("\t\n"),
		no("1e3"),
		no("1E3"),
		no("0x10"),
		no("0X10"),
		no("0b101"),
		no("0o17"),
		no("1_000"),
		no("1,000"),
		no("1 000"),
		no("5.5"),
		no("5.01"),
		no("5."),
		no(".0"),
		no("."),
		no("+"),
		no("-"),
		no("+-5"),
		no("--5"),
		no("5-"),
		no("Infinity"),
		no("-Infinity"),
		no("NaN"),
		no("inf"),
		no("twenty"),
		no("٤٢"),       // Arabic-Indic digits
		no("４２"),       // fullwidth digits
		no("\u00a042"), // a no-break space is not ASCII whitespace
		no("42\u2003"),
		no("\v42"),
		no("\"42\""),
	}
	runFix(t, "integer, string-to-integer", l, coerce.Policy{StringToInteger: true}, cases)
	// The other switches do not change what integerText accepts at an
	// integer location: a decimal is no integer, "yes" no number.
	runFix(t, "integer, all", l, policyAll, cases)
	// Off, nothing fires.
	for _, c := range cases {
		c.ok = false
		runFix(t, "integer, other rules", l, coerce.Policy{StringToBoolean: true, BooleanWords: true, EnumCase: true, NumberToString: true}, []fixCase{{in: c.in}})
	}
}

// TestPolicyFixDecimalText: what decimalText accepts, seen through Fix at
// a location that admits any number.
func TestPolicyFixDecimalText(t *testing.T) {
	l := policyLoc(t, `{"type":"number"}`)
	num := func(in string, f float64) fixCase {
		return fixCase{in: str(in), ok: true, rule: coerce.RuleStringToNumber, want: Scalar{Type: jsontype.Number, Num: f}}
	}
	// A string holding an integer becomes an integer (exact digits), under
	// string-to-number: the location names number, not integer.
	whole := func(in, canon string, f float64) fixCase {
		return fixCase{in: str(in), ok: true, rule: coerce.RuleStringToNumber, want: toInt(canon, f)}
	}
	no := func(in string) fixCase { return fixCase{in: str(in)} }
	cases := []fixCase{
		num("2.5", 2.5),
		num("-2.5", -2.5),
		num("+2.5", 2.5),
		num(" 2.5\n", 2.5),
		num(".5", 0.5),
		num("-.5", -0.5),
		num("0.001", 0.001),
		num("1e3", 1000),
		num("1E3", 1000),
		num("-1.25e2", -125),
		num("2.5e-3", 0.0025),
		num("1e+2", 100),
		num("5.", 5),
		num("1.7976931348623157e308", math.MaxFloat64),
		num("4.9e-324", 5e-324),
		whole("20", "20", 20),
		whole("-20.0", "-20", -20),
		whole("9007199254740993", "9007199254740993", 9007199254740992),
		no(""),
		no(" "),
		no("NaN"),
		no("nan"),
		no("Infinity"),
		no("-Infinity"),
		no("+Inf"),
		no("1e400"),  // beyond a double: never Infinity
		no("-1e400"), // likewise
		no("0x1p3"),
		no("0x10"),
		no("1_000.5"),
		no("1,5"),
		no("1.2.3"),
		no("e5"),
		no("1e"),
		no("1e+"),
		no("."),
		no("-"),
		no("2.5 m"),
		no("$2.5"),
	}
	runFix(t, "number, string-to-number", l, coerce.Policy{StringToNumber: true}, cases)
	runFix(t, "number, all", l, policyAll, cases)
	// string-to-integer alone does not fire where the schema names number
	// only: the rule there is string-to-number.
	for _, c := range cases {
		runFix(t, "number, string-to-integer only", l, coerce.Policy{StringToInteger: true}, []fixCase{{in: c.in}})
	}
	// At an integer location decimalText never applies: integers only.
	li := policyLoc(t, `{"type":"integer"}`)
	for _, in := range []string{"2.5", "1e3", "-1.25e2", ".5", "5."} {
		runFix(t, "integer, all", li, policyAll, []fixCase{no(in)})
	}
}

func TestPolicyFixBoolean(t *testing.T) {
	l := policyLoc(t, `{"type":"boolean"}`)
	b := func(in string, v bool, rule coerce.Rule) fixCase {
		return fixCase{in: str(in), ok: true, rule: rule, want: Scalar{Type: jsontype.Boolean, Bool: v}}
	}
	no := func(in string) fixCase { return fixCase{in: str(in)} }
	strict := []fixCase{
		b("true", true, coerce.RuleStringToBoolean),
		b("false", false, coerce.RuleStringToBoolean),
		b("FALSE", false, coerce.RuleStringToBoolean),
		b("False", false, coerce.RuleStringToBoolean),
		b("TRUE", true, coerce.RuleStringToBoolean),
		b(" true ", true, coerce.RuleStringToBoolean),
	}
	words := []string{"1", "0", "yes", "no", "on", "off", "YES", "Off"}
	never := []string{"", " ", "t", "f", "y", "n", "2", "-1", "1.0", "truee", "nope", "null", "enabled"}
	cases := slices.Clone(strict)
	for _, w := range append(words, never...) {
		cases = append(cases, no(w))
	}
	runFix(t, "boolean, string-to-boolean", l, coerce.Policy{StringToBoolean: true}, cases)
	runFix(t, "boolean, lenient", l, coerce.Lenient(), cases)

	cases = slices.Clone(strict)
	for _, w := range words {
		v := strings.EqualFold(w, "1") || strings.EqualFold(w, "yes") || strings.EqualFold(w, "on")
		cases = append(cases, b(w, v, coerce.RuleBooleanWords))
	}
	for _, w := range never {
		cases = append(cases, no(w))
	}
	runFix(t, "boolean, all", l, policyAll, cases)
	// boolean-words alone leaves true/false to string-to-boolean.
	runFix(t, "boolean, boolean-words only", l, coerce.Policy{BooleanWords: true}, []fixCase{
		no("true"), no("false"), b("yes", true, coerce.RuleBooleanWords), b("0", false, coerce.RuleBooleanWords),
	})
}

func TestPolicyFixNumberToString(t *testing.T) {
	p := coerce.Policy{NumberToString: true}
	s := func(text string) Scalar { return Scalar{Type: jsontype.String, Text: text} }
	n := func(f float64, lit string) Scalar {
		t := jsontype.Number
		if f == math.Trunc(f) {
			t = jsontype.Integer
		}
		return Scalar{Type: t, Num: f, Text: lit}
	}
	yes := func(in Scalar, text string) fixCase {
		return fixCase{in: in, ok: true, rule: coerce.RuleNumberToString, want: s(text)}
	}
	l := policyLoc(t, `{"type":"string"}`)
	runFix(t, "string", l, p, []fixCase{
		yes(n(12345, ""), "12345"),
		yes(n(12345, "12345"), "12345"),
		yes(n(12345, "1.2345e4"), "12345"),
		yes(n(12345, "12345.0"), "12345"),
		yes(n(1e21, ""), "1000000000000000000000"),
		yes(n(1e21, "1e21"), "1000000000000000000000"),
		yes(n(2.5, ""), "2.5"),
		yes(n(2.5, "2.5"), "2.5"),
		yes(n(-0.25, ""), "-0.25"),
		yes(n(0.0015, ""), "0.0015"),
		yes(n(1e-7, ""), "0.0000001"),
		yes(n(9007199254740993, "9007199254740993"), "9007199254740993"),
		// Literal text and double agree: no exponent, no trailing zeros,
		// whatever path the number took.
		yes(n(2.5, "2.50"), "2.5"),
		yes(n(0.0015, "1.5e-3"), "0.0015"),
		yes(n(1e-7, "1e-7"), "0.0000001"),
		yes(n(1234.56, "123.456e1"), "1234.56"),
		{in: n(math.NaN(), "")},
		{in: n(math.Inf(1), "")},
		{in: Scalar{Type: jsontype.Boolean, Bool: true}},
		{in: Scalar{Type: jsontype.Null}},
	})
	runFix(t, "string or null", policyLoc(t, `{"type":["string","null"]}`), p, []fixCase{yes(n(5, "5"), "5")})
	// Only where strings alone are admitted, to a text the location takes.
	for _, schema := range []string{
		`{"type":["string","integer"]}`,
		`{"anyOf":[{"type":"string"},{"type":"number"}]}`,
		`{"enum":["a","b"]}`,
		`{"type":"string","enum":["10","20"]}`,
		`{"oneOf":[{"type":"string","maxLength":3},{"type":"string","minLength":5}]}`,
		`{"type":"boolean"}`,
		`{"type":"array","items":{"type":"string"}}`,
	} {
		runFix(t, schema, policyLoc(t, schema), policyAll, []fixCase{{in: n(5, "5")}, {in: n(2.5, "")}})
	}
	runFix(t, "enum of digits", policyLoc(t, `{"enum":["10","20"]}`), p, []fixCase{
		yes(n(10, ""), "10"), yes(n(20, "2e1"), "20"), {in: n(30, "30")}, {in: n(10.5, "10.5")},
	})
}

func TestPolicyFixEnumCase(t *testing.T) {
	p := coerce.Policy{EnumCase: true}
	yes := func(in, to string) fixCase {
		return fixCase{in: str(in), ok: true, rule: coerce.RuleEnumCase, want: str(to)}
	}
	no := func(in string) fixCase { return fixCase{in: str(in)} }
	runFix(t, "enum", policyLoc(t, `{"enum":["fast","slow"]}`), p, []fixCase{
		yes("Fast", "fast"), yes("SLOW", "slow"), no("fast"), no("medium"), no("fast "), no(""),
	})
	runFix(t, "typed enum", policyLoc(t, `{"type":"string","enum":["asc","desc"]}`), p, []fixCase{yes("ASC", "asc"), no("up")})
	runFix(t, "const", policyLoc(t, `{"const":"auto"}`), p, []fixCase{yes("AUTO", "auto"), no("auto"), no("manual")})
	runFix(t, "two members equal ignoring case", policyLoc(t, `{"enum":["ab","AB"]}`), p, []fixCase{no("ab"), no("AB"), no("Ab")})
	runFix(t, "free strings beside the enum", policyLoc(t, `{"anyOf":[{"enum":["fast","slow"]},{"type":"string"}]}`), p, []fixCase{no("Fast")})
	runFix(t, "enum beside an integer", policyLoc(t, `{"oneOf":[{"type":"integer"},{"enum":["auto","manual"]}]}`), p, []fixCase{yes("AUTO", "auto"), no("5")})
	runFix(t, "enum through $ref", policyLoc(t, `{"$ref":"#/properties/v/$defs/x","$defs":{"x":{"enum":["Red","Green"]}}}`), p, []fixCase{yes("red", "Red"), yes("GREEN", "Green")})
	runFix(t, "plain string", policyLoc(t, `{"type":"string"}`), p, []fixCase{no("Fast")})
	runFix(t, "enum off", policyLoc(t, `{"enum":["fast","slow"]}`), coerce.Policy{StringToInteger: true, StringToBoolean: true}, []fixCase{no("Fast")})
}

// TestPolicyFixAmbiguous: no rule fires where the value's type is admitted
// or the target is not unambiguous.
func TestPolicyFixAmbiguous(t *testing.T) {
	for _, c := range []struct {
		schema string
		in     Scalar
	}{
		{`{"type":"string"}`, str("20")},
		{`{"type":"string"}`, str("true")},
		{`{"type":["string","integer"]}`, str("5")},
		{`{"anyOf":[{"type":"string"},{"type":"integer"}]}`, str("5")},
		{`{"oneOf":[{"type":"integer"},{"type":"number"}]}`, str("5")},
		{`{"oneOf":[{"type":"integer"},{"enum":["auto"]}]}`, str("5")},
		{`{"oneOf":[{"type":"boolean"},{"const":true}]}`, str("true")},
		{`{}`, str("5")},
		{`true`, str("5")},
		{`{"type":"integer"}`, Scalar{Type: jsontype.Boolean, Bool: true}},
		{`{"type":"integer"}`, Scalar{Type: jsontype.Null}},
		{`{"type":"integer"}`, toInt("5", 5)},
	} {
		s, err := compileDoc(t, []byte(`{"properties":{"v":`+c.schema+`}}`))
		if err != nil {
			t.Fatal(err)
		}
		l := s.Root().Property("v", nil)
		if out, rule, ok := fix(policyAll, l, c.in); ok {
			t.Errorf("%s: %s became %s by %s; want it left alone", c.schema, c.in.JSON(), out.JSON(), rule)
		}
	}
	// oneOf [integer, number]: a fraction takes only the number branch.
	l := policyLoc(t, `{"oneOf":[{"type":"integer"},{"type":"number"}]}`)
	runFix(t, "oneOf integer|number", l, coerce.Lenient(), []fixCase{
		{in: str("5.5"), ok: true, rule: coerce.RuleStringToNumber, want: Scalar{Type: jsontype.Number, Num: 5.5}},
		{in: str("5")},
	})
	// No plan, or the zero Policy: nothing.
	if d := Value(policyAll, nil, str("5")); d.Action != Keep {
		t.Errorf("Value decided %+v without a plan", d)
	}
	if d := Value(coerce.Policy{}, policyLoc(t, `{"type":"integer"}`), str("5")); d.Action != Keep {
		t.Errorf("the zero Policy decided %+v", d)
	}
}

func TestPolicyDropParseWrap(t *testing.T) {
	s, err := compileDoc(t, []byte(`{"type":"object","required":["r"],"properties":{
		"r":{"type":"integer"},"n":{"type":"integer"},"o":{"type":["integer","null"]},
		"s":{"type":"string"},"e":{"enum":["asc","desc"]},"ee":{"enum":["","x"]},
		"ids":{"type":"array","items":{"type":"integer"}},"obj":{"type":"object"},"os":{"type":["object","string"]}}}`))
	if err != nil {
		t.Fatal(err)
	}
	root := s.Root()
	p := coerce.Policy{DropEmpty: true, JSONString: true, WrapScalar: true}
	null := Scalar{Type: jsontype.Null}
	for _, c := range []struct {
		name         string
		v            Scalar
		drop, toNull bool
	}{
		{"n", str(""), true, false},
		{"n", null, true, false},
		{"n", str(" "), false, false},
		{"r", str(""), false, false},
		{"r", null, false, false},
		{"o", str(""), false, true},
		{"o", null, false, false},
		{"s", str(""), false, false},
		{"s", null, true, false},
		{"e", str(""), true, false},
		{"ee", str(""), false, false},
		{"ids", str(""), true, false},
		{"obj", null, true, false},
	} {
		drop, toNull := dropOf(p, root, c.name, root.Property(c.name, nil), c.v)
		if drop != c.drop || toNull != c.toNull {
			t.Errorf("Drop(%s = %s) = %v, %v; want %v, %v", c.name, c.v.JSON(), drop, toNull, c.drop, c.toNull)
		}
		if drop, toNull := dropOf(coerce.Policy{EnumCase: true}, root, c.name, root.Property(c.name, nil), c.v); drop || toNull {
			t.Errorf("Drop without drop-empty fired for %s", c.name)
		}
	}
	for _, c := range []struct {
		name, s string
		want    bool
	}{
		{"ids", "[1,2]", true},
		{"ids", "  [1]", true},
		{"ids", "{}", false},
		{"obj", `{"a":1}`, true},
		{"obj", "[1]", false},
		{"obj", "x", false},
		{"obj", "", false},
		{"os", `{"a":1}`, false},
		{"s", "[1]", false},
		{"n", "[1]", false},
	} {
		if got := parsesJSON(p, root.Property(c.name, nil), c.s); got != c.want {
			t.Errorf("ParseJSON(%s, %q) = %v, want %v", c.name, c.s, got, c.want)
		}
	}
	for _, c := range []struct {
		name string
		t    jsontype.Set
		want bool
	}{
		{"ids", jsontype.Integer, true},
		{"ids", jsontype.String, false},
		{"ids", jsontype.Array, false},
		{"n", jsontype.Integer, false},
		{"obj", jsontype.Integer, false},
	} {
		if got := wraps(p, root.Property(c.name, nil), Scalar{Type: c.t, Text: "x"}); got != c.want {
			t.Errorf("Wrap(%s, %v) = %v, want %v", c.name, c.t, got, c.want)
		}
		if wraps(coerce.Lenient(), root.Property(c.name, nil), Scalar{Type: c.t, Text: "x"}) {
			t.Errorf("Lenient() wraps at %s", c.name)
		}
	}
}

// TestDecisionOrder: one decision per value, in the order the rules are
// tried: embedded JSON, then wrapping, then the scalar rules.
func TestDecisionOrder(t *testing.T) {
	s, err := compileDoc(t, []byte(`{"type":"object","properties":{
		"ids":{"type":"array","items":{"type":"integer"}},
		"tags":{"type":"array","items":{"type":"string"}},
		"n":{"type":"integer"},
		"speed":{"enum":["fast","slow"]}}}`))
	if err != nil {
		t.Fatal(err)
	}
	root := s.Root()
	all := policyAll
	for _, c := range []struct {
		why    string
		member string
		v      Scalar
		p      coerce.Policy
		want   Decision
		// unparsed is the decision after the embedded JSON did not parse.
		unparsed Decision
	}{
		{why: "a JSON array in a string where only arrays stand", member: "ids", v: str("[1,2]"), p: all,
			want: Decision{Action: ParseJSON, Rule: coerce.RuleJSONString}},
		{why: "text that looks like an array but is none falls back to wrapping, when the item takes strings", member: "tags", v: str("[oops"), p: all,
			want: Decision{Action: ParseJSON, Rule: coerce.RuleJSONString}, unparsed: Decision{Action: Wrap, Rule: coerce.RuleWrapScalar}},
		{why: "without json-string the same text is wrapped at once", member: "tags", v: str("[oops"), p: coerce.Policy{WrapScalar: true},
			want: Decision{Action: Wrap, Rule: coerce.RuleWrapScalar}, unparsed: Decision{Action: Wrap, Rule: coerce.RuleWrapScalar}},
		{why: "a scalar where an array of its kind stands is wrapped before any scalar rule", member: "ids", v: Scalar{Type: jsontype.Integer, Num: 5, Text: "5"}, p: all,
			want: Decision{Action: Wrap, Rule: coerce.RuleWrapScalar}, unparsed: Decision{Action: Wrap, Rule: coerce.RuleWrapScalar}},
		{why: "a quoted integer is replaced", member: "n", v: str("7"), p: all,
			want:     Decision{Action: Replace, Rule: coerce.RuleStringToInteger, Out: Scalar{Type: jsontype.Integer, Num: 7, Text: "7"}},
			unparsed: Decision{Action: Replace, Rule: coerce.RuleStringToInteger, Out: Scalar{Type: jsontype.Integer, Num: 7, Text: "7"}}},
		{why: "enum case is a replacement", member: "speed", v: str("FAST"), p: all,
			want:     Decision{Action: Replace, Rule: coerce.RuleEnumCase, Out: str("fast")},
			unparsed: Decision{Action: Replace, Rule: coerce.RuleEnumCase, Out: str("fast")}},
		{why: "an admitted value is kept", member: "n", v: Scalar{Type: jsontype.Integer, Num: 7}, p: all},
		{why: "the zero policy keeps everything", member: "n", v: str("7")},
	} {
		l := root.Property(c.member, nil)
		if got := Value(c.p, l, c.v); got != c.want {
			t.Errorf("%s: Value = %+v, want %+v", c.why, got, c.want)
		}
		if got := Unparsed(c.p, l, c.v); got != c.unparsed {
			t.Errorf("%s: Unparsed = %+v, want %+v", c.why, got, c.unparsed)
		}
	}
	if d := Member(all, root, "n", root.Property("n", nil), str("")); d.Action != Drop || d.Rule != coerce.RuleDropEmpty {
		t.Errorf("an optional empty member: %+v, want a drop", d)
	}
}

// TestLongDigitStringsStayStrings: a repair never makes a number longer
// than the codec reads (jsontext.DefaultMaxDigits), which would cost
// validation more than linear work.
func TestLongDigitStringsStayStrings(t *testing.T) {
	l := policyLoc(t, `{"type":"integer"}`)
	ok := strings.Repeat("7", jsontext.DefaultMaxDigits)
	if d := Value(policyAll, l, str(ok)); d.Action != Replace {
		t.Errorf("%d digits: %+v, want a repair", len(ok), d)
	}
	long := strings.Repeat("7", jsontext.DefaultMaxDigits+10)
	if d := Value(policyAll, l, str(long)); d.Action != Keep {
		t.Errorf("%d digits: %+v, want the string kept", len(long), d.Action)
	}
}
