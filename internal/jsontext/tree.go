package jsontext

import "encoding/json"

// Decode reads the one JSON document b into a Go tree: objects as
// map[string]any, arrays as []any, strings, booleans, nil for null, and
// numbers as json.Number holding the literal exactly as written
// (json.Number is only the type of exact number text here: nothing is
// read by encoding/json). With Options.AllowDuplicateNames, the last of
// repeated members stays. Errors are *SyntaxError, with the offset and
// LineCol of the problem.
func Decode(b []byte, o Options) (any, error) { return DecodeString(string(b), o) }

// DecodeString is Decode of a document held in a string; the strings of
// the tree share its memory.
func DecodeString(s string, o Options) (any, error) {
	var t treeReader
	t.d.Reset(s, o)
	tok, err := t.d.Read()
	if err != nil {
		return nil, err
	}
	v, err := t.value(tok)
	if err != nil {
		return nil, err
	}
	if _, err := t.d.Read(); err != nil { // EOF, or trailing data
		return nil, err
	}
	return v, nil
}

type treeReader struct{ d Decoder }

func (t *treeReader) value(tok Token) (any, error) {
	switch tok.Kind() {
	case ObjectOpen:
		m := map[string]any{}
		for {
			name, err := t.d.Read()
			if err != nil {
				return nil, err
			}
			if name.Kind() == ObjectClose {
				return m, nil
			}
			vt, err := t.d.Read()
			if err != nil {
				return nil, err
			}
			v, err := t.value(vt)
			if err != nil {
				return nil, err
			}
			m[name.Text()] = v
		}
	case ArrayOpen:
		a := []any{}
		for {
			vt, err := t.d.Read()
			if err != nil {
				return nil, err
			}
			if vt.Kind() == ArrayClose {
				return a, nil
			}
			v, err := t.value(vt)
			if err != nil {
				return nil, err
			}
			a = append(a, v)
		}
	case String:
		return tok.Text(), nil
	case Number:
		return json.Number(tok.Text()), nil
	case Bool:
		return tok.Bool(), nil
	}
	return nil, nil // Null
}
