package jsontext

import (
	"encoding/json"
	"errors"
	"math"
	"slices"
	"strings"
	"testing"

	"google.golang.org/protobuf/types/known/structpb"
)

// writeValue writes v as structconv.Marshal does without a schema:
// members sorted by name, numbers by AppendFloat, strings escaped.
func writeValue(t testing.TB, b []byte, v *structpb.Value) []byte {
	switch k := v.GetKind().(type) {
	case *structpb.Value_NullValue:
		return append(b, "null"...)
	case *structpb.Value_BoolValue:
		if k.BoolValue {
			return append(b, "true"...)
		}
		return append(b, "false"...)
	case *structpb.Value_NumberValue:
		return AppendFloat(b, k.NumberValue)
	case *structpb.Value_StringValue:
		b, _ = AppendString(b, k.StringValue)
		return b
	case *structpb.Value_StructValue:
		fields := k.StructValue.GetFields()
		names := make([]string, 0, len(fields))
		for n := range fields {
			names = append(names, n)
		}
		slices.Sort(names)
		b = append(b, '{')
		for i, n := range names {
			if i > 0 {
				b = append(b, ',')
			}
			b, _ = AppendString(b, n)
			b = append(b, ':')
			b = writeValue(t, b, fields[n])
		}
		return append(b, '}')
	case *structpb.Value_ListValue:
		b = append(b, '[')
		for i, e := range k.ListValue.GetValues() {
			if i > 0 {
				b = append(b, ',')
			}
			b = writeValue(t, b, e)
		}
		return append(b, ']')
	}
	t.Fatalf("no kind: %v", v)
	return nil
}

// valueOf builds the Value of a decoded tree (numbers as doubles).
func valueOf(t testing.TB, x any) *structpb.Value {
	switch x := x.(type) {
	case map[string]any:
		s := &structpb.Struct{Fields: map[string]*structpb.Value{}}
		for k, e := range x {
			s.Fields[k] = valueOf(t, e)
		}
		return structpb.NewStructValue(s)
	case []any:
		l := &structpb.ListValue{}
		for _, e := range x {
			l.Values = append(l.Values, valueOf(t, e))
		}
		return structpb.NewListValue(l)
	case json.Number:
		f, err := ParseFloat(string(x))
		if err != nil {
			return structpb.NewNumberValue(math.Copysign(math.MaxFloat64, f))
		}
		return structpb.NewNumberValue(f)
	case string:
		return structpb.NewStringValue(x)
	case bool:
		return structpb.NewBoolValue(x)
	}
	return structpb.NewNullValue()
}

type valueTok struct {
	kind  Kind
	text  string
	plain bool
}

// readTokens reads every token of d, up to EOF or an error.
func readTokens(d *Decoder) ([]valueTok, error) {
	var out []valueTok
	for {
		peek := d.Peek()
		k, err := d.Next()
		if err != nil {
			return out, err
		}
		// Over a tree, Peek foretells every token (text's Peek judges the
		// next byte, which may be a ',' or ':').
		if d.src != nil && peek != k && !(peek == String && k == Name) {
			return out, errors.New("Peek said " + peek.String() + ", Next read " + k.String())
		}
		tok := valueTok{kind: k, text: d.Text()}
		if k == Number {
			tok.plain = d.Plain()
		}
		if k == Bool && (d.Bool() != (tok.text == "true")) {
			return out, errors.New("Bool disagrees with the text " + tok.text)
		}
		out = append(out, tok)
		if k == EOF {
			return out, nil
		}
	}
}

// checkValueTokens: a tree read with ResetValue gives the tokens of the
// text writeValue writes for it.
func checkValueTokens(t *testing.T, v *structpb.Value) {
	t.Helper()
	text := string(writeValue(t, nil, v))
	want, err := readTokens(NewDecoder(text, Options{MaxDepth: MaxDepthLimit, MaxDigits: len(text) + 1}))
	if err != nil {
		t.Fatalf("%s: %v", text, err)
	}
	var d Decoder
	d.ResetValue(v, Options{MaxDepth: MaxDepthLimit})
	got, err := readTokens(&d)
	if err != nil {
		t.Fatalf("%s as a tree: %v", text, err)
	}
	if !slices.Equal(got, want) {
		t.Fatalf("%s as a tree:\n got  %v\n want %v", text, got, want)
	}
	if d.Offset() != -1 || d.Start() != -1 {
		t.Errorf("%s as a tree: Offset %d, Start %d, want -1", text, d.Offset(), d.Start())
	}
}

// TestValueTokens: a Value tree reads as the tokens of its JSON text:
// member order, escapes, numbers (whole, big, tiny, negative zero),
// nesting.
func TestValueTokens(t *testing.T) {
	for _, text := range []string{
		`null`, `true`, `false`, `0`, `-0`, `5`, `2.5`, `1e21`, `1e-7`, `123456789012345678901`,
		`9007199254740993`, `-1.5e300`, `"x"`, `"é\n\"\u0000😀"`, `{}`, `[]`,
		`{"b":1,"a":[true,null,{"z":"", "y":[[]]}],"":{"\\":-2}}`,
		`[1,[2,[3,[4]]],{"k":{"k":{"k":0.1}}}]`,
	} {
		var x any
		d := json.NewDecoder(strings.NewReader(text))
		d.UseNumber()
		if err := d.Decode(&x); err != nil {
			t.Fatal(err)
		}
		checkValueTokens(t, valueOf(t, x))
	}
}

// FuzzValueTokens: any document, as a tree of doubles, reads as the
// tokens of the text written for it.
func FuzzValueTokens(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		x, err := Decode(data, Options{MaxDepth: 200, MaxDigits: 400, AllowDuplicateNames: true})
		if err != nil {
			return
		}
		checkValueTokens(t, valueOf(t, x))
	})
}

// TestValueErrors: what no JSON text can hold fails as the text's writer
// would, without an offset, and the error stays.
func TestValueErrors(t *testing.T) {
	deep := structpb.NewNullValue()
	for range 5 {
		deep = structpb.NewListValue(&structpb.ListValue{Values: []*structpb.Value{deep}})
	}
	for _, c := range []struct {
		v    *structpb.Value
		o    Options
		kind ErrorKind
		msg  string
	}{
		{structpb.NewNumberValue(math.NaN()), Options{}, ErrNumber, "NaN cannot be written as a JSON number"},
		{structpb.NewListValue(&structpb.ListValue{Values: []*structpb.Value{structpb.NewNumberValue(math.Inf(-1))}}), Options{}, ErrNumber, "-Inf"},
		{structpb.NewStringValue("a\xffb"), Options{}, ErrUTF8, "string is not valid UTF-8"},
		{structpb.NewStructValue(&structpb.Struct{Fields: map[string]*structpb.Value{"\xff": structpb.NewNullValue()}}), Options{}, ErrUTF8, "member name"},
		{&structpb.Value{}, Options{}, ErrSyntax, "no kind"},
		{structpb.NewListValue(&structpb.ListValue{Values: []*structpb.Value{nil}}), Options{}, ErrSyntax, "no kind"},
		{deep, Options{MaxDepth: 4}, ErrDepth, "nesting deeper than 4 levels"},
	} {
		var d Decoder
		d.ResetValue(c.v, c.o)
		_, err := readTokens(&d)
		var se *SyntaxError
		if !errors.As(err, &se) || se.Kind != c.kind || se.Offset != -1 || !strings.Contains(se.Msg, c.msg) || strings.Contains(se.Error(), "byte") {
			t.Errorf("%v: %v, want a %v error saying %q without an offset", c.v, err, c.kind, c.msg)
			continue
		}
		if _, again := d.Next(); again != err {
			t.Errorf("%v: the next read says %v, want the same error", c.v, again)
		}
	}
	var d Decoder
	d.ResetValue(deep, Options{MaxDepth: 6})
	if _, err := readTokens(&d); err != nil {
		t.Errorf("6 levels under a limit of 6: %v", err)
	}
}

// TestValueDouble: a number read from a tree is the double it holds
// (Double), beside its shortest form as the token's text; other tokens,
// and every token read from text, have none.
func TestValueDouble(t *testing.T) {
	v, err := structpb.NewValue(map[string]any{"a": float64(1 << 60), "b": "1152921504606846976", "c": []any{0.5}})
	if err != nil {
		t.Fatal(err)
	}
	var d Decoder
	d.ResetValue(v, Options{})
	var got []string
	for {
		k, err := d.Next()
		if err != nil {
			t.Fatal(err)
		}
		if k == EOF {
			break
		}
		if f, ok := d.Double(); ok {
			got = append(got, d.Text()+"="+strconvExact(f))
		} else if k == Number {
			t.Errorf("number %s read from a tree without its double", d.Text())
		}
	}
	if want := []string{"1152921504606847000=1152921504606846976", "0.5=0.5"}; !slices.Equal(got, want) {
		t.Errorf("doubles %q, want %q", got, want)
	}
	d.Reset(`[1152921504606847000]`, Options{})
	for k, err := d.Next(); k != EOF && err == nil; k, err = d.Next() {
		if _, ok := d.Double(); ok {
			t.Errorf("text token %s has a double", d.Text())
		}
	}
}

func strconvExact(f float64) string {
	if IsWhole(f) {
		return string(AppendWhole(nil, f))
	}
	return string(AppendFloat(nil, f))
}
