package coerce

import (
	"encoding/json"
	"testing"
)

// TestProblemJSON: Problem.MarshalJSON, written through the token
// layer's writer, gives what encoding/json gave for the same fields:
// order, escapes (HTML ones by the caller's encoder, U+2028, invalid
// UTF-8 as U+FFFD), schema left out when empty.
func TestProblemJSON(t *testing.T) {
	type fields struct {
		Path     string `json:"path"`
		Keyword  string `json:"keyword"`
		Expected string `json:"expected"`
		Got      string `json:"got"`
		Message  string `json:"message"`
		Schema   string `json:"schema,omitempty"`
	}
	for _, p := range []Problem{
		{Path: "/a<b", Keyword: "type", Expected: "x\u2028", Got: "\xff\"\\", Msg: "m\n\t&"},
		{Schema: "/properties/s"},
		{},
	} {
		got, err := json.Marshal(p)
		if err != nil {
			t.Fatal(err)
		}
		want, _ := json.Marshal(fields{p.Path, p.Keyword, p.Expected, p.Got, p.String(), p.Schema})
		if string(got) != string(want) {
			t.Errorf("got  %s\nwant %s", got, want)
		}
	}
}
