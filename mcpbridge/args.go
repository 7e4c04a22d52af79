package mcpbridge

import (
	"errors"

	"github.com/structkit/structkit/internal/jsontext"
	"github.com/structkit/structkit/structconv"
)

// readArguments reads arguments given as JSON text in one pass through
// the token layer: a Go tree whose numbers are json.Number holding each
// literal as written. It refuses what structconv.Unmarshal refuses, with
// the same *structconv.Error (code, JSON Pointer, byte offset): text that
// is not one JSON object, repeated members, invalid UTF-8, nesting beyond
// maxDepth, literals with more than maxDigits digits (0: the default) or
// beyond the range of a double.
func readArguments(args []byte, maxDepth, maxDigits int) (map[string]any, error) {
	src := string(args)
	tree, err := jsontext.DecodeString(src, jsontext.Options{MaxDepth: maxDepth, MaxDigits: maxDigits})
	if err != nil {
		return nil, syntaxError(src, err)
	}
	obj, ok := tree.(map[string]any)
	if !ok {
		d := jsontext.NewDecoder(src, jsontext.Options{})
		k := d.Peek()
		return nil, &structconv.Error{Code: structconv.CodeType, Offset: d.Offset(), Msg: "want a JSON object for the arguments, got " + k.String()}
	}
	// The range of the literals (1e400), checked where the tree is held
	// to the literals' rules.
	if _, err := (structconv.GoOptions{MaxNumberDigits: maxDigits}).Apply(obj); err != nil {
		var se *structconv.Error
		if errors.As(err, &se) && se.Offset < 0 {
			located := *se // placed in the text, as Unmarshal places it
			if off, ok := jsontext.ValueAt(src, se.Path); ok {
				located.Offset = off
			}
			return nil, &located
		}
		return nil, err
	}
	return obj, nil
}

// syntaxError is the *structconv.Error of a token layer error in src: the
// codes structconv gives its kinds, at the JSON Pointer of the offset.
func syntaxError(src string, err error) error {
	var se *jsontext.SyntaxError
	if !errors.As(err, &se) {
		return err
	}
	code := structconv.CodeSyntax
	switch se.Kind {
	case jsontext.ErrUTF8:
		code = structconv.CodeInvalidUTF8
	case jsontext.ErrDuplicate:
		code = structconv.CodeDuplicateKey
	case jsontext.ErrDepth:
		code = structconv.CodeDepth
	case jsontext.ErrDigits:
		code = structconv.CodeNumber
	}
	return &structconv.Error{Code: code, Path: jsontext.PointerAt(src, se.Offset), Offset: se.Offset, Msg: se.Msg}
}

// topMembers reads a JSON object's members through the token layer: each
// name with its value's text as written (compact text gives compact
// values); ok is false for text that is not one JSON object.
func topMembers(raw []byte) (map[string]string, bool) {
	m, err := jsontext.Members(string(raw), jsontext.Options{})
	return m, err == nil && m != nil
}

// topString returns the string a JSON object's member holds, unescaped;
// ok is false when raw is not an object or the member is not a string.
func topString(raw []byte, name string) (string, bool) {
	m, ok := topMembers(raw)
	if !ok {
		return "", false
	}
	v, err := jsontext.DecodeString(m[name], jsontext.Options{})
	s, isString := v.(string)
	return s, err == nil && isString
}
