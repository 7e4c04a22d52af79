package grpcargs_test

import (
	"context"
	"errors"
	"testing"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/structkit/structkit/coerce"
	examplev1 "github.com/structkit/structkit/gen/structkit/example/v1"
	"github.com/structkit/structkit/grpcargs"
	"github.com/structkit/structkit/protoargs"
	"github.com/structkit/structkit/structconv"
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

// PassInvalid means the same on both sides: without it an invalid request
// fails with InvalidArgument and goes no further; with it the request goes
// on (to the handler, or onto the wire), and a handler sees the problems.
func TestPassInvalidClientAndServer(t *testing.T) {
	schema, err := structconv.Compile([]byte(`{"type":"object","properties":{"limit":{"type":"integer","minimum":1}}}`))
	if err != nil {
		t.Fatal(err)
	}
	checker := &protoargs.Checker{Schemas: &protoargs.Schemas{Resolver: func(context.Context, proto.Message, protoreflect.FieldDescriptor) (*structconv.Schema, error) {
		return schema, nil
	}}}
	invalid := func() *examplev1.SearchRequest {
		return &examplev1.SearchRequest{Arguments: &structpb.Struct{Fields: map[string]*structpb.Value{"limit": structpb.NewNumberValue(0)}}}
	}
	for _, pass := range []bool{false, true} {
		o := grpcargs.Options{Checker: checker, PassInvalid: pass}

		sent := false
		err := grpcargs.UnaryClientInterceptor(o)(context.Background(), "/m", invalid(), nil, nil,
			func(context.Context, string, any, any, *grpc.ClientConn, ...grpc.CallOption) error {
				sent = true
				return nil
			})
		if sent != pass || (status.Code(err) == codes.InvalidArgument) == pass {
			t.Errorf("client, PassInvalid %v: sent %v, err %v", pass, sent, err)
		}

		handled := false
		_, err = grpcargs.UnaryServerInterceptor(o)(context.Background(), invalid(), &grpc.UnaryServerInfo{},
			func(ctx context.Context, _ any) (any, error) {
				handled = true
				if res, ok := protoargs.FromContext(ctx); !ok || res.Valid() {
					t.Errorf("server, PassInvalid %v: the handler does not see the problems: %v", pass, res)
				}
				return nil, nil
			})
		if handled != pass || (status.Code(err) == codes.InvalidArgument) == pass {
			t.Errorf("server, PassInvalid %v: handled %v, err %v", pass, handled, err)
		}
	}
}
