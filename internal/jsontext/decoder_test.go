package jsontext

import (
	"errors"
	"strings"
	"testing"
)

// tokens reads s to the end, rendering each token as kind:text.
func tokens(s string, o Options) ([]string, error) {
	d := NewDecoder(s, o)
	var out []string
	for {
		t, err := d.Read()
		if err != nil {
			return out, err
		}
		if t.Kind() == EOF {
			return out, nil
		}
		if got := s[t.Offset():t.End()]; t.Kind() == Number && got != t.Text() {
			return out, errors.New("number text " + t.Text() + " is not the input " + got)
		}
		out = append(out, t.Kind().String()+":"+t.Text())
	}
}

// TestGrammar: one table row per rule of RFC 8259, each accepted or refused
// with its kind and offset.
func TestGrammar(t *testing.T) {
	tests := []struct {
		in   string
		kind ErrorKind // 0: accepted
		off  int
		why  string
	}{
		// values
		{`null`, 0, 0, "a literal is a document"},
		{` true `, 0, 0, "white space around the document"},
		{"\t\r\n[false]\n", 0, 0, "the four white space characters"},
		{`nul`, ErrSyntax, 0, "truncated literal"},
		{`nulll`, ErrSyntax, 4, "a literal followed by a letter"},
		{`True`, ErrSyntax, 0, "literals are lower case"},
		{``, ErrSyntax, 0, "empty input"},
		{`   `, ErrSyntax, 3, "only white space"},
		{"\u00a0null", ErrSyntax, 0, "no-break space is not white space"},
		{`null null`, ErrSyntax, 5, "trailing data"},
		{`{}x`, ErrSyntax, 2, "trailing data after an object"},
		// numbers
		{`0`, 0, 0, "zero"},
		{`-0`, 0, 0, "negative zero"},
		{`-0.0e-0`, 0, 0, "every part"},
		{`123456789`, 0, 0, "digits"},
		{`1E+2`, 0, 0, "upper-case exponent with sign"},
		{`007`, ErrSyntax, 1, "leading zeros"},
		{`-01`, ErrSyntax, 2, "leading zero after a minus"},
		{`1.`, ErrSyntax, 2, "a fraction needs a digit"},
		{`.5`, ErrSyntax, 0, "an integer part is required"},
		{`+1`, ErrSyntax, 0, "no plus sign"},
		{`-`, ErrSyntax, 1, "a minus alone"},
		{`- 1`, ErrSyntax, 1, "nothing between minus and digits"},
		{`1e`, ErrSyntax, 2, "an exponent needs a digit"},
		{`1e+`, ErrSyntax, 3, "an exponent's sign needs a digit"},
		{`1.5.3`, ErrSyntax, 3, "two points"},
		{`0x1f`, ErrSyntax, 1, "no hexadecimal"},
		{`[1,-]`, ErrSyntax, 4, "a minus alone in an array"},
		{`Infinity`, ErrSyntax, 0, "no infinity"},
		{`NaN`, ErrSyntax, 0, "no NaN"},
		// strings
		{`""`, 0, 0, "empty string"},
		{`"a\"\\\/\b\f\n\r\tz"`, 0, 0, "every short escape"},
		{`"\u00e9\ud83d\ude00"`, 0, 0, "unicode escapes and a surrogate pair"},
		{`"é😀"`, 0, 0, "UTF-8 as it is"},
		{`"abc`, ErrSyntax, 4, "unterminated"},
		{`"a\`, ErrSyntax, 3, "unterminated in an escape"},
		{`"\x"`, ErrSyntax, 1, "an invalid escape"},
		{`"\u12"`, ErrSyntax, 1, "a short \\u escape"},
		{`"\u12g4"`, ErrSyntax, 1, "a non-hex \\u escape"},
		{"\"a\tb\"", ErrSyntax, 2, "a raw control character"},
		{"\"a\x7fb\"", 0, 0, "DEL needs no escape"},
		{"\"a\xffb\"", ErrUTF8, 2, "invalid UTF-8"},
		{"\"\xed\xa0\x80\"", ErrUTF8, 1, "an encoded surrogate is invalid UTF-8"},
		{`"\ud83d"`, ErrUTF8, 1, "a lone high surrogate"},
		{`"\ude00"`, ErrUTF8, 1, "a lone low surrogate"},
		{`"x\ud83d\u0041"`, ErrUTF8, 2, "a high surrogate followed by a non-surrogate"},
		{`'a'`, ErrSyntax, 0, "no single quotes"},
		// arrays
		{`[]`, 0, 0, "empty array"},
		{`[ 1 , [ ] , {} ]`, 0, 0, "white space everywhere"},
		{`[1,]`, ErrSyntax, 3, "a trailing comma"},
		{`[,1]`, ErrSyntax, 1, "a leading comma"},
		{`[1 2]`, ErrSyntax, 3, "a missing comma"},
		{`[1`, ErrSyntax, 2, "unterminated"},
		{`[1}`, ErrSyntax, 2, "the wrong close"},
		{`]`, ErrSyntax, 0, "a close alone"},
		// objects
		{`{}`, 0, 0, "empty object"},
		{`{ "a" : 1 , "b" : [ ] }`, 0, 0, "white space everywhere"},
		{`{"a":1,}`, ErrSyntax, 7, "a trailing comma"},
		{`{"a" 1}`, ErrSyntax, 5, "a missing colon"},
		{`{"a":}`, ErrSyntax, 5, "a missing value"},
		{`{a:1}`, ErrSyntax, 1, "an unquoted name"},
		{`{1:1}`, ErrSyntax, 1, "a number as a name"},
		{`{"a":1 "b":2}`, ErrSyntax, 7, "a missing comma"},
		{`{"a":1]`, ErrSyntax, 6, "the wrong close"},
		{`{"a":1,"a":2}`, ErrDuplicate, 7, "a repeated name, at its second occurrence"},
		{`{"a":{"a":1},"b":{"a":2}}`, 0, 0, "the same name in different objects"},
		{`{"\u0061":1,"a":2}`, ErrDuplicate, 12, "names are compared unescaped"},
		{"{\"a\xff\":1}", ErrUTF8, 3, "invalid UTF-8 in a name"},
	}
	for _, tt := range tests {
		_, err := tokens(tt.in, Options{})
		if tt.kind == 0 {
			if err != nil {
				t.Errorf("%q: %v, want accepted (%s)", tt.in, err, tt.why)
			}
			continue
		}
		var se *SyntaxError
		if !errors.As(err, &se) {
			t.Errorf("%q: err = %v, want a %v error at %d (%s)", tt.in, err, tt.kind, tt.off, tt.why)
			continue
		}
		if se.Kind != tt.kind || se.Offset != tt.off {
			t.Errorf("%q: %v error at %d (%v), want %v at %d (%s)", tt.in, se.Kind, se.Offset, se, tt.kind, tt.off, tt.why)
		}
		if IsNumber(tt.in) {
			t.Errorf("IsNumber(%q) is true for a refused document", tt.in)
		}
	}
}

func TestIsNumber(t *testing.T) {
	for _, s := range []string{"0", "-0", "1.5", "1e5", "-12.50E-3", "123456789012345678901234567890"} {
		if !IsNumber(s) {
			t.Errorf("IsNumber(%q) = false", s)
		}
	}
	for _, s := range []string{"", "007", "1.", ".5", "+1", "-", "1e", "1e+", " 1", "1 ", "0x1", "1_000", "Infinity"} {
		if IsNumber(s) {
			t.Errorf("IsNumber(%q) = true", s)
		}
	}
}

// TestTokens: the tokens, their text and offsets.
func TestTokens(t *testing.T) {
	in := ` {"a\n" : [1.50e1, "x\u00e9", true, null], "b":{}} `
	got, err := tokens(in, Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"an object:{", "a member name:a\n", "an array:[", "a number:1.50e1", "a string:xé",
		"a boolean:true", "null:null", "']':]", "a member name:b", "an object:{", "'}':}", "'}':}"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("tokens\n%q\nwant\n%q", got, want)
	}
	d := NewDecoder(in, Options{})
	var offs []int
	for {
		tok, err := d.Read()
		if err != nil {
			t.Fatal(err)
		}
		if tok.Kind() == EOF {
			if tok.Offset() != len(in) {
				t.Errorf("EOF at %d, want %d", tok.Offset(), len(in))
			}
			break
		}
		offs = append(offs, tok.Offset())
	}
	wantOffs := []int{1, 2, 10, 11, 19, 30, 36, 40, 43, 47, 48, 49}
	if len(offs) != len(wantOffs) {
		t.Fatalf("offsets %v, want %v", offs, wantOffs)
	}
	for i := range offs {
		if offs[i] != wantOffs[i] {
			t.Fatalf("offsets %v, want %v", offs, wantOffs)
		}
	}
	if tok, _ := d.Read(); tok.Kind() != EOF {
		t.Errorf("after EOF: %v, want EOF again", tok.Kind())
	}
}

func TestPlainAndBool(t *testing.T) {
	d := NewDecoder(`[12, 1.0, 1e2, -3, true, false]`, Options{})
	d.Read()
	for _, want := range []bool{true, false, false, true} {
		tok, _ := d.Read()
		if tok.Plain() != want {
			t.Errorf("%s: Plain() = %v, want %v", tok.Text(), tok.Plain(), want)
		}
	}
	for _, want := range []bool{true, false} {
		if tok, _ := d.Read(); tok.Bool() != want {
			t.Errorf("%s: Bool() = %v", tok.Text(), tok.Bool())
		}
	}
}

// TestLimits: depth and digits, default and configured.
func TestLimits(t *testing.T) {
	nest := func(n int) string { return strings.Repeat("[", n) + strings.Repeat("]", n) }
	tests := []struct {
		in   string
		o    Options
		kind ErrorKind
		off  int
	}{
		{nest(DefaultMaxDepth), Options{}, 0, 0},
		{nest(DefaultMaxDepth + 1), Options{}, ErrDepth, DefaultMaxDepth},
		{nest(3), Options{MaxDepth: 3}, 0, 0},
		{nest(4), Options{MaxDepth: 3}, ErrDepth, 3},
		{`{"a":{"b":{}}}`, Options{MaxDepth: 2}, ErrDepth, 10},
		{nest(MaxDepthLimit + 1), Options{MaxDepth: 1 << 40}, ErrDepth, MaxDepthLimit},
		{strings.Repeat("1", DefaultMaxDigits), Options{}, 0, 0},
		{"[" + strings.Repeat("1", DefaultMaxDigits+1) + "]", Options{}, ErrDigits, 1},
		{"1.5e10", Options{MaxDigits: 4}, 0, 0},
		{"1.5e100", Options{MaxDigits: 4}, ErrDigits, 0},
		{"-0.000", Options{MaxDigits: 4}, 0, 0},
		{`{"a":1,"a":1}`, Options{AllowDuplicateNames: true}, 0, 0},
	}
	for _, tt := range tests {
		_, err := tokens(tt.in, tt.o)
		var se *SyntaxError
		switch {
		case tt.kind == 0 && err != nil:
			t.Errorf("%.40q %+v: %v, want accepted", tt.in, tt.o, err)
		case tt.kind != 0 && (!errors.As(err, &se) || se.Kind != tt.kind || se.Offset != tt.off):
			t.Errorf("%.40q %+v: %v, want %v at %d", tt.in, tt.o, err, tt.kind, tt.off)
		}
	}
}

// TestManyNames: repeated names are found in large objects (past the
// linear comparison) and after a large sibling at the same level.
func TestManyNames(t *testing.T) {
	obj := func(names ...string) string {
		var b strings.Builder
		b.WriteString("{")
		for i, n := range names {
			if i > 0 {
				b.WriteString(",")
			}
			b.WriteString(`"` + n + `":0`)
		}
		return b.String() + "}"
	}
	var many []string
	for i := range 100 {
		many = append(many, strings.Repeat("k", i+1))
	}
	if _, err := tokens(obj(many...), Options{}); err != nil {
		t.Fatalf("100 distinct names: %v", err)
	}
	for _, at := range []int{0, 15, 16, 17, 99} {
		in := obj(append(many[:100:100], many[at])...)
		_, err := tokens(in, Options{})
		var se *SyntaxError
		if !errors.As(err, &se) || se.Kind != ErrDuplicate || se.Offset != strings.LastIndex(in, `"`+many[at]+`"`) {
			t.Errorf("name %d repeated last: %v", at, err)
		}
	}
	// a large object, then a small one at the same level with one of its names
	in := "[" + obj(many...) + "," + obj("k") + "," + obj(many[:20]...) + "]"
	if _, err := tokens(in, Options{}); err != nil {
		t.Errorf("siblings: %v (a set leaked from one object to the next)", err)
	}
	var n Names
	n.Push()
	for i := range 17 {
		n.Add(many[i])
	}
	if !n.Add(many[16]) {
		t.Error("the 17th name again not found")
	}
	n.Pop()
	n.Push()
	if n.Add(many[3]) {
		t.Error("a name of a closed object found")
	}
}

func TestLineCol(t *testing.T) {
	src := "{\n  \"é\": 1,\n\t\"b\": x\n}"
	tests := []struct{ off, line, col int }{
		{0, 1, 1}, {1, 1, 2}, {2, 2, 1}, {9, 2, 7}, {len(src), 4, 2}, {-5, 1, 1}, {1000, 4, 2},
	}
	for _, tt := range tests {
		if l, c := LineCol(src, tt.off); l != tt.line || c != tt.col {
			t.Errorf("LineCol(%d) = %d:%d, want %d:%d", tt.off, l, c, tt.line, tt.col)
		}
	}
	_, err := tokens(src, Options{})
	var se *SyntaxError
	if !errors.As(err, &se) {
		t.Fatal(err)
	}
	if l, c := se.LineCol(); l != 3 || c != 7 {
		t.Errorf("error at %d:%d, want 3:7", l, c)
	}
	if want := "jsontext: 3:7: unexpected 'x', want a value (at byte 19)"; se.Error() != want {
		t.Errorf("Error() = %q, want %q", se.Error(), want)
	}
}

func TestStickyError(t *testing.T) {
	d := NewDecoder(`[1,,2]`, Options{})
	var first error
	for range 5 {
		if _, err := d.Read(); err != nil {
			if first == nil {
				first = err
			} else if err != first {
				t.Fatalf("second error %v differs from the first %v", err, first)
			}
		}
	}
	if first == nil {
		t.Fatal("no error")
	}
}

func TestPeek(t *testing.T) {
	for in, want := range map[string]Kind{" {": ObjectOpen, "[": ArrayOpen, `"`: String, "-1": Number, "t": Bool,
		"n": Null, "": EOF, "  ": EOF, "x": Invalid, ",": Invalid} {
		d := NewDecoder(in, Options{})
		if got := d.Peek(); got != want {
			t.Errorf("Peek(%q) = %v, want %v", in, got, want)
		}
	}
}

func TestReuse(t *testing.T) {
	var d Decoder
	d.Reset(`{"a":{"b":1`, Options{})
	for {
		if _, err := d.Read(); err != nil {
			break
		}
	}
	d.Reset(`{"b":1,"a":2}`, Options{})
	for {
		tok, err := d.Read()
		if err != nil {
			t.Fatalf("after Reset: %v (state of the first document left over)", err)
		}
		if tok.Kind() == EOF {
			break
		}
	}
}

// TestDeepKinds: the kind of each open container is kept past 64 and 128
// levels (where it moves from a word to a slice).
func TestDeepKinds(t *testing.T) {
	var open, close strings.Builder
	for i := range 300 {
		if i%3 == 0 {
			open.WriteString(`{"k":`)
		} else {
			open.WriteString("[")
		}
	}
	for i := 299; i >= 0; i-- {
		if i%3 == 0 {
			close.WriteString("}")
		} else {
			close.WriteString("]")
		}
	}
	in := open.String() + "1" + close.String()
	if _, err := tokens(in, Options{}); err != nil {
		t.Fatal(err)
	}
	// a wrong close at every depth is found
	bad := open.String() + "1" + strings.Replace(close.String(), "]", "}", 1)
	if _, err := tokens(bad, Options{}); err == nil {
		t.Error("a '}' closing an array accepted")
	}
}

// TestNextAndCurrent: Next with the accessors of the current token reads
// what Read hands out.
func TestNextAndCurrent(t *testing.T) {
	in := `{"a\u00e9":[true,false,null,-1.5e3,"x","y\n"],"b":{}}`
	r1, r2 := NewDecoder(in, Options{}), NewDecoder(in, Options{})
	for {
		tok, err := r1.Read()
		k, err2 := r2.Next()
		if (err == nil) != (err2 == nil) || tok.Kind() != k {
			t.Fatalf("Read %v %v, Next %v %v", tok.Kind(), err, k, err2)
		}
		cur := r2.Current()
		if cur != tok || r2.Text() != tok.Text() || r2.Start() != tok.Offset() || r2.Plain() != tok.Plain() || r2.Bool() != tok.Bool() {
			t.Fatalf("current %+v, Read %+v", cur, tok)
		}
		if k == EOF || err != nil {
			break
		}
	}
}

// TestMalformedLiteral: a word that is not true, false or null is named
// as written, not as the literal its first letter starts: "nope" is no
// null.
func TestMalformedLiteral(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`nope`, `unexpected "nope", want a value`},
		{`nul`, `unexpected "nul", want a value`},
		{`tru`, `unexpected "tru", want a value`},
		{`[fals]`, `unexpected "fals", want a value`},
		{`{"a":nan}`, `unexpected "nan", want a value`},
		{`n`, `unexpected "n", want a value`},
		{`n}`, `unexpected "n", want a value`},
		{`nöpe`, `unexpected "n", want a value`},
		{`nopenopenopenopenope`, `unexpected "nopenopenopenope"..., want a value`},
		{`nullx`, `unexpected 'x' after null`},
	} {
		_, err := tokens(tc.in, Options{})
		var se *SyntaxError
		if !errors.As(err, &se) || se.Kind != ErrSyntax || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want a syntax error saying %s", tc.in, err, tc.want)
		}
	}
}
