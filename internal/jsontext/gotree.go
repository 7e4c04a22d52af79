package jsontext

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/structkit/structkit/internal/msgtext"
)

// ResetGo makes d read v, a Go value tree (map[string]any, []any,
// string, bool, nil, float64 or float32, Go integers, json.Number), as
// the tokens of the JSON text it stands for, as ResetValue reads a
// Struct: members in the order of their names, a float the double it is
// (Double), a Go integer its decimal digits, a json.Number its literal,
// which must be one of JSON's (ErrNumber) within MaxDigits (ErrDigits).
// What else JSON cannot hold fails: NaN or an infinity with ErrNumber,
// text that is not UTF-8 with ErrUTF8, a value of another Go type with
// ErrType, nesting beyond MaxDepth with ErrDepth. Offsets are -1. The
// tree must not change while it is read. Unless sorted, the members of
// an object come in the map's order, which costs less: for a reader
// whose result does not depend on it.
func (d *Decoder) ResetGo(v any, o Options, sorted bool) {
	d.Reset("", o)
	d.src = &valueSource{goTree: true, goRoot: v, sorted: sorted}
}

// kindOfGo is the kind of token v is read as; Invalid for a value of
// another Go type.
func kindOfGo(v any) Kind {
	switch v.(type) {
	case nil:
		return Null
	case bool:
		return Bool
	case string:
		return String
	case float64, float32, json.Number, int, int8, int16, int32, int64, uint, uint8, uint16, uint32, uint64:
		return Number
	case map[string]any:
		return ObjectOpen
	case []any:
		return ArrayOpen
	}
	return Invalid
}

// goToken makes v the current token, opening it when it is a container.
func (d *Decoder) goToken(v any) (Kind, error) {
	switch x := v.(type) {
	case nil:
		return d.setText(Null, "null", false)
	case bool:
		return d.setText(Bool, strconv.FormatBool(x), false)
	case string:
		if !utf8.ValidString(x) {
			return d.fail(ErrUTF8, -1, "string is not valid UTF-8")
		}
		return d.setText(String, x, false)
	case float64:
		return d.double(x)
	case float32:
		return d.double(float64(x))
	case json.Number:
		lit := string(x)
		if !IsNumber(lit) {
			return d.fail(ErrNumber, -1, fmt.Sprintf("json.Number %q is not a number", msgtext.Clip(lit, 40)))
		}
		if n := CountDigits(lit); n > d.digits {
			return d.fail(ErrDigits, -1, "number literal has "+strconv.Itoa(n)+" digits, more than the limit of "+strconv.Itoa(d.digits))
		}
		return d.setText(Number, lit, !strings.ContainsAny(lit, ".eE"))
	case int, int8, int16, int32, int64, uint, uint8, uint16, uint32, uint64:
		return d.setText(Number, fmt.Sprint(x), true)
	case map[string]any:
		return d.open(valueFrame{members: memberRun(d.src, x, d.src.sorted), obj: true})
	case []any:
		return d.open(valueFrame{a: x})
	}
	return d.fail(ErrType, -1, fmt.Sprintf("cannot hold a %T in a google.protobuf.Value", v))
}
