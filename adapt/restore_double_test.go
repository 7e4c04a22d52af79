package adapt_test

import (
	"context"
	"slices"
	"testing"

	"google.golang.org/protobuf/types/known/structpb"

	"github.com/structkit/structkit/adapt"
	"github.com/structkit/structkit/coerce"
	"github.com/structkit/structkit/structconv"
)

// TestRestoreStructDouble: a Struct holds a number as a double. A whole
// double beyond ±2^53 at an integer location (2^60, whose shortest form
// 1152921504606847000 is another integer) is the integer the double holds
// on every path that reads a Struct: Marshal, the check in place, ToGo,
// and the restore of a Struct answer, which read its shortest form as a
// literal and carried 1152921504606847000. Each reports precision-unsafe.
func TestRestoreStructDouble(t *testing.T) {
	const doc = `{"type":"object","properties":{"i":{"type":"integer"},"n":{"type":"number"},"f":{}},"required":["i","n","f"]}`
	const want = `{"f":1152921504606847000,"i":1152921504606846976,"n":1152921504606847000}`
	schema, err := structconv.Compile(doc)
	if err != nil {
		t.Fatal(err)
	}
	answer := func() *structpb.Struct {
		return &structpb.Struct{Fields: map[string]*structpb.Value{
			"i": structpb.NewNumberValue(1 << 60), "n": structpb.NewNumberValue(1 << 60), "f": structpb.NewNumberValue(1 << 60)}}
	}
	unsafe := func(rep *coerce.Report) bool {
		return slices.ContainsFunc(rep.Changes, func(c coerce.Change) bool { return c.Path == "/i" && c.Rule == coerce.RulePrecisionUnsafe })
	}
	var mrep coerce.Report
	out, err := structconv.MarshalOptions{Schema: schema, Report: &mrep}.Marshal(answer())
	if err != nil || string(out) != want || !unsafe(&mrep) {
		t.Errorf("Marshal: %s %v %v, want %s and precision-unsafe at /i", out, &mrep, err, want)
	}
	inPlace := answer()
	crep, err := structconv.CheckOptions{}.Struct(context.Background(), "", schema, inPlace)
	if out, _ := (structconv.MarshalOptions{Schema: schema}).Marshal(inPlace); err != nil || string(out) != want || !unsafe(crep) {
		t.Errorf("CheckOptions.Struct: %s %v %v", out, crep, err)
	}
	tree, err := structconv.GoOptions{Schema: schema}.ToGo(answer())
	if m, _ := tree.(map[string]any); err != nil || m["i"] != int64(1<<60) {
		t.Errorf("ToGo: %#v %v, want i int64 2^60", tree, err)
	}
	for _, p := range []adapt.Profile{adapt.OpenAI, adapt.Gemini, adapt.MCP} {
		a, err := adapt.Adapt([]byte(doc), p)
		if err != nil {
			t.Fatal(err)
		}
		got, rep, err := adapt.RestoreOptions{Schema: a}.Struct(context.Background(), "", answer())
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		if out, _ := (structconv.MarshalOptions{Schema: schema}).Marshal(got); string(out) != want || !unsafe(rep) || !rep.Valid() {
			t.Errorf("%s: RestoreOptions.Struct gave %v, marshalled %s, report %v; want %s and precision-unsafe at /i", p, got, out, rep, want)
		}
	}
}
