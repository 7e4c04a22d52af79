package rpcargs

import (
	"context"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/testing/protocmp"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/structkit/structkit/coerce"
	structkitv1 "github.com/structkit/structkit/gen/structkit/v1"
)

func TestFieldPath(t *testing.T) {
	tests := []struct{ field, ptr, want, why string }{
		{"arguments", "", "arguments", "the whole Struct"},
		{"arguments", "/limit", "arguments.limit", "a member"},
		{"arguments", "/filters/0/value", "arguments.filters[0].value", "an index"},
		{"calls[2].arguments", "/a~1b", `calls[2].arguments["a/b"]`, "a name with a slash is quoted"},
		{"arguments", "/a.b", `arguments["a.b"]`, "a name with a dot is quoted"},
	}
	for _, tt := range tests {
		if got := FieldPath(tt.field, tt.ptr); got != tt.want {
			t.Errorf("FieldPath(%q, %q) = %q, want %q (%s)", tt.field, tt.ptr, got, tt.want, tt.why)
		}
	}
}

// The wire form of a report keeps every part, each entry names its field,
// and a problem's message is its rendered line.
func TestAppendReport(t *testing.T) {
	rep := &coerce.Report{
		Changes:  []coerce.Change{{Path: "/id", Rule: coerce.RuleBigIntCarried, From: "9007199254740993", To: `"9007199254740993"`, Schema: "/properties/id"}},
		Problems: []coerce.Problem{{Path: "/n", Keyword: "type", Expected: "integer", Got: `string "x"`, Msg: `expected integer, got string "x"`, Schema: "/properties/n"}},
	}
	want := &structkitv1.Report{
		Changes: []*structkitv1.Change{{Field: "arguments", Path: "/id", Rule: "bigint-carried", From: "9007199254740993", To: `"9007199254740993"`, Schema: "/properties/id"}},
		Problems: []*structkitv1.Problem{{Field: "arguments", Path: "/n", Keyword: "type", Expected: "integer", Got: `string "x"`,
			Message: `/n: expected integer, got string "x"`, Schema: "/properties/n"}},
	}
	if diff := cmp.Diff(want, AppendReport(nil, "arguments", rep), protocmp.Transform()); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if len(AppendReport(nil, "x", nil).GetChanges()) != 0 {
		t.Error("a nil report must stay empty")
	}
}

func invalidResult() *Result {
	return &Result{Fields: []FieldReport{{Field: "arguments", Report: coerce.Report{Problems: []coerce.Problem{
		{Path: "/limit", Keyword: "minimum", Msg: "expected at least 1, got integer 0"},
	}}}}}
}

// Run decides alike for every transport and side: no check or no message
// passes, a failed check is internal (a FieldError keeps its own words),
// an invalid result fails unless passInvalid, which lets it on with the
// result.
func TestRun(t *testing.T) {
	ctx := context.Background()
	msg := &structpb.Struct{}
	valid := func(context.Context, proto.Message) (*Result, error) { return &Result{}, nil }
	invalid := func(context.Context, proto.Message) (*Result, error) { return invalidResult(), nil }
	fieldErr := func(context.Context, proto.Message) (*Result, error) {
		return nil, &FieldError{Field: "a.B.c", Msg: "no schema registered"}
	}
	otherErr := func(context.Context, proto.Message) (*Result, error) { return nil, errors.New("boom") }

	if res, f := Run(ctx, nil, msg, false); res != nil || f != nil {
		t.Errorf("no check: %v %v", res, f)
	}
	if res, f := Run(ctx, valid, "not a message", false); res != nil || f != nil {
		t.Errorf("not a message: %v %v", res, f)
	}
	if res, f := Run(ctx, valid, msg, false); res == nil || f != nil {
		t.Errorf("valid: %v %v", res, f)
	}
	for _, pass := range []bool{false, true} {
		res, f := Run(ctx, invalid, msg, pass)
		if res == nil || res.Valid() || (f != nil) == pass {
			t.Errorf("invalid, passInvalid %v: %v %+v", pass, res, f)
		}
	}
	_, f := Run(ctx, invalid, msg, false)
	if f.Internal || f.Msg != "invalid arguments: arguments.limit: expected at least 1, got integer 0" ||
		f.BadRequest.GetFieldViolations()[0].GetDescription() != "/limit: expected at least 1, got integer 0" || len(f.Report.GetProblems()) != 1 {
		t.Errorf("invalid failure: %+v", f)
	}
	if _, f := Run(ctx, fieldErr, msg, true); f == nil || !f.Internal || f.Msg != "protoargs: field a.B.c: no schema registered" || f.Err == nil {
		t.Errorf("field error: %+v", f)
	}
	if _, f := Run(ctx, otherErr, msg, true); f == nil || !f.Internal || f.Msg != "checking arguments: boom" || f.Err != nil {
		t.Errorf("other error: %+v", f)
	}
}

func TestDetailsAndHolder(t *testing.T) {
	f := Invalid(invalidResult())
	report, br, ok := Details([]any{"other", f.BadRequest, f.Report})
	if !ok || report != f.Report || br != f.BadRequest {
		t.Errorf("Details: %v %v %v", report, br, ok)
	}
	if _, _, ok := Details([]any{"other"}); ok {
		t.Error("Details found what is not there")
	}
	if Invalid(&Result{}) != nil || Invalid(nil) != nil {
		t.Error("a valid result fails")
	}
	ctx, h := WithHolder(context.Background(), nil)
	if _, ok := FromContext(ctx); ok {
		t.Error("an empty holder has a result")
	}
	want := invalidResult()
	h.Set(want)
	if res, ok := FromContext(ctx); !ok || res != want {
		t.Error("the holder's result is not seen")
	}
	if d := f.Details(); len(d) != 2 || d[0] != f.BadRequest || d[1] != f.Report {
		t.Errorf("Details: %v", d)
	}
	if (&Failure{Internal: true, Msg: "x"}).Details() != nil {
		t.Error("an internal failure has details")
	}
}

// Holder.Run keeps what a received message's check found, even when the
// message fails.
func TestHolderRun(t *testing.T) {
	_, h := WithHolder(context.Background(), nil)
	invalid := func(context.Context, proto.Message) (*Result, error) { return invalidResult(), nil }
	if f := h.Run(context.Background(), invalid, &structpb.Struct{}, false); f == nil || h.res.Load() == nil || h.res.Load().Valid() {
		t.Errorf("failing message: %+v %v", f, h.res.Load())
	}
	valid := func(context.Context, proto.Message) (*Result, error) { return &Result{}, nil }
	if f := h.Run(context.Background(), valid, &structpb.Struct{}, false); f != nil || h.res.Load() == nil || !h.res.Load().Valid() {
		t.Errorf("next message: %+v %v", f, h.res.Load())
	}
}
