package toolcall

import (
	"bytes"
	"errors"
	"slices"

	"github.com/structkit/structkit/coerce"
	"github.com/structkit/structkit/jsonvalue"
	"github.com/structkit/structkit/structconv"
)

// ArgumentsText is a call's arguments text: raw, or {} when there are
// none (empty, or null).
func ArgumentsText(raw []byte) []byte {
	if s := bytes.TrimSpace(raw); len(s) == 0 || string(s) == "null" {
		return []byte("{}")
	}
	return raw
}

// Located is the *structconv.Error of a result's text the token layer
// refused, its path prefixed by where the text is in the result.
func Located(prefix string, err error) error {
	var se *structconv.Error
	if errors.As(err, &se) {
		loc := *se
		loc.Path = prefix + se.Path
		return &loc
	}
	return err
}

// TopMembers reads a JSON object's members through the token layer: each
// name with its value's text as written (compact text gives compact
// values); ok is false for text that is not one JSON object.
func TopMembers(raw []byte) (map[string]string, bool) {
	m, err := jsonvalue.Options{}.Members(string(raw))
	return m, err == nil && m != nil
}

// TopString returns the string a JSON object's member holds, unescaped;
// ok is false when raw is not an object or the member is not a string.
func TopString(raw []byte, name string) (string, bool) {
	m, ok := TopMembers(raw)
	if !ok {
		return "", false
	}
	v, err := jsonvalue.Options{}.Decode(m[name])
	s, isString := v.(string)
	return s, err == nil && isString
}

// AppendChanges appends changes, paths prefixed, leaving out RuleInteger
// (the integer literal every whole number at an integer location gets).
func AppendChanges(rep *coerce.Report, changes []coerce.Change, prefix string) {
	for _, ch := range changes {
		if ch.Rule == coerce.RuleInteger {
			continue
		}
		ch.Path = prefix + ch.Path
		rep.Changes = append(rep.Changes, ch)
	}
}

// appendUnchecked is AppendChanges of a conversion of arguments that the
// check of their Struct reads too: the check reports, of that Struct,
// what the codec's rules say (a fraction at an integer location, a
// double that may have lost digits), so the conversion's own word on
// those is left out.
func appendUnchecked(rep *coerce.Report, changes []coerce.Change) {
	AppendChanges(rep, slices.DeleteFunc(changes, func(ch coerce.Change) bool {
		return ch.Rule == coerce.RuleFraction || ch.Rule == coerce.RulePrecisionUnsafe
	}), "")
}

// NotValidated tells a schema the validator cannot compile (the arguments
// are then converted, not validated) from other errors.
func NotValidated(err error) (why string, ok bool) {
	var serr *coerce.SchemaError
	if errors.As(err, &serr) {
		return serr.Error(), true
	}
	return "", false
}
