package grpcargs_test

import (
	"errors"
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/structkit/structkit/coerce"
	"github.com/structkit/structkit/grpcargs"
	"github.com/structkit/structkit/protoargs"
)

func TestStatus(t *testing.T) {
	res := &protoargs.Result{Fields: []protoargs.FieldReport{{
		Field: "calls[1].arguments",
		Report: coerce.Report{Problems: []coerce.Problem{
			{Path: "/filters/0/value", Keyword: "oneOf", Msg: "matches none of 2 alternatives: expected array of strings, or integer; got string"},
			{Path: "", Keyword: "required", Msg: `missing required property "sku"`},
		}},
	}}}
	st := grpcargs.Status(res)
	if st.Code() != codes.InvalidArgument {
		t.Fatalf("code = %v", st.Code())
	}
	if want := "invalid arguments: calls[1].arguments.filters[0].value: matches none of 2 alternatives: expected array of strings, or integer; got string (and more: see the details)"; st.Message() != want {
		t.Errorf("message = %q\nwant %q", st.Message(), want)
	}
	report, br, ok := grpcargs.Problems(st.Err())
	if !ok {
		t.Fatal("no details")
	}
	fields := []string{br.GetFieldViolations()[0].GetField(), br.GetFieldViolations()[1].GetField()}
	if fields[0] != "calls[1].arguments.filters[0].value" || fields[1] != "calls[1].arguments" {
		t.Errorf("violation fields = %v", fields)
	}
	if len(report.GetProblems()) != 2 || report.GetProblems()[1].GetField() != "calls[1].arguments" {
		t.Errorf("report = %v", report)
	}
	if grpcargs.Status(&protoargs.Result{}) != nil {
		t.Error("a valid result has a status")
	}
	if _, _, ok := grpcargs.Problems(errors.New("plain")); ok {
		t.Error("a plain error has problems")
	}
	if _, _, ok := grpcargs.Problems(status.Error(codes.Internal, "x")); ok {
		t.Error("a status without details has problems")
	}
}
