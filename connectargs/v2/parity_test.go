package connectargs_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"

	connectv1 "connectrpc.com/connect"
	"connectrpc.com/connect/v2"
	"github.com/google/go-cmp/cmp"
	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/testing/protocmp"

	"github.com/structkit/structkit/coerce"
	connectargsv1 "github.com/structkit/structkit/connectargs"
	connectargs "github.com/structkit/structkit/connectargs/v2"
	examplev1 "github.com/structkit/structkit/gen/structkit/example/v1"
	structkitv1 "github.com/structkit/structkit/gen/structkit/v1"
	"github.com/structkit/structkit/protoargs"
)

// parityCases are invalid and repaired requests with what v1 answers; v2
// must answer each the same, on handlers and on clients.
var parityCases = []struct {
	name    string
	args    map[string]any
	lenient bool
	// want are the field violations (field, description), in order; none
	// for a request that is valid (after repairs).
	want [][2]string
	// changed: the handler sees repairs.
	changed bool
}{
	{name: "two problems", args: map[string]any{"query": "x", "limit": 0.0, "extra": true}, want: [][2]string{
		{"arguments.extra", `/extra: property "extra" is not allowed (allowed: filters, id, limit, line, query)`},
		{"arguments.limit", "/limit: expected at least 1, got integer 0"},
	}},
	{name: "fraction at an integer", args: map[string]any{"line": 1.5}, want: [][2]string{
		{"arguments.line", "/line: expected integer, got number 1.5"},
	}},
	{name: "a string at an integer, strict", args: map[string]any{"line": "x"}, want: [][2]string{
		{"arguments.line", `/line: expected integer, got string "x"`},
	}},
	{name: "a big integer as a string passes as it is", args: map[string]any{"id": "9007199254740993"}},
	{name: "nested in an array", args: map[string]any{"filters": []any{map[string]any{"field": "f", "value": true}}}, want: [][2]string{
		{"arguments.filters[0].value", "/filters/0/value: matches none of 2 alternatives: expected array of strings, or integer; got boolean"},
	}},
	{name: "a member name that is no identifier", args: map[string]any{"a.b": 1.0}, want: [][2]string{
		{`arguments["a.b"]`, `/a.b: property "a.b" is not allowed (allowed: filters, id, limit, line, query)`},
	}},
	{name: "repaired, lenient", args: map[string]any{"query": "x", "limit": "20"}, lenient: true, changed: true},
}

// serveV1 mounts svc's Search as a connect-go v1 handler behind the v1
// interceptor.
func serveV1(t *testing.T, o connectargs.Options, seen *[]*protoargs.Result) string {
	t.Helper()
	mux := http.NewServeMux()
	mux.Handle(searchPath, connectv1.NewUnaryHandler(searchPath,
		func(ctx context.Context, req *connectv1.Request[examplev1.SearchRequest]) (*connectv1.Response[examplev1.SearchResponse], error) {
			if res, ok := protoargs.FromContext(ctx); ok {
				*seen = append(*seen, res)
			}
			return connectv1.NewResponse(&examplev1.SearchResponse{}), nil
		}, connectv1.WithInterceptors(connectargsv1.NewInterceptor(o))))
	hs := httptest.NewServer(mux)
	t.Cleanup(hs.Close)
	return hs.URL
}

// answer is what a call's error says, in the terms both versions share.
type answer struct {
	Code       uint32
	Msg        string
	BadRequest *errdetails.BadRequest
	Report     *structkitv1.Report
}

func answerV1(err error) answer {
	if err == nil {
		return answer{}
	}
	report, br, _ := connectargsv1.Problems(err)
	msg := ""
	if ce := new(connectv1.Error); errors.As(err, &ce) {
		msg = ce.Message()
	}
	return answer{Code: uint32(connectv1.CodeOf(err)), Msg: msg, BadRequest: br, Report: report}
}

func answerV2(err error) answer {
	if err == nil {
		return answer{}
	}
	report, br, _ := connectargs.Problems(err)
	msg := ""
	if ce := new(connect.Error); errors.As(err, &ce) {
		msg = ce.Message()
	}
	return answer{Code: uint32(connect.CodeOf(err)), Msg: msg, BadRequest: br, Report: report}
}

func TestParityWithV1(t *testing.T) {
	ctx := context.Background()
	for _, tc := range parityCases {
		t.Run(tc.name, func(t *testing.T) {
			policy := coerce.Policy{}
			if tc.lenient {
				policy = coerce.Lenient()
			}
			o := connectargs.Options{Checker: newChecker(t, policy)}
			req := func() *examplev1.SearchRequest { return &examplev1.SearchRequest{Arguments: args(t, tc.args)} }

			// Handlers: v1 and v2, each behind its interceptor, called plainly.
			var seenV1 []*protoargs.Result
			urlV1 := serveV1(t, o, &seenV1)
			_, errV1 := connectv1.NewClient[examplev1.SearchRequest, examplev1.SearchResponse](http.DefaultClient, urlV1+searchPath).
				CallUnary(ctx, connectv1.NewRequest(req()))
			svc := &service{}
			urlV2 := serve(t, svc, connectargs.NewServerInterceptor(o))
			errV2 := newClient(urlV2).CallUnary(ctx, searchSpec, req(), &examplev1.SearchResponse{})

			// Clients: v1 and v2, each with its interceptor, to plain servers.
			var ignored []*protoargs.Result
			_, cerrV1 := connectv1.NewClient[examplev1.SearchRequest, examplev1.SearchResponse](http.DefaultClient, serveV1(t, connectargs.Options{}, &ignored)+searchPath,
				connectv1.WithInterceptors(connectargsv1.NewInterceptor(o))).CallUnary(ctx, connectv1.NewRequest(req()))
			cerrV2 := newClient(serve(t, &service{}), connectargs.NewClientInterceptor(o)).CallUnary(ctx, searchSpec, req(), &examplev1.SearchResponse{})

			v1, v2 := answerV1(errV1), answerV2(errV2)
			if diff := cmp.Diff(v1, v2, protocmp.Transform()); diff != "" {
				t.Errorf("handler: v1 and v2 differ (-v1 +v2):\n%s", diff)
			}
			if diff := cmp.Diff(answerV1(cerrV1), answerV2(cerrV2), protocmp.Transform()); diff != "" {
				t.Errorf("client: v1 and v2 differ (-v1 +v2):\n%s", diff)
			}
			if diff := cmp.Diff(v2, answerV2(cerrV2), protocmp.Transform()); diff != "" {
				t.Errorf("v2: handler and client differ (-handler +client):\n%s", diff)
			}

			var got [][2]string
			for _, v := range v2.BadRequest.GetFieldViolations() {
				got = append(got, [2]string{v.GetField(), v.GetDescription()})
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("field violations (-want +got):\n%s", diff)
			}
			if len(tc.want) > 0 {
				if v2.Code != uint32(connect.CodeInvalidArgument) || len(v2.Report.GetProblems()) != len(tc.want) {
					t.Errorf("answer %+v", v2)
				}
				if svc.calls.Load() != 0 || len(seenV1) != 0 {
					t.Errorf("a handler ran: v1 %d, v2 %d", len(seenV1), svc.calls.Load())
				}
				return
			}
			// Valid (after repairs): both handlers see the same report.
			resV2 := svc.res.Load()
			if len(seenV1) != 1 || resV2 == nil {
				t.Fatalf("handlers saw v1 %v, v2 %v", seenV1, resV2)
			}
			if !proto.Equal(seenV1[0].Proto(), resV2.Proto()) || resV2.Changed() != tc.changed {
				t.Errorf("reports differ or miss the repairs: v1 %v, v2 %v", seenV1[0].Proto(), resV2.Proto())
			}
		})
	}
}
