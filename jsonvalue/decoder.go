package jsonvalue

import (
	"slices"
	"strings"

	"github.com/structkit/structkit/internal/jsontext"
)

// Kind is the kind of a token, as encoding/json/jsontext has it: the byte
// the token starts with. 'n' is null, 'f' false, 't' true, '"' a string,
// '0' a number, '{' and '}' an object's open and close, '[' and ']' an
// array's; a member name, to tell it from a string value, is ':' (the byte
// after it). 0 is no token: the end of the document.
type Kind byte

// kinds are the token layer's kinds as this package's; false is 'f' (kind).
var kinds = [...]Kind{jsontext.Null: 'n', jsontext.Bool: 't', jsontext.Number: '0', jsontext.String: '"',
	jsontext.Name: ':', jsontext.ObjectOpen: '{', jsontext.ObjectClose: '}', jsontext.ArrayOpen: '[', jsontext.ArrayClose: ']'}

// kind is k, the token layer's kind of the token written at src, as a Kind.
func kind(k jsontext.Kind, src string) Kind {
	if k == jsontext.Bool && strings.HasPrefix(src, "f") {
		return 'f'
	}
	return kinds[k]
}

// String describes the kind as messages name what they found: "an
// object", "a number", "end of input".
func (k Kind) String() string {
	if k == 'f' {
		k = 't'
	}
	if i := slices.Index(kinds[:], k); i >= 0 {
		return jsontext.Kind(max(i, int(jsontext.EOF))).String() // 0: the end
	}
	return "invalid"
}

// A Decoder reads one document from a string as a sequence of tokens,
// each with the byte offset at which it starts, under the Options it was
// made with. Its errors are *structconv.Error (see the package doc).
type Decoder struct{ d *jsontext.Decoder }

// NewDecoder returns a Decoder reading the document s under o.
func (o Options) NewDecoder(s string) *Decoder { return &Decoder{jsontext.NewDecoder(s, o.internal())} }

// Next reads the next token and returns its kind; Text, Start and End
// then describe it.
func (d *Decoder) Next() (Kind, error) {
	k, err := d.d.Next()
	return kind(k, d.d.Text()), syntax(d.d.Source(), err)
}

// Text returns the current token's text: a string's or name's value
// unescaped, a number's literal, "true", "false" or "null".
func (d *Decoder) Text() string { return d.d.Text() }

// Start returns the byte offset at which the current token starts.
func (d *Decoder) Start() int { return d.d.Start() }

// End returns the byte offset just past the current token as written
// (past the closing quote of a string or name).
func (d *Decoder) End() int { return d.d.Current().End() }

// Offset returns the offset just past the last token read (past white
// space after it, once Peek has looked beyond).
func (d *Decoder) Offset() int { return d.d.Offset() }

// Peek skips white space and returns the kind of the token that starts at
// the next byte, judging by that byte alone (a '"' is a string, a digit
// or '-' a number); 0 where no token starts: at the end of the input, or
// at a byte no token starts with (Next says which). It reads nothing.
func (d *Decoder) Peek() Kind { return kind(d.d.Peek(), d.d.Source()[d.d.Offset():]) }

// SkipValue reads the rest of the value whose first token the last Next
// returned: for a '{' or '[', every token up to and
// including the matching close; for a scalar, nothing. It returns the
// offset just past the value, so that the source from Start to end is
// the value as written. Called on any other token (a name, a close, the end),
// it reads nothing and returns that token's end.
func (d *Decoder) SkipValue() (end int, err error) {
	end, err = d.d.SkipValue()
	return end, syntax(d.d.Source(), err)
}

// Member is one member of an object as EachMember reads it: its name,
// unescaped, the offsets of its name token (quotes included) and of its
// value's text.
type Member struct {
	Name               string
	NameStart, NameEnd int
	Start, End         int
}

// EachMember reads the members of the object whose '{' d has just
// returned, through its '}', skipping each value, and offers each
// to fn; fn returning false stops the reading there (done false). An
// error of the reader stops it too and is returned.
func (d *Decoder) EachMember(fn func(Member) bool) (done bool, err error) {
	done, err = d.d.EachMember(func(m jsontext.Member) bool { return fn(Member(m)) })
	return done, syntax(d.d.Source(), err)
}
