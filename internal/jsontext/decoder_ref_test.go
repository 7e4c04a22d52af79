package jsontext

// The Decoder as it was before its fast paths (commit 8f110a5), kept as
// the oracle of TestReference and FuzzReference: the fast paths must give
// the same tokens, offsets and errors. Do not change it.

import (
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// what may come next
const (
	refStValue     uint8 = iota // a value: the document's
	refStColon                  // after a name: ':' and a value
	refStFirstName              // after '{': a name or '}'
	refStFirstElem              // after '[': a value or ']'
	refStAfter                  // after a value: ',' or the close, or the end
	refStEnd                    // after the document
)

// Decoder reads one JSON document as tokens. The zero value is not ready:
// use NewDecoder or Reset. A Decoder can be reused with Reset, keeping its
// buffers.
type refDecoder struct {
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
	tok      Token // the current token
}

// NewDecoder returns a Decoder reading the document s.
func newRefDecoder(s string, o Options) *refDecoder {
	d := &refDecoder{}
	d.Reset(s, o)
	return d
}

// Reset makes d read the document s from the start.
func (d *refDecoder) Reset(s string, o Options) {
	d.s, d.i, d.state, d.err, d.tok = s, 0, refStValue, nil, Token{}
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
func (d *refDecoder) Source() string { return d.s }

// Offset returns the offset just past the last token read (past white
// space after it, once Peek has looked beyond).
func (d *refDecoder) Offset() int { return d.i }

// Depth returns how many arrays and objects are open.
func (d *refDecoder) Depth() int { return d.depth }

// inObject reports whether the innermost open container is an object.
func (d *refDecoder) inObject() bool {
	lv := d.depth - 1
	if lv < 64 {
		return d.kinds&(1<<lv) != 0
	}
	return d.deeper[(lv-64)/64]&(1<<((lv-64)%64)) != 0
}

// push opens a container.
func (d *refDecoder) push(obj bool) {
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
func (d *refDecoder) Peek() Kind {
	d.skipSpace()
	if d.i >= len(d.s) {
		return EOF
	}
	return kindOf(d.s[d.i])
}

func (d *refDecoder) skipSpace() {
	for d.i < len(d.s) {
		switch d.s[d.i] {
		case ' ', '\t', '\n', '\r':
			d.i++
		default:
			return
		}
	}
}

// Read returns the next token: after the document's last token, a token
// of kind EOF, once the rest of the input is found to be white space. On
// an error, it returns a *SyntaxError, and the same error from every later
// call.
func (d *refDecoder) Read() (Token, error) {
	_, err := d.Next()
	t := d.tok
	t.text = d.Text()
	return t, err
}

// Next reads the next token as Read does, and returns its kind; the
// token is then Current, and Text, Start, Plain and Bool read it without
// copying it out (the codec's way through a document).
func (d *refDecoder) Next() (Kind, error) {
	if d.err != nil {
		return Invalid, d.err
	}
	d.skipSpace()
	switch d.state {
	case refStValue:
		return d.value()
	case refStColon:
		if d.i >= len(d.s) || d.s[d.i] != ':' {
			return d.fail(ErrSyntax, d.i, "unexpected "+d.describe()+" after member name, want ':'")
		}
		d.i++
		d.skipSpace()
		return d.value()
	case refStAfter:
		if d.depth == 0 {
			if d.i < len(d.s) {
				return d.fail(ErrSyntax, d.i, "unexpected "+d.describe()+" after the document")
			}
			d.state = refStEnd
			return d.set(EOF, d.i, d.i, false)
		}
		obj := d.inObject()
		if d.i < len(d.s) {
			switch c := d.s[d.i]; {
			case c == ',':
				d.i++
				d.skipSpace()
				if obj {
					return d.name()
				}
				return d.value()
			case c == '}' && obj, c == ']' && !obj:
				return d.close(c)
			}
		}
		if obj {
			return d.fail(ErrSyntax, d.i, "unexpected "+d.describe()+" in object, want ',' or '}'")
		}
		return d.fail(ErrSyntax, d.i, "unexpected "+d.describe()+" in array, want ',' or ']'")
	case refStFirstName:
		if d.i < len(d.s) && d.s[d.i] == '}' {
			return d.close('}')
		}
		return d.name()
	case refStFirstElem:
		if d.i < len(d.s) && d.s[d.i] == ']' {
			return d.close(']')
		}
		return d.value()
	}
	return d.set(EOF, d.i, d.i, false)
}

func (d *refDecoder) fail(kind ErrorKind, off int, msg string) (Kind, error) {
	d.err = &SyntaxError{Kind: kind, Offset: off, Msg: msg, src: d.s}
	d.tok = Token{}
	return Invalid, d.err
}

func (d *refDecoder) failWith(e *SyntaxError) (Kind, error) {
	e.src = d.s
	d.err = e
	d.tok = Token{}
	return Invalid, e
}

// set makes the input from off to end the current token. Its text is
// cut from the input when asked for: the token holds no pointer, so
// making it current writes none (no write barrier per token).
func (d *refDecoder) set(k Kind, off, end int, plain bool) (Kind, error) {
	d.tok.kind, d.tok.off, d.tok.end, d.tok.plain = k, off, end, plain
	return k, nil
}

// setString makes the string or name val, read from off to end, the
// current token; only a value unescaped into a new string is kept (a
// string without escapes is the input between the quotes).
func (d *refDecoder) setString(k Kind, off, end int, val string) (Kind, error) {
	d.tok.kind, d.tok.off, d.tok.end, d.tok.plain = k, off, end, false
	if len(val) != end-off-2 { // escapes always shorten
		d.tok.text, d.tok.esc = val, true
	} else if d.tok.esc {
		d.tok.text, d.tok.esc = "", false
	}
	return k, nil
}

func (d *refDecoder) close(c byte) (Kind, error) {
	at := d.i
	d.i++
	if d.dups && d.inObject() {
		d.names.Pop()
	}
	d.depth--
	d.state = refStAfter
	if c == '}' {
		return d.set(ObjectClose, at, d.i, false)
	}
	return d.set(ArrayClose, at, d.i, false)
}

// name reads a member name and its ':'.
func (d *refDecoder) name() (Kind, error) {
	if d.i >= len(d.s) || d.s[d.i] != '"' {
		return d.fail(ErrSyntax, d.i, "unexpected "+d.describe()+", want a member name")
	}
	at := d.i
	name, end, err := refReadString(d.s, d.i, &d.scratch)
	if err != nil {
		d.i = err.Offset
		return d.failWith(err)
	}
	d.i = end
	if d.dups && d.names.Add(name) {
		return d.fail(ErrDuplicate, at, "member "+strconv.Quote(name)+" appears more than once")
	}
	d.state = refStColon
	return d.setString(Name, at, end, name)
}

func (d *refDecoder) value() (Kind, error) {
	if d.i >= len(d.s) {
		return d.fail(ErrSyntax, d.i, "unexpected end of input, want a value")
	}
	at := d.i
	switch c := d.s[d.i]; {
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
			d.state = refStFirstName
			return d.set(ObjectOpen, at, d.i, false)
		}
		d.state = refStFirstElem
		return d.set(ArrayOpen, at, d.i, false)
	case c == '"':
		s, end, err := refReadString(d.s, d.i, &d.scratch)
		if err != nil {
			d.i = err.Offset
			return d.failWith(err)
		}
		d.i = end
		d.state = refStAfter
		return d.setString(String, at, end, s)
	case c == '-' || c >= '0' && c <= '9':
		return d.number()
	case c == 't':
		return d.literal("true", Bool)
	case c == 'f':
		return d.literal("false", Bool)
	case c == 'n':
		return d.literal("null", Null)
	}
	return d.fail(ErrSyntax, at, "unexpected "+d.describe()+", want a value")
}

func (d *refDecoder) literal(word string, k Kind) (Kind, error) {
	at := d.i
	if len(d.s)-at < len(word) || d.s[at:at+len(word)] != word {
		// The malformed word as written, at most 16 bytes of it.
		w := d.s[at:]
		n := strings.IndexFunc(w, func(r rune) bool { return r >= 0x80 || !isWordByte(byte(r)) })
		if n < 0 {
			n = len(w)
		}
		what := strconv.Quote(w[:min(n, 16)])
		if n > 16 {
			what += "..."
		}
		return d.fail(ErrSyntax, at, "unexpected "+what+", want a value")
	}
	d.i += len(word)
	if d.i < len(d.s) && isWordByte(d.s[d.i]) {
		return d.fail(ErrSyntax, d.i, "unexpected "+d.describe()+" after "+word)
	}
	d.state = refStAfter
	return d.set(k, at, d.i, false)
}

func (d *refDecoder) number() (Kind, error) {
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
	d.state = refStAfter
	return d.set(Number, at, end, plain)
}

// describe names what stands at the current offset, for messages.
func (d *refDecoder) describe() string {
	if d.i >= len(d.s) {
		return "end of input"
	}
	if k := kindOf(d.s[d.i]); k != Invalid && k != ObjectClose && k != ArrayClose {
		return k.String()
	}
	return describeByte(d.s, d.i)
}

// Current returns the token the last Next or Read read.
func (d *refDecoder) Current() Token {
	t := d.tok
	t.text = d.Text()
	return t
}

// Text returns the current token's Text.
func (d *refDecoder) Text() string {
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
func (d *refDecoder) Start() int { return d.tok.off }

// Plain returns the current token's Plain.
func (d *refDecoder) Plain() bool { return d.tok.plain }

// Bool returns the current token's Bool.
func (d *refDecoder) Bool() bool { return d.tok.kind == Bool && d.s[d.tok.off] == 't' }

// readString reads the string whose opening quote is at s[i]. It returns
// the string's value, the offset just past its closing quote, and on
// failure the kind, offset and message of the problem. A string without
// escapes is a substring of s; one with escapes is unescaped into
// *scratch, which it reuses, and copied out.
func refReadString(s string, i int, scratch *[]byte) (val string, end int, err *SyntaxError) {
	i++
	start := i
	for i < len(s) {
		c := s[i]
		switch {
		case c == '"':
			return s[start:i], i + 1, nil
		case c == '\\':
			return refReadEscaped(s, start, i, scratch)
		case c < 0x20:
			return "", i, controlError(c, i)
		case c < utf8.RuneSelf:
			i++
		default:
			r, size := utf8.DecodeRuneInString(s[i:])
			if r == utf8.RuneError && size == 1 {
				return "", i, &SyntaxError{Kind: ErrUTF8, Offset: i, Msg: "string is not valid UTF-8"}
			}
			i += size
		}
	}
	return "", len(s), &SyntaxError{Kind: ErrSyntax, Offset: len(s), Msg: "unexpected end of input in string"}
}

// readEscaped continues readString from the first backslash, at s[i].
func refReadEscaped(s string, start, i int, scratch *[]byte) (string, int, *SyntaxError) {
	b := append((*scratch)[:0], s[start:i]...)
	defer func() { *scratch = b }()
	for i < len(s) {
		c := s[i]
		switch {
		case c == '"':
			return string(b), i + 1, nil
		case c == '\\':
			if i+1 >= len(s) {
				return "", len(s), &SyntaxError{Kind: ErrSyntax, Offset: len(s), Msg: "unexpected end of input in string"}
			}
			switch e := s[i+1]; e {
			case '"', '\\', '/':
				b = append(b, e)
			case 'b':
				b = append(b, '\b')
			case 'f':
				b = append(b, '\f')
			case 'n':
				b = append(b, '\n')
			case 'r':
				b = append(b, '\r')
			case 't':
				b = append(b, '\t')
			case 'u':
				r, ok := hex4(s, i+2)
				if !ok {
					return "", i, &SyntaxError{Kind: ErrSyntax, Offset: i, Msg: `malformed \u escape`}
				}
				at := i
				i += 6
				if utf16.IsSurrogate(r) {
					r2, ok := rune(0), false
					if i+1 < len(s) && s[i] == '\\' && s[i+1] == 'u' {
						r2, ok = hex4(s, i+2)
					}
					dec := utf16.DecodeRune(r, r2)
					if !ok || dec == utf8.RuneError {
						return "", at, &SyntaxError{Kind: ErrUTF8, Offset: at, Msg: `unpaired surrogate \u` + s[at+2:at+6] + " in string"}
					}
					r = dec
					i += 6
				}
				b = utf8.AppendRune(b, r)
				continue
			default:
				return "", i, &SyntaxError{Kind: ErrSyntax, Offset: i, Msg: `invalid escape \` + describeByte(s, i+1) + " in string"}
			}
			i += 2
		case c < 0x20:
			return "", i, controlError(c, i)
		case c < utf8.RuneSelf:
			b = append(b, c)
			i++
		default:
			r, size := utf8.DecodeRuneInString(s[i:])
			if r == utf8.RuneError && size == 1 {
				return "", i, &SyntaxError{Kind: ErrUTF8, Offset: i, Msg: "string is not valid UTF-8"}
			}
			b = append(b, s[i:i+size]...)
			i += size
		}
	}
	return "", len(s), &SyntaxError{Kind: ErrSyntax, Offset: len(s), Msg: "unexpected end of input in string"}
}
