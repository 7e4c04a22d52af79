package jsonvalue_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"google.golang.org/protobuf/types/known/structpb"

	"github.com/structkit/structkit/jsonvalue"
	"github.com/structkit/structkit/structconv"
)

// TestSyntaxError: the reader's errors are *structconv.Error with the
// code Unmarshal gives the fault, its offset and its place, under the
// limits the Options set.
func TestSyntaxError(t *testing.T) {
	for _, tc := range []struct {
		src  string
		o    jsonvalue.Options
		code structconv.ErrorCode
		off  int
		path string
	}{
		{`{"a": 007}`, jsonvalue.Options{}, structconv.CodeSyntax, 7, "/a"},
		{`{"a":1,"a":2}`, jsonvalue.Options{}, structconv.CodeDuplicateKey, 7, "/a"},
		{"[\"\xff\"]", jsonvalue.Options{}, structconv.CodeInvalidUTF8, 2, "/0"},
		{`[[[1]]]`, jsonvalue.Options{MaxDepth: 2}, structconv.CodeDepth, 2, "/0/0"},
		{`[12345]`, jsonvalue.Options{MaxDigits: 4}, structconv.CodeNumber, 1, "/0"},
	} {
		for name, read := range map[string]func() error{
			"Decode":  func() error { _, err := tc.o.Decode(tc.src); return err },
			"Compact": func() error { _, err := tc.o.Compact(nil, tc.src); return err },
			"Indent":  func() error { _, err := tc.o.Indent(nil, tc.src, "  "); return err },
			"Decoder": func() error {
				d := tc.o.NewDecoder(tc.src)
				for {
					k, err := d.Next()
					if err != nil || k == 0 {
						return err
					}
				}
			},
		} {
			var se *structconv.Error
			if err := read(); !errors.As(err, &se) || se.Code != tc.code || se.Offset != tc.off || se.Path != tc.path || se.Msg == "" {
				t.Errorf("%s(%q): %#v, want a *structconv.Error (%s) at %d, %s", name, tc.src, err, tc.code, tc.off, tc.path)
				continue
			}
			// Unmarshal's code for the same text (a Struct holds an object).
			var ue *structconv.Error
			if err := (structconv.UnmarshalOptions{MaxDepth: tc.o.MaxDepth, MaxNumberDigits: tc.o.MaxDigits}).Unmarshal([]byte(tc.src), &structpb.Value{}); !errors.As(err, &ue) || ue.Code != se.Code || ue.Offset != se.Offset || ue.Path != se.Path {
				t.Errorf("%s(%q): %v; Unmarshal: %v", name, tc.src, se, err)
			}
		}
	}
	if _, err := jsonvalue.Loose.Members(`{"a":1,"a":2}`); err != nil {
		t.Errorf("Loose refuses repeated names: %v", err)
	}
}

// TestDecoder walks a document by tokens, with offsets and kinds.
func TestDecoder(t *testing.T) {
	src := `{"a": [1, "x"], "b\u0021": {"c": null}}`
	d := jsonvalue.Options{}.NewDecoder(src)
	if d.Peek() != '{' {
		t.Errorf("Peek at the start: %s", d.Peek())
	}
	var got []string
	for {
		k, err := d.Next()
		if err != nil {
			t.Fatal(err)
		}
		if k == 0 {
			break
		}
		got = append(got, fmt.Sprintf("%s %q", k, src[d.Start():d.End()]))
		if k == ':' && d.Text() == "b!" {
			if d.Peek() != 0 {
				t.Errorf("Peek at the ':' after b!: %s", d.Peek())
			}
			if k, _ := d.Next(); k != '{' {
				t.Fatalf("%s after b!", k)
			}
			start := d.Start()
			end, err := d.SkipValue()
			if err != nil || src[start:end] != `{"c": null}` {
				t.Errorf("SkipValue: %q, %v", src[start:end], err)
			}
		}
	}
	want := []string{`an object "{"`, `a member name "\"a\""`, `an array "["`, `a number "1"`, `a string "\"x\""`, `']' "]"`, `a member name "\"b\\u0021\""`, `'}' "}"`}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got  %q\nwant %q", got, want)
	}

	d = jsonvalue.Options{}.NewDecoder(src)
	if k, _ := d.Next(); k != '{' {
		t.Fatal(k)
	}
	var names []string
	done, err := d.EachMember(func(m jsonvalue.Member) bool {
		names = append(names, m.Name+"="+src[m.Start:m.End])
		return true
	})
	if !done || err != nil || !reflect.DeepEqual(names, []string{`a=[1, "x"]`, `b!={"c": null}`}) {
		t.Errorf("EachMember: %q, %v, %v", names, done, err)
	}
}

// TestNumbers: the number helpers say no to text that is not a number
// literal, rather than reading it.
func TestNumbers(t *testing.T) {
	for lit, want := range map[string]string{"12.50e1": "125", "-0.0": "0", "1e3": "1000", "1.5": "", "x": "", `"1"`: "", "": "", "007": ""} {
		if got, ok := jsonvalue.IntegerDigits(lit); got != want || ok != (want != "") {
			t.Errorf("IntegerDigits(%q) = %q, %v", lit, got, ok)
		}
	}
}

// TestPointers: building, splitting and placing JSON Pointers.
func TestPointers(t *testing.T) {
	ptr := jsonvalue.AppendIndex(jsonvalue.AppendToken(nil, "a/b~c"), 3)
	if string(ptr) != "/a~1b~0c/3" {
		t.Errorf("pointer %s", ptr)
	}
	if toks, ok := jsonvalue.SplitPointer(string(ptr)); !ok || !reflect.DeepEqual(toks, []string{"a/b~c", "3"}) {
		t.Errorf("SplitPointer: %q, %v", toks, ok)
	}
	if _, ok := jsonvalue.SplitPointer("a"); ok {
		t.Error("SplitPointer accepts a pointer without '/'")
	}
	src := "{\"a/b~c\": [0, 1, 2,\n 3]}"
	off, ok := jsonvalue.ValueAt(src, string(ptr))
	if !ok || src[off:off+1] != "3" || jsonvalue.PointerAt(src, off) != string(ptr) {
		t.Errorf("ValueAt: %d, %v", off, ok)
	}
	if line, col := jsonvalue.LineCol(src, off); line != 2 || col != 2 {
		t.Errorf("LineCol: %d:%d", line, col)
	}
}

// TestWriters: Marshal and AppendString write as
// encoding/json does without HTML escaping; Compact and Indent keep the
// tokens as written.
func TestWriters(t *testing.T) {
	v := map[string]any{"z": json.Number("1.50"), "a": []any{"<é>", nil, true}}
	b, err := jsonvalue.Marshal(v)
	if err != nil || string(b) != `{"a":["<é>",null,true],"z":1.50}` {
		t.Errorf("Marshal: %s, %v", b, err)
	}
	if b, _ := jsonvalue.AppendString([]byte("x"), "\n"); string(b) != `x"\n"` {
		t.Errorf("AppendString: %s", b)
	}
	if _, ok := jsonvalue.AppendString(nil, "\xff"); ok {
		t.Error("AppendString accepts invalid UTF-8")
	}
	if b, _ := (jsonvalue.Options{}).Compact(nil, "{ \"a\" : [ 1.50 , \"\\u0041\" ] }"); string(b) != `{"a":[1.50,"\u0041"]}` {
		t.Errorf("Compact: %s", b)
	}
	if b, _ := (jsonvalue.Options{}).Indent(nil, `{"a":[1,{}]}`, "  "); string(b) != "{\n  \"a\": [\n    1,\n    {}\n  ]\n}" {
		t.Errorf("Indent: %s", b)
	}
	m, err := jsonvalue.Options{}.Members(`{"a": [1, 2], "b": "x"}`)
	e, err2 := jsonvalue.Options{}.Elements(m["a"])
	if err != nil || err2 != nil || m["b"] != `"x"` || !reflect.DeepEqual(e, []string{"1", "2"}) {
		t.Errorf("Members, Elements: %q, %q, %v, %v", m, e, err, err2)
	}
}

// The exact number a document holds is kept as written, and a mistake is
// placed by line, column and JSON Pointer.
func Example() {
	v, _ := jsonvalue.Options{}.Decode(`{"id": 9007199254740993}`)
	fmt.Println(v.(map[string]any)["id"])

	src := "{\"ids\": [1,\n 2, 03]}"
	_, err := jsonvalue.Options{}.Decode(src)
	var se *structconv.Error
	if errors.As(err, &se) {
		line, col := jsonvalue.LineCol(src, se.Offset)
		fmt.Printf("%d:%d %s: %s\n", line, col, se.Path, se.Msg)
	}
	// Output:
	// 9007199254740993
	// 2:6 /ids/2: malformed number, a leading zero
}

// TestDecoderAllocs: reading tokens allocates nothing per token (an
// errors.As target on the path of every Next cost an allocation per
// token, 95 MB for an 8 MiB result of integers).
func TestDecoderAllocs(t *testing.T) {
	src := "[" + strings.Repeat("12345,", 1000) + "0]"
	allocs := testing.AllocsPerRun(10, func() {
		d := jsonvalue.Loose.NewDecoder(src)
		for {
			k, err := d.Next()
			if err != nil || k == 0 {
				break
			}
		}
	})
	if allocs > 5 {
		t.Errorf("%.0f allocations reading 1002 tokens", allocs)
	}
}

// TestKinds: Next and Peek give each token the byte it starts with
// (':' for a member name), and 0 at the end; String words each as the
// token layer does.
func TestKinds(t *testing.T) {
	const doc = ` {"a": [null, false, true, -1, "s"], "b": {}} `
	want := []struct {
		k    jsonvalue.Kind
		word string
	}{
		{'{', "an object"}, {':', "a member name"}, {'[', "an array"}, {'n', "null"}, {'f', "a boolean"},
		{'t', "a boolean"}, {'0', "a number"}, {'"', "a string"}, {']', "']'"}, {':', "a member name"},
		{'{', "an object"}, {'}', "'}'"}, {'}', "'}'"}, {0, "end of input"},
	}
	d := jsonvalue.Options{}.NewDecoder(doc)
	for i, w := range want {
		k, err := d.Next()
		if err != nil {
			t.Fatalf("token %d: %v", i, err)
		}
		if k != w.k || k.String() != w.word {
			t.Errorf("token %d at %d: kind %q (%s), want %q (%s)", i, d.Start(), k, k, w.k, w.word)
		}
	}
	// Peek judges by the next byte alone: a name is a '"' to it, and a
	// byte no token starts with (a ',' it has not read past) is 0.
	for doc, want := range map[string]jsonvalue.Kind{" {": '{', "[": '[', `"a"`: '"', "-1": '0', "7": '0',
		"true": 't', "false": 'f', "null": 'n', "]": ']', "}": '}', "": 0, " ": 0, ",": 0, "?": 0} {
		if k := (jsonvalue.Options{}).NewDecoder(doc).Peek(); k != want {
			t.Errorf("Peek %q: %q, want %q", doc, k, want)
		}
	}
	if s := jsonvalue.Kind('x').String(); s != "invalid" {
		t.Errorf("Kind('x') is %q", s)
	}
}
