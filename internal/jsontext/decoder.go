package jsontext

import (
	"strconv"
	"unicode/utf8"
)

// The nesting limits.
const (
	// DefaultMaxDepth is the nesting limit when Options.MaxDepth is zero:
	// structconv.DefaultMaxDepth, the one default of every layer.
	DefaultMaxDepth = 512
	// SchemaMaxDepth is the nesting a schema document is read with: a
	// schema level is two JSON levels (properties, then the member), and
	// the schema model bounds its locations at 1000 JSON Pointer tokens
	// itself. Schemas are not arguments: this limit is not DefaultMaxDepth.
	SchemaMaxDepth = 2000
	// MaxDepthLimit caps Options.MaxDepth, so that the callers' recursion
	// over a document stays far from Go's stack limit.
	MaxDepthLimit = 100000
)

// Options configures a Decoder. The zero value applies the default limits
// and refuses repeated member names.
type Options struct {
	// MaxDepth limits the nesting of arrays and objects: a document of
	// MaxDepth levels is read, one more fails with ErrDepth. 0 or less
	// means DefaultMaxDepth; more than MaxDepthLimit means MaxDepthLimit.
	MaxDepth int
	// MaxDigits limits the digits (mantissa and exponent, as CountDigits
	// counts them) of one number literal; a longer one fails with
	// ErrDigits. 0 or less means DefaultMaxDigits.
	MaxDigits int
	// AllowDuplicateNames turns the check for repeated member names off,
	// for a caller that detects them itself more cheaply (one that builds
	// a map of each object anyway: the map's size tells).
	AllowDuplicateNames bool
}

// what may come next
const (
	stValue     uint8 = iota // a value: the document's
	stColon                  // after a name: ':' and a value
	stFirstName              // after '{': a name or '}'
	stFirstElem              // after '[': a value or ']'
	stAfter                  // after a value: ',' or the close, or the end
	stEnd                    // after the document
)

// Decoder reads one JSON document as tokens. The zero value is not ready:
// use NewDecoder or Reset. A Decoder can be reused with Reset, keeping its
// buffers.
type Decoder struct {
	s        string
	i        int
	state    uint8
	maxDepth int
	digits   int
	dups     bool
	depth    int      // how many containers are open
	kinds    uint64   // bit i set: level i (below 64) is an object
	deeper   []uint64 // the same for the levels from 64 on
	names    Names
	scratch  []byte
	err      *SyntaxError
	tok      Token        // the current token
	src      *valueSource // ResetValue's tree; nil when reading text
}

// NewDecoder returns a Decoder reading the document s.
func NewDecoder(s string, o Options) *Decoder {
	d := &Decoder{}
	d.Reset(s, o)
	return d
}

// Reset makes d read the document s from the start.
func (d *Decoder) Reset(s string, o Options) {
	d.s, d.i, d.state, d.err, d.tok, d.src = s, 0, stValue, nil, Token{}, nil
	d.maxDepth = o.MaxDepth
	if d.maxDepth <= 0 {
		d.maxDepth = DefaultMaxDepth
	}
	d.maxDepth = min(d.maxDepth, MaxDepthLimit)
	d.digits = o.MaxDigits
	if d.digits <= 0 {
		d.digits = DefaultMaxDigits
	}
	d.dups = !o.AllowDuplicateNames
	d.depth, d.kinds = 0, 0
	d.deeper = d.deeper[:0]
	d.names.Reset()
}

// Source returns the document being read.
func (d *Decoder) Source() string { return d.s }

// Offset returns the offset just past the last token read (past white
// space after it, once Peek has looked beyond); -1 reading a tree
// (ResetValue).
func (d *Decoder) Offset() int {
	if d.src != nil {
		return -1
	}
	return d.i
}

// Depth returns how many arrays and objects are open.
func (d *Decoder) Depth() int { return d.depth }

// inObject reports whether the innermost open container is an object.
func (d *Decoder) inObject() bool {
	lv := d.depth - 1
	if lv < 64 {
		return d.kinds&(1<<lv) != 0
	}
	return d.deeper[(lv-64)/64]&(1<<((lv-64)%64)) != 0
}

// push opens a container.
func (d *Decoder) push(obj bool) {
	lv := d.depth
	d.depth++
	if lv < 64 {
		if obj {
			d.kinds |= 1 << lv
		} else {
			d.kinds &^= 1 << lv
		}
		return
	}
	w, bit := (lv-64)/64, uint64(1)<<((lv-64)%64)
	if w == len(d.deeper) {
		d.deeper = append(d.deeper, 0)
	}
	if obj {
		d.deeper[w] |= bit
	} else {
		d.deeper[w] &^= bit
	}
}

// Peek skips white space and returns the kind of the token that starts at
// the next byte, judging by that byte alone (a '"' is a String, a digit or
// '-' a Number); Invalid for a byte no token starts with (',' and ':'
// included), EOF at the end of the input. It reads nothing.
func (d *Decoder) Peek() Kind {
	if d.src != nil {
		return d.valuePeek()
	}
	d.skipSpace()
	if d.i >= len(d.s) {
		return EOF
	}
	return kindOf(d.s[d.i])
}

func kindOf(c byte) Kind {
	switch {
	case c == '{':
		return ObjectOpen
	case c == '}':
		return ObjectClose
	case c == '[':
		return ArrayOpen
	case c == ']':
		return ArrayClose
	case c == '"':
		return String
	case c == 't' || c == 'f':
		return Bool
	case c == 'n':
		return Null
	case c == '-' || c >= '0' && c <= '9':
		return Number
	}
	return Invalid
}

func (d *Decoder) skipSpace() { d.i = skipSpace(d.s, d.i) }

// skipSpace returns the offset of the first byte from s[i] on that is
// not white space.
func skipSpace(s string, i int) int {
	for i < len(s) && s[i] <= ' ' { // one comparison for the bytes tokens start with
		if c := s[i]; c != ' ' && c != '\t' && c != '\n' && c != '\r' {
			break
		}
		i++
	}
	return i
}

// Read returns the next token: after the document's last token, a token
// of kind EOF, once the rest of the input is found to be white space. On
// an error, it returns a *SyntaxError, and the same error from every later
// call.
func (d *Decoder) Read() (Token, error) {
	k, err := d.Next()
	// Built field by field: copying d.tok whole would read it back while
	// its fields are being stored.
	return Token{kind: k, plain: d.tok.plain, esc: d.tok.esc, off: d.tok.off, end: d.tok.end, text: d.Text()}, err
}

// Next reads the next token as Read does, and returns its kind; the
// token is then Current, and Text, Start, Plain and Bool read it without
// copying it out (the codec's way through a document).
//
// The ways through a document that well-formed input takes (a ',' and
// the next member or element, a ':' and the value, a close) are taken
// first; everything else, errors and the end of the document included,
// goes on to after.
func (d *Decoder) Next() (Kind, error) {
	if d.err != nil {
		return Invalid, d.err
	}
	if d.src != nil {
		return d.valueNext()
	}
	s := d.s
	i := skipSpace(s, d.i)
	d.i = i
	switch d.state {
	case stAfter:
		if i < len(s) && d.depth > 0 {
			obj := d.inObject()
			switch c := s[i]; {
			case c == ',':
				d.i = skipSpace(s, i+1)
				if obj {
					return d.name()
				}
				return d.value()
			case c == '}' && obj, c == ']' && !obj:
				return d.close(c)
			}
		}
		return d.after()
	case stColon:
		if i < len(s) && s[i] == ':' {
			d.i = skipSpace(s, i+1)
			return d.value()
		}
		return d.fail(ErrSyntax, d.i, "unexpected "+d.describe()+" after member name, want ':'")
	case stFirstName:
		if i < len(s) && s[i] == '}' {
			return d.close('}')
		}
		return d.name()
	case stFirstElem:
		if i < len(s) && s[i] == ']' {
			return d.close(']')
		}
		return d.value()
	case stValue:
		return d.value()
	}
	return d.set(EOF, d.i, d.i, false)
}

// after is Next after a value where no fast path applies: the end of the
// document, or an error.
func (d *Decoder) after() (Kind, error) {
	if d.depth == 0 {
		if d.i < len(d.s) {
			return d.fail(ErrSyntax, d.i, "unexpected "+d.describe()+" after the document")
		}
		d.state = stEnd
		return d.set(EOF, d.i, d.i, false)
	}
	if d.inObject() {
		return d.fail(ErrSyntax, d.i, "unexpected "+d.describe()+" in object, want ',' or '}'")
	}
	return d.fail(ErrSyntax, d.i, "unexpected "+d.describe()+" in array, want ',' or ']'")
}

func (d *Decoder) fail(kind ErrorKind, off int, msg string) (Kind, error) {
	d.err = &SyntaxError{Kind: kind, Offset: off, Msg: msg, src: d.s}
	d.tok = Token{}
	return Invalid, d.err
}

func (d *Decoder) failWith(e *SyntaxError) (Kind, error) {
	e.src = d.s
	d.err = e
	d.tok = Token{}
	return Invalid, e
}

// set makes the input from off to end the current token. Its text is
// cut from the input when asked for: the token holds no pointer, so
// making it current writes none (no write barrier per token).
func (d *Decoder) set(k Kind, off, end int, plain bool) (Kind, error) {
	d.tok.kind, d.tok.off, d.tok.end, d.tok.plain = k, off, end, plain
	return k, nil
}

// setString makes the string or name val, read from off to end, the
// current token; only a value unescaped into a new string is kept (a
// string without escapes is the input between the quotes).
func (d *Decoder) setString(k Kind, off, end int, val string) (Kind, error) {
	d.tok.kind, d.tok.off, d.tok.end, d.tok.plain = k, off, end, false
	if len(val) != end-off-2 { // escapes always shorten
		d.tok.text, d.tok.esc = val, true
	} else if d.tok.esc {
		d.tok.text, d.tok.esc = "", false
	}
	return k, nil
}

func (d *Decoder) close(c byte) (Kind, error) {
	at := d.i
	d.i++
	if d.dups && d.inObject() {
		d.names.Pop()
	}
	d.depth--
	d.state = stAfter
	if c == '}' {
		return d.set(ObjectClose, at, d.i, false)
	}
	return d.set(ArrayClose, at, d.i, false)
}

// name reads a member name (its ':' is read with the value).
func (d *Decoder) name() (Kind, error) {
	s, at := d.s, d.i
	if at >= len(s) || s[at] != '"' {
		return d.fail(ErrSyntax, at, "unexpected "+d.describe()+", want a member name")
	}
	var name string
	end := skipPlain(s, at+1)
	if end < len(s) && s[end] == '"' { // no escape, ASCII: the common case
		name, end = s[at+1:end], end+1
	} else {
		var err *SyntaxError
		if name, end, err = finishString(s, at+1, end, &d.scratch); err != nil {
			d.i = err.Offset
			return d.failWith(err)
		}
	}
	d.i = end
	if d.dups && d.names.Add(name) {
		return d.fail(ErrDuplicate, at, "member "+strconv.Quote(name)+" appears more than once")
	}
	d.state = stColon
	return d.setString(Name, at, end, name)
}

// value reads a value, the most frequent kinds first.
func (d *Decoder) value() (Kind, error) {
	s, at := d.s, d.i
	if at >= len(s) {
		return d.fail(ErrSyntax, at, "unexpected end of input, want a value")
	}
	switch c := s[at]; {
	case c == '"':
		var val string
		end := skipPlain(s, at+1)
		if end < len(s) && s[end] == '"' {
			val, end = s[at+1:end], end+1
		} else {
			var err *SyntaxError
			if val, end, err = finishString(s, at+1, end, &d.scratch); err != nil {
				d.i = err.Offset
				return d.failWith(err)
			}
		}
		d.i = end
		d.state = stAfter
		return d.setString(String, at, end, val)
	case c >= '1' && c <= '9': // digits only, the common case
		end := at + 1
		for end < len(s) && s[end]-'0' <= 9 {
			end++
		}
		if (end == len(s) || !wordBytes[s[end]]) && end-at <= d.digits {
			d.i = end
			d.state = stAfter
			return d.set(Number, at, end, true)
		}
		return d.number() // a fraction, an exponent, an error, or too many digits
	case c == '-' || c == '0':
		return d.number()
	case c == 't':
		if len(s)-at >= 4 && s[at:at+4] == "true" && (len(s)-at == 4 || !wordBytes[s[at+4]]) {
			return d.word(at+4, Bool)
		}
		return d.literal("true", Bool)
	case c == 'f':
		if len(s)-at >= 5 && s[at:at+5] == "false" && (len(s)-at == 5 || !wordBytes[s[at+5]]) {
			return d.word(at+5, Bool)
		}
		return d.literal("false", Bool)
	case c == 'n':
		if len(s)-at >= 4 && s[at:at+4] == "null" && (len(s)-at == 4 || !wordBytes[s[at+4]]) {
			return d.word(at+4, Null)
		}
		return d.literal("null", Null)
	case c == '{' || c == '[':
		if d.depth >= d.maxDepth {
			return d.fail(ErrDepth, at, "nesting deeper than "+strconv.Itoa(d.maxDepth)+" levels")
		}
		d.i++
		obj := c == '{'
		d.push(obj)
		if obj {
			if d.dups {
				d.names.Push()
			}
			d.state = stFirstName
			return d.set(ObjectOpen, at, d.i, false)
		}
		d.state = stFirstElem
		return d.set(ArrayOpen, at, d.i, false)
	}
	return d.fail(ErrSyntax, at, "unexpected "+d.describe()+", want a value")
}

// word makes the literal from d.i to end, well formed, the current
// token.
func (d *Decoder) word(end int, k Kind) (Kind, error) {
	at := d.i
	d.i = end
	d.state = stAfter
	return d.set(k, at, end, false)
}

// literal reads true, false or null, or fails.
func (d *Decoder) literal(word string, k Kind) (Kind, error) {
	at := d.i
	if len(d.s)-at < len(word) || d.s[at:at+len(word)] != word {
		return d.fail(ErrSyntax, at, "unexpected "+describeWord(d.s, at)+", want a value")
	}
	d.i += len(word)
	if d.i < len(d.s) && isWordByte(d.s[d.i]) {
		return d.fail(ErrSyntax, d.i, "unexpected "+d.describe()+" after "+word)
	}
	d.state = stAfter
	return d.set(k, at, d.i, false)
}

// isWordByte: a byte that cannot follow a literal or number directly.
func isWordByte(c byte) bool { return wordBytes[c] }

// wordBytes tells isWordByte's bytes.
var wordBytes = func() (t [256]bool) {
	for c := range t {
		t[c] = c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '.' || c == '+' || c == '-'
	}
	return t
}()

func (d *Decoder) number() (Kind, error) {
	at := d.i
	end, plain, bad := scanNumber(d.s, at)
	if bad >= 0 {
		d.i = bad
		return d.fail(ErrSyntax, bad, numberProblem(d.s, at, bad))
	}
	if end < len(d.s) && isWordByte(d.s[end]) {
		d.i = end
		if c := d.s[end]; c >= '0' && c <= '9' {
			return d.fail(ErrSyntax, end, "malformed number, a leading zero")
		}
		return d.fail(ErrSyntax, end, "unexpected "+d.describe()+" in number")
	}
	lit := d.s[at:end]
	if len(lit) > d.digits {
		if n := CountDigits(lit); n > d.digits {
			return d.fail(ErrDigits, at, "number literal has "+strconv.Itoa(n)+" digits, more than the limit of "+strconv.Itoa(d.digits))
		}
	}
	d.i = end
	d.state = stAfter
	return d.set(Number, at, end, plain)
}

// describe names what stands at the current offset, for messages.
func (d *Decoder) describe() string {
	if d.i >= len(d.s) {
		return "end of input"
	}
	if k := kindOf(d.s[d.i]); k != Invalid && k != ObjectClose && k != ArrayClose {
		return k.String()
	}
	return describeByte(d.s, d.i)
}

// describeWord quotes the letters from s[i] on, a malformed literal
// ("nope", not a null), at most 16 bytes of them.
func describeWord(s string, i int) string {
	end := i
	for end < len(s) && end-i < 16 && isWordByte(s[end]) {
		end++
	}
	if end == i {
		return describeByte(s, i)
	}
	if end < len(s) && end-i == 16 && isWordByte(s[end]) {
		return strconv.Quote(s[i:end]) + "..."
	}
	return strconv.Quote(s[i:end])
}

// describeByte quotes the character at s[i].
func describeByte(s string, i int) string {
	if i >= len(s) {
		return "end of input"
	}
	r, size := utf8.DecodeRuneInString(s[i:])
	if r == utf8.RuneError && size == 1 {
		return "byte 0x" + string([]byte{hexDigits[s[i]>>4], hexDigits[s[i]&0xF]})
	}
	return strconv.QuoteRune(r)
}

// Current returns the token the last Next or Read read.
func (d *Decoder) Current() Token {
	t := d.tok
	t.text = d.Text()
	return t
}

// Text returns the current token's Text.
func (d *Decoder) Text() string {
	if d.src != nil {
		if d.src.dbl {
			return d.doubleText()
		}
		return d.tok.text
	}
	switch t := &d.tok; t.kind {
	case String, Name:
		if t.esc {
			return t.text
		}
		return d.s[t.off+1 : t.end-1]
	case EOF, Invalid:
		return ""
	}
	return d.s[d.tok.off:d.tok.end]
}

// Start returns the current token's Offset.
func (d *Decoder) Start() int { return d.tok.off }

// Plain returns the current token's Plain.
func (d *Decoder) Plain() bool {
	if d.src != nil && d.src.dbl {
		d.doubleText()
	}
	return d.tok.plain
}

// Bool returns the current token's Bool.
func (d *Decoder) Bool() bool {
	if d.src != nil {
		return d.tok.kind == Bool && d.tok.text == "true"
	}
	return d.tok.kind == Bool && d.s[d.tok.off] == 't'
}
