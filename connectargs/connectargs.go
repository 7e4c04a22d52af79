// Package connectargs plugs the argument check of package protoargs into
// connect-go (connectrpc.com/connect), as grpcargs does for gRPC: one
// interceptor, for handlers and clients, unary and streaming, that repairs
// the Struct fields of requests in place (under the Checker's policy) and
// rejects invalid ones with connect.CodeInvalidArgument carrying a
// google.rpc.BadRequest (field paths such as "arguments.filters[0].value")
// and the structkit.v1.Report. Handlers read what was repaired with
// protoargs.FromContext; clients read the details with Problems.
//
// # Options
//
// Options follow the conventions said once in package
// [github.com/structkit/structkit/structconv]: plain structs used by value,
// written with field names only.
package connectargs

import (
	"context"
	"errors"

	"connectrpc.com/connect"
	"google.golang.org/genproto/googleapis/rpc/errdetails"

	structkitv1 "github.com/structkit/structkit/gen/structkit/v1"
	"github.com/structkit/structkit/protoargs"
)

// Options configure the interceptor: protoargs.RPCOptions, the options
// of grpcargs and of connectargs/v2 too.
type Options = protoargs.RPCOptions

// NewInterceptor returns the interceptor: pass it to a handler or a client
// with connect.WithInterceptors. In a handler it checks every request (for
// a stream: every message Receive returns); in a client, every request
// before it is sent (for a stream: every message Send sends).
func NewInterceptor(o Options) connect.Interceptor { return &interceptor{o: o} }

// Error builds the CodeInvalidArgument error for a result with problems:
// a one-line summary, a google.rpc.BadRequest and the structkit.v1.Report.
// It returns nil for a valid result.
func Error(res *protoargs.Result) *connect.Error {
	if res.Valid() {
		return nil
	}
	err := connect.NewError(connect.CodeInvalidArgument, errors.New(res.Summary()))
	for _, d := range res.Details() {
		if detail, e := connect.NewErrorDetail(d); e == nil {
			err.AddDetail(detail)
		}
	}
	return err
}

// Problems reads the structkit.v1.Report and the google.rpc.BadRequest out
// of an error a call returned. ok is false when err carries neither.
func Problems(err error) (report *structkitv1.Report, badRequest *errdetails.BadRequest, ok bool) {
	var ce *connect.Error
	if !errors.As(err, &ce) {
		return nil, nil, false
	}
	var details []any
	for _, d := range ce.Details() {
		if v, e := d.Value(); e == nil {
			details = append(details, v)
		}
	}
	report, br, ok := protoargs.FromDetails(details)
	badRequest, _ = br.(*errdetails.BadRequest)
	return report, badRequest, ok
}

type interceptor struct{ o Options }

// check checks one message, as grpcargs does; err is the error to fail the
// call with: CodeInternal when the check itself failed (the cause kept for
// errors.As), CodeInvalidArgument with the details for an invalid request.
func (i *interceptor) check(ctx context.Context, msg any) (*protoargs.Result, error) {
	res, err := i.o.Check(ctx, msg)
	switch {
	case err != nil:
		return nil, connect.NewError(connect.CodeInternal, err)
	case i.o.Reject(res):
		return res, Error(res)
	}
	return res, nil
}

// WrapUnary checks the request of a unary call: in a client before it
// is sent, in a handler before the handler runs.
func (i *interceptor) WrapUnary(next connect.UnaryFunc) connect.UnaryFunc {
	return func(ctx context.Context, req connect.AnyRequest) (connect.AnyResponse, error) {
		res, err := i.check(ctx, req.Any())
		if err != nil {
			return nil, err
		}
		if !req.Spec().IsClient {
			ctx, _ = protoargs.NewContext(ctx, res)
		}
		return next(ctx, req)
	}
}

// WrapStreamingClient checks each message a client stream sends.
func (i *interceptor) WrapStreamingClient(next connect.StreamingClientFunc) connect.StreamingClientFunc {
	return func(ctx context.Context, spec connect.Spec) connect.StreamingClientConn {
		return &clientConn{StreamingClientConn: next(ctx, spec), i: i, ctx: ctx}
	}
}

// WrapStreamingHandler checks each message a handler stream receives.
func (i *interceptor) WrapStreamingHandler(next connect.StreamingHandlerFunc) connect.StreamingHandlerFunc {
	return func(ctx context.Context, conn connect.StreamingHandlerConn) error {
		ctx, set := protoargs.NewContext(ctx, nil)
		return next(ctx, &handlerConn{StreamingHandlerConn: conn, i: i, set: set, ctx: ctx})
	}
}

type clientConn struct {
	connect.StreamingClientConn
	i   *interceptor
	ctx context.Context
}

// Send checks msg, then sends it; an invalid one is not sent (unless
// PassInvalid).
func (c *clientConn) Send(msg any) error {
	if _, err := c.i.check(c.ctx, msg); err != nil {
		return err
	}
	return c.StreamingClientConn.Send(msg)
}

type handlerConn struct {
	connect.StreamingHandlerConn
	i   *interceptor
	set func(*protoargs.Result)
	ctx context.Context
}

// Receive receives msg, then checks it; an invalid one fails with the
// InvalidArgument error (unless PassInvalid).
func (c *handlerConn) Receive(msg any) error {
	if err := c.StreamingHandlerConn.Receive(msg); err != nil {
		return err
	}
	res, err := c.i.check(c.ctx, msg)
	c.set(res)
	return err
}
