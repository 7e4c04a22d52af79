// Package connectargs plugs the argument check of package protoargs into
// connect-go v2 (connectrpc.com/connect/v2), as its v1 counterpart
// (github.com/structkit/structkit/connectargs) does for connect-go v1: a
// server interceptor and a client interceptor that repair the Struct
// fields of requests in place (under the Checker's policy) and reject
// invalid ones with connect.CodeInvalidArgument carrying a
// google.rpc.BadRequest (field paths such as "arguments.filters[0].value")
// and the structkit.v1.Report. Handlers read what was repaired with
// FromContext; clients read the details with Problems.
//
// connect-go v2 runs every call, unary or streaming, as a stream, and so do
// the interceptors: the server one checks each message Receive returns
// (a generated unary handler receives its one request before calling your
// method), the client one each message Send sends. Among other
// interceptors the check runs where it is placed: those before it in
// connect.NewServer's list receive each message as it was sent, those
// after it the message repaired, and never one it refused. The checks, codes,
// details and Options are v1's, decided by the same code: a v1 and a v2
// handler answer the same invalid request with the same error.
package connectargs

import (
	"context"
	"errors"

	"connectrpc.com/connect/v2"
	"connectrpc.com/connect/v2/connectproto"
	"google.golang.org/genproto/googleapis/rpc/errdetails"

	structkitv1 "github.com/structkit/structkit/gen/structkit/v1"
	"github.com/structkit/structkit/internal/rpcargs"
	"github.com/structkit/structkit/protoargs"
)

// Options configure the interceptors: protoargs.RPCOptions, the options
// of connect-go v1's connectargs and of grpcargs too, so that one value
// configures them all.
type Options = protoargs.RPCOptions

// NewServerInterceptor returns the handler side: pass it to
// connect.NewServer. It checks every request message a handler receives;
// an invalid one makes Receive return the CodeInvalidArgument error
// (unless PassInvalid), so a generated unary handler returns it without
// calling your method.
func NewServerInterceptor(o Options) connect.ServerInterceptor {
	return func(next connect.ServerFunc) connect.ServerFunc {
		return func(ctx context.Context, spec connect.Spec, stream connect.ServerStream) error {
			ctx, h := rpcargs.WithHolder(ctx, nil)
			return next(ctx, spec, &serverStream{ServerStream: stream, o: o, h: h, ctx: ctx})
		}
	}
}

// NewClientInterceptor returns the client side: pass it to
// connect.NewClient. It checks every request message before Send sends
// it; an invalid one is not sent (unless PassInvalid) and Send returns the
// CodeInvalidArgument error. For a unary or server-streaming call, whose
// one request was refused, the stream is closed too.
func NewClientInterceptor(o Options) connect.ClientInterceptor {
	return func(next connect.ClientFunc) connect.ClientFunc {
		return func(ctx context.Context, spec connect.Spec) (connect.ClientStream, error) {
			cs, err := next(ctx, spec)
			if err != nil {
				return nil, err
			}
			single := spec.StreamType&connect.StreamTypeClient == 0
			return &clientStream{ClientStream: cs, o: o, ctx: ctx, single: single}, nil
		}
	}
}

// Error builds the CodeInvalidArgument error for a result with problems:
// a one-line summary, a google.rpc.BadRequest and the structkit.v1.Report.
// It returns nil for a valid result.
func Error(res *protoargs.Result) *connect.Error {
	f := rpcargs.Invalid(res)
	if f == nil {
		return nil
	}
	return failureError(f)
}

// failureError is the error of a failed check: CodeInternal when the check
// itself failed (the cause kept for errors.As), CodeInvalidArgument with
// the details for an invalid request.
func failureError(f *rpcargs.Failure) *connect.Error {
	if f.Internal {
		return connect.NewError(connect.CodeInternal, f.Msg).WithCause(f.Err)
	}
	err := connect.NewError(connect.CodeInvalidArgument, f.Msg)
	for _, d := range f.Details() {
		if detail, e := connectproto.NewErrorDetail(d); e == nil {
			err = err.WithDetail(detail)
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
		if v, e := connectproto.UnmarshalErrorDetail(d); e == nil {
			details = append(details, v)
		}
	}
	return rpcargs.Details(details)
}

// FromContext returns what the interceptor did to the request a handler is
// serving (for a stream: to the last message received). ok is false
// outside an intercepted call, or before a message was received.
func FromContext(ctx context.Context) (res *protoargs.Result, ok bool) {
	return rpcargs.FromContext(ctx)
}

// checkOf is the check of the Options' Checker, nil without one.
func checkOf(o Options) rpcargs.Check {
	if o.Checker == nil {
		return nil
	}
	return o.Checker.Check
}

type serverStream struct {
	connect.ServerStream
	o   Options
	h   *rpcargs.Holder
	ctx context.Context
}

// Receive receives msg, then checks it; an invalid one fails with the
// InvalidArgument error (unless PassInvalid).
func (s *serverStream) Receive(msg any) error {
	if err := s.ServerStream.Receive(msg); err != nil {
		return err
	}
	if f := s.h.Run(s.ctx, checkOf(s.o), msg, s.o.PassInvalid); f != nil {
		return failureError(f)
	}
	return nil
}

type clientStream struct {
	connect.ClientStream
	o      Options
	ctx    context.Context
	single bool // the call has one request message
}

// Send checks msg, then sends it; an invalid one is not sent (unless
// PassInvalid).
func (c *clientStream) Send(msg any) error {
	if _, f := rpcargs.Run(c.ctx, checkOf(c.o), msg, c.o.PassInvalid); f != nil {
		if c.single {
			_ = c.ClientStream.Close() // nothing else can be sent: release the stream
		}
		return failureError(f)
	}
	return c.ClientStream.Send(msg)
}
