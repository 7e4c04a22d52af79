package jsontext

import (
	"bytes"
	"encoding/json"
	"errors"
	"runtime"
	"strings"
	"testing"
)

func TestSkipValue(t *testing.T) {
	src := ` {"a": [1, {"b": "}"}], "c" : 2.50, "d":{}} `
	d := NewDecoder(src, Options{})
	var got []string
	if k, _ := d.Next(); k != ObjectOpen {
		t.Fatal("no object")
	}
	for {
		k, err := d.Next()
		if err != nil {
			t.Fatal(err)
		}
		if k == ObjectClose {
			break
		}
		if _, err := d.Next(); err != nil {
			t.Fatal(err)
		}
		start := d.Start()
		end, err := d.SkipValue()
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, src[start:end])
	}
	if want := `[1, {"b": "}"}]|2.50|{}`; strings.Join(got, "|") != want {
		t.Errorf("spans %q, want %q", strings.Join(got, "|"), want)
	}
	if k, err := d.Next(); k != EOF || err != nil {
		t.Errorf("after the document: %v %v", k, err)
	}
	// An error inside the value is the Decoder's.
	d = NewDecoder(`[1, 007]`, Options{})
	d.Next()
	var se *SyntaxError
	if _, err := d.SkipValue(); !errors.As(err, &se) || se.Offset != 5 {
		t.Errorf("err = %v, want the leading zero at byte 5", err)
	}
}

func TestCompact(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{` { "a" : [ 1 , 2.50e1 , "x \" y\u00e9" ] , "b" : { } , "c" : [ ] , "d" : null } `, `{"a":[1,2.50e1,"x \" y\u00e9"],"b":{},"c":[],"d":null}`},
		{"\n7\n", `7`},
		{`[[],[{}],true,false]`, `[[],[{}],true,false]`},
	} {
		got, err := Compact(nil, tc.in, Options{})
		if err != nil || string(got) != tc.want {
			t.Errorf("Compact(%q) = %s, %v; want %s", tc.in, got, err, tc.want)
		}
		// As encoding/json compacts it.
		var b bytes.Buffer
		if err := json.Compact(&b, []byte(tc.in)); err != nil || b.String() != string(got) {
			t.Errorf("json.Compact(%q) = %s, ours %s", tc.in, b.String(), got)
		}
	}
	for _, in := range []string{`[1,]`, `{"a":1,"a":2}`, `007`, `"\ud800"`, `[1] 2`} {
		var se *SyntaxError
		if _, err := Compact(nil, in, Options{}); !errors.As(err, &se) {
			t.Errorf("Compact(%q): err = %v, want a *SyntaxError", in, err)
		}
	}
	if got, err := Compact(nil, `{"a":1,"a":2}`, Loose); err != nil || string(got) != `{"a":1,"a":2}` {
		t.Errorf("Loose keeps repeated names: %s %v", got, err)
	}
}

func TestPointerAt(t *testing.T) {
	src := `{"a": [10, {"b~/": true}], "c": 3}`
	for _, tc := range []struct {
		at   string // the text at the offset
		want string
	}{
		{`{"a"`, ""},
		{`"a"`, "/a"},
		{`[10`, "/a"},
		{`10`, "/a/0"},
		{`, {`, "/a"},
		{`{"b~/"`, "/a/1"},
		{`"b~/"`, "/a/1/b~0~1"},
		{`true`, "/a/1/b~0~1"},
		{`}]`, "/a/1"},
		{`]`, "/a"},
		{`, "c"`, ""},
		{`"c"`, "/c"},
		{`3}`, "/c"},
	} {
		off := strings.Index(src, tc.at)
		if got := PointerAt(src, off); got != tc.want {
			t.Errorf("PointerAt(%d: %s) = %q, want %q", off, tc.at, got, tc.want)
		}
	}
	if got := PointerAt(src, len(src)-1); got != "" {
		t.Errorf("PointerAt(the last brace) = %q, want the root", got)
	}
	if got := PointerAt(src+" x", len(src)+1); got != "" {
		t.Errorf("PointerAt(after the document) = %q, want the root", got)
	}
	// At the error of a document that breaks off, the value that failed.
	bad := `{"ids": [1, 2, 007]}`
	_, err := DecodeString(bad, Options{})
	var se *SyntaxError
	if !errors.As(err, &se) {
		t.Fatal(err)
	}
	if got := PointerAt(bad, se.Offset); got != "/ids/2" {
		t.Errorf("PointerAt(the error) = %q, want /ids/2", got)
	}
	if got := PointerAt(`[`+strings.Repeat(`[`, 3000), 3000); got != strings.Repeat("/0", 3000) {
		t.Errorf("deep: %d bytes", len(got))
	}
}

// TestPointerAtLinear: placing an offset n levels deep costs O(n)
// memory, not a pointer per level (O(n²): 20 GB at the reader's 100000
// levels, which a hostile frame reaches). Bytes allocated are counted,
// not time taken.
func TestPointerAtLinear(t *testing.T) {
	const depth = 50000
	src := strings.Repeat(`[`, depth+1)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	got := PointerAt(src, depth)
	runtime.ReadMemStats(&after)
	if got != strings.Repeat("/0", depth) {
		t.Fatalf("deep: %d bytes", len(got))
	}
	if n := after.TotalAlloc - before.TotalAlloc; n > 1024*depth { // some 240 bytes a level; a pointer per level is 50000 times that
		t.Errorf("PointerAt %d levels deep allocated %d bytes, want O(n)", depth, n)
	}
}

func FuzzCompact(f *testing.F) {
	for _, s := range []string{`{"a": [1, 2]}`, ` "x\n" `, `[{}, [], null]`, `{"a":1,"a":2}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		got, err := Compact(nil, in, Loose)
		if err != nil {
			return
		}
		var b bytes.Buffer
		if err := json.Compact(&b, []byte(in)); err != nil {
			t.Fatalf("%q: ours compacts, encoding/json: %v", in, err)
		}
		if b.String() != string(got) {
			t.Fatalf("%q: %s, encoding/json %s", in, got, b.String())
		}
		for i := 0; i <= len(in); i++ {
			PointerAt(in, i)
		}
	})
}

func TestMembersElements(t *testing.T) {
	m, err := Members(` {"a": [1, 2] ,"b\u0021":"x", "c":{ }} `, Options{})
	if err != nil || len(m) != 3 || m["a"] != "[1, 2]" || m["b!"] != `"x"` || m["c"] != "{ }" {
		t.Errorf("Members = %q, %v", m, err)
	}
	if m, err := Members(`[1]`, Options{}); m != nil || err != nil {
		t.Errorf("Members of an array = %q, %v; want nil, nil", m, err)
	}
	a, err := Elements(`[ {"a":1}, 2.50 ,"]"]`, Options{})
	if err != nil || strings.Join(a, "|") != `{"a":1}|2.50|"]"` {
		t.Errorf("Elements = %q, %v", a, err)
	}
	if a, err := Elements(`[]`, Options{}); a == nil || len(a) != 0 || err != nil {
		t.Errorf("Elements of [] = %#v, %v", a, err)
	}
	if a, err := Elements(`{}`, Options{}); a != nil || err != nil {
		t.Errorf("Elements of an object = %q, %v; want nil, nil", a, err)
	}
	for _, in := range []string{`{"a":1,"a":2}`, `{"a":1} x`, `{"a":007}`, `[1,]`, `{"a":[}`} {
		var se *SyntaxError
		if _, err := Members(in, Options{}); !errors.As(err, &se) {
			t.Errorf("Members(%q): err = %v", in, err)
		}
	}
	if m, err := Members(`{"a":1,"a":2}`, Loose); err != nil || m["a"] != "2" {
		t.Errorf("Loose keeps the last: %q %v", m, err)
	}
}

func FuzzMembers(f *testing.F) {
	for _, s := range []string{`{"a": [1, 2]}`, `[{}, [], null]`, `{"a":1,"a":2}`, `{"a":[}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		m, err := Members(in, Loose)
		if err == nil && m != nil {
			for _, v := range m {
				if _, err := DecodeString(v, Loose); err != nil {
					t.Fatalf("%q: member %q does not read: %v", in, v, err)
				}
			}
		}
		a, err := Elements(in, Loose)
		if err == nil && a != nil {
			for _, v := range a {
				if _, err := DecodeString(v, Loose); err != nil {
					t.Fatalf("%q: element %q does not read: %v", in, v, err)
				}
			}
		}
	})
}

func TestValueAt(t *testing.T) {
	src := ` {"a": [10, {"b~/": true}], "": [[], 3]} `
	for ptr, want := range map[string]string{
		"":           `{"a"`,
		"/a":         `[10`,
		"/a/0":       `10`,
		"/a/1":       `{"b~/"`,
		"/a/1/b~0~1": `true`,
		"/":          `[[]`,
		"/~1/0":      ``,
		"//0":        `[], 3`,
		"//1":        `3]`,
	} {
		off, ok := ValueAt(src, ptr)
		if want == "" {
			if ok {
				t.Errorf("ValueAt(%q) = %d, want none", ptr, off)
			}
			continue
		}
		if !ok || !strings.HasPrefix(src[off:], want) {
			t.Errorf("ValueAt(%q) = %d %v, want the offset of %s", ptr, off, ok, want)
		}
		if ok && PointerAt(src, off) != ptr {
			t.Errorf("PointerAt(ValueAt(%q)) = %q", ptr, PointerAt(src, off))
		}
	}
	for _, ptr := range []string{"/a/2", "/b", "a", "/a/x"} {
		if off, ok := ValueAt(src, ptr); ok {
			t.Errorf("ValueAt(%q) = %d, want none", ptr, off)
		}
	}
}

func TestIndent(t *testing.T) {
	for _, in := range []string{` { "a" : [ 1 , { } , [ ] , {"b":[[]]} ] , "c" : "x" } `, `7`, `[]`, `{}`, `[[1,2],{"a":{}}]`} {
		got, err := Indent(nil, in, "  ", Options{})
		var b bytes.Buffer
		if jerr := json.Indent(&b, []byte(strings.TrimSpace(in)), "", "  "); err != nil || jerr != nil || b.String() != string(got) {
			t.Errorf("Indent(%q) =\n%s (%v)\nencoding/json:\n%s (%v)", in, got, err, b.String(), jerr)
		}
	}
}

func FuzzIndent(f *testing.F) {
	for _, s := range []string{`{"a": [1, {}, []]}`, `[[{"b":null}]]`, `"x"`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		got, err := Indent(nil, in, "\t", Loose)
		if err != nil {
			return
		}
		var b bytes.Buffer
		if err := json.Indent(&b, []byte(strings.Trim(in, " \t\r\n")), "", "\t"); err != nil {
			t.Fatalf("%q: ours indents, encoding/json: %v", in, err)
		}
		if b.String() != string(got) {
			t.Fatalf("%q:\n%s\nencoding/json:\n%s", in, got, b.String())
		}
	})
}

// TestEachMember: the members of the object just opened, with the offsets
// of their names and values; fn stops the reading; errors come back.
func TestEachMember(t *testing.T) {
	src := `{"a": [1, {"b":2}], "c\u0064" :"x" , "e":{}} tail`
	d := NewDecoder(src, Options{})
	if k, err := d.Next(); err != nil || k != ObjectOpen {
		t.Fatal(k, err)
	}
	var got []string
	done, err := d.EachMember(func(m Member) bool {
		got = append(got, m.Name+"="+src[m.NameStart:m.NameEnd]+"="+src[m.Start:m.End])
		return true
	})
	want := []string{`a="a"=[1, {"b":2}]`, `cd="c\u0064"="x"`, `e="e"={}`}
	if !done || err != nil || strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("%v %v %q", done, err, got)
	}
	d = NewDecoder(src, Options{})
	d.Next()
	n := 0
	if done, err := d.EachMember(func(Member) bool { n++; return n < 2 }); done || err != nil || n != 2 {
		t.Errorf("stopped: %v %v after %d", done, err, n)
	}
	d = NewDecoder(`{"a":1,"b":[}`, Options{})
	d.Next()
	var se *SyntaxError
	if done, err := d.EachMember(func(Member) bool { return true }); done || !errors.As(err, &se) {
		t.Errorf("malformed: %v %v", done, err)
	}
}
