// Package connectargs plugs the argument check of package protoargs into
// connect-go (connectrpc.com/connect), as grpcargs does for gRPC: one
// interceptor, for handlers and clients, unary and streaming, that repairs
// the Struct fields of requests in place (under the Checker's policy) and
// rejects invalid ones with connect.CodeInvalidArgument carrying a
// google.rpc.BadRequest (field paths such as "arguments.filters[0].value")
// and the structkit.v1.Report. Handlers read what was repaired with
// FromContext; clients read the details with Problems.
package connectargs

import (
	"context"
	"errors"

	"connectrpc.com/connect"
	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/protobuf/proto"

	structkitv1 "github.com/structkit/structkit/gen/structkit/v1"
	"github.com/structkit/structkit/internal/badrequest"
	"github.com/structkit/structkit/internal/pragma"
	"github.com/structkit/structkit/protoargs"
)

// Options configure the interceptor.
type Options struct {
	pragma.NoUnkeyedLiterals

	// Checker checks the requests; required.
	Checker *protoargs.Checker
	// PassInvalid hands invalid requests to the handler (which can read
	// the problems with FromContext) instead of rejecting them. Clients
	// ignore it.
	PassInvalid bool
}

// NewInterceptor returns the interceptor: pass it to a handler or a client
// with connect.WithInterceptors. In a handler it checks every request (for
// a stream: every message Receive returns); in a client, every request
// before it is sent (for a stream: every message Send sends).
func NewInterceptor(o Options) connect.Interceptor { return &interceptor{o: o} }

// Error builds the CodeInvalidArgument error for a result with problems:
// a one-line summary, a google.rpc.BadRequest and the structkit.v1.Report.
// It returns nil for a valid result.
func Error(res *protoargs.Result) *connect.Error {
	msg, br, report, ok := badrequest.Build(res)
	if !ok {
		return nil
	}
	err := connect.NewError(connect.CodeInvalidArgument, errors.New(msg))
	for _, d := range []proto.Message{br, report} {
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
	for _, d := range ce.Details() {
		v, e := d.Value()
		if e != nil {
			continue
		}
		switch m := v.(type) {
		case *structkitv1.Report:
			report = m
		case *errdetails.BadRequest:
			badRequest = m
		}
	}
	return report, badRequest, report != nil || badRequest != nil
}

type ctxKey struct{}

// holder carries results through a context; a stream updates it per
// message.
type holder struct{ res *protoargs.Result }

// FromContext returns what the interceptor did to the request a handler is
// serving (for a stream: to the last message received). ok is false
// outside an intercepted call.
func FromContext(ctx context.Context) (res *protoargs.Result, ok bool) {
	h, ok := ctx.Value(ctxKey{}).(*holder)
	if !ok || h.res == nil {
		return nil, false
	}
	return h.res, true
}

type interceptor struct{ o Options }

// check checks one message; client says whether invalid ones are always
// refused.
func (i *interceptor) check(ctx context.Context, msg any, client bool) (*protoargs.Result, error) {
	m, ok := msg.(proto.Message)
	if !ok || i.o.Checker == nil {
		return nil, nil
	}
	res, err := i.o.Checker.Check(ctx, m)
	if err != nil {
		var fe *protoargs.FieldError
		if errors.As(err, &fe) {
			return nil, connect.NewError(connect.CodeInternal, err)
		}
		return nil, connect.NewError(connect.CodeInternal, errors.New("checking arguments: "+err.Error()))
	}
	if !res.Valid() && (client || !i.o.PassInvalid) {
		return res, Error(res)
	}
	return res, nil
}

// WrapUnary checks the request of a unary call: in a client before it
// is sent, in a handler before the handler runs.
func (i *interceptor) WrapUnary(next connect.UnaryFunc) connect.UnaryFunc {
	return func(ctx context.Context, req connect.AnyRequest) (connect.AnyResponse, error) {
		client := req.Spec().IsClient
		res, err := i.check(ctx, req.Any(), client)
		if err != nil {
			return nil, err
		}
		if !client {
			ctx = context.WithValue(ctx, ctxKey{}, &holder{res: res})
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
		h := &holder{}
		ctx = context.WithValue(ctx, ctxKey{}, h)
		return next(ctx, &handlerConn{StreamingHandlerConn: conn, i: i, h: h, ctx: ctx})
	}
}

type clientConn struct {
	connect.StreamingClientConn
	i   *interceptor
	ctx context.Context
}

// Send checks msg, then sends it; an invalid one is not sent.
func (c *clientConn) Send(msg any) error {
	if _, err := c.i.check(c.ctx, msg, true); err != nil {
		return err
	}
	return c.StreamingClientConn.Send(msg)
}

type handlerConn struct {
	connect.StreamingHandlerConn
	i   *interceptor
	h   *holder
	ctx context.Context
}

// Receive receives msg, then checks it; an invalid one fails with the
// InvalidArgument error (unless PassInvalid).
func (c *handlerConn) Receive(msg any) error {
	if err := c.StreamingHandlerConn.Receive(msg); err != nil {
		return err
	}
	res, err := c.i.check(c.ctx, msg, false)
	c.h.res = res
	return err
}
