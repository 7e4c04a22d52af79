package protojsondec_test

import (
	"errors"
	"regexp"
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/structkit/structkit/internal/jsontext"
	"github.com/structkit/structkit/internal/protojsondec"
)

// bigLiteral finds the plain integer literals where the decoder and
// protojson differ by design (carried in a Value, refused by protojson
// beyond a double).
var bigLiteral = regexp.MustCompile(`[0-9]{16,}`)

// FuzzUnmarshal: no panic; every refusal an *Error naming a place in the
// input; and agreement with protojson on acceptance and on the message
// built, but for the documented differences.
func FuzzUnmarshal(f *testing.F) {
	for _, s := range seeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		mine, theirs, em, et := decodeBoth(in)
		if em != nil {
			var e *protojsondec.Error
			if !errors.As(em, &e) || e.Offset < 0 || e.Offset > len(in) {
				t.Fatalf("%q: %v", in, em)
			}
			if ptr := jsontext.PointerAt(in, e.Offset); ptr != e.Path {
				t.Fatalf("%q: path %q, offset %d names %q", in, e.Path, e.Offset, ptr)
			}
		}
		if bigLiteral.MatchString(in) {
			return
		}
		switch {
		case em == nil && et == nil:
			if !proto.Equal(mine, theirs) {
				t.Fatalf("%q:\n mine %v\n protojson %v", in, mine, theirs)
			}
		case em == nil && et != nil:
			if !strings.Contains(in, "null") { // null for repeated Value fields
				t.Fatalf("%q: accepted, protojson refuses: %v", in, et)
			}
		case em != nil && et == nil:
			var se *jsontext.SyntaxError
			if errors.As(em, &se) && se.Kind != jsontext.ErrSyntax || strings.Contains(in, `\u`) {
				return // the limits, and unpaired surrogates, are the token layer's
			}
			t.Fatalf("%q: refused (%v), protojson accepts: %v", in, em, theirs)
		}
	})
}

var seeds = []string{
	`{}`, `{"s":"x","i64":"12","r_i32":[1,2],"MStr":{"a":1}}`,
	`{"wAny":{"@type":"type.googleapis.com/t.T","s":"x"}}`,
	`{"wAny":{"s":"x","@type":"type.googleapis.com/google.protobuf.Duration","value":"1s"}}`,
	`{"wValue":{"a":[1,null,"x",true]},"wStruct":{"b":{}}}`,
	`{"wTimestamp":"2024-05-01T12:00:00.5+01:00","wDuration":"-1.5s","wFieldMask":"a.b,cD"}`,
	`{"oneS":"x","color":"RED","colors":[1,"GREEN"],"by":"AQ-_","fl":"NaN","u64":"1e3"}`,
	`{"wInt64Value":"5","wBytesValue":"AA==","MBool":{"true":{"child":{}}},"MVal":{"-1":null}}`,
}
