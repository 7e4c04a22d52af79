// Package connectargs plugs the argument check of package protoargs into
// connect-go v2 (connectrpc.com/connect/v2), as its v1 counterpart
// (github.com/structkit/structkit/connectargs) does for connect-go v1: a
// server interceptor and a client interceptor that repair the Struct
// fields of requests in place (under the Checker's policy) and reject
// invalid ones with connect.CodeInvalidArgument carrying a
// google.rpc.BadRequest (field paths such as "arguments.filters[0].value")
// and the structkit.v1.Report. Handlers read what was repaired with
// protoargs.FromContext; clients read the details with Problems.
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
			ctx, set := protoargs.NewContext(ctx, nil)
			return next(ctx, spec, &serverStream{ServerStream: stream, o: o, set: set, ctx: ctx})
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
	if res.Valid() {
		return nil
	}
	err := connect.NewError(connect.CodeInvalidArgument, res.Summary())
	for _, d := range res.Details() {
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
	report, br, ok := protoargs.FromDetails(details)
	badRequest, _ = br.(*errdetails.BadRequest)
	return report, badRequest, ok
}

// check checks one message, as grpcargs does; err is the error to fail the
// call with: CodeInternal when the check itself failed (the cause kept for
// errors.As), CodeInvalidArgument with the details for an invalid request.
func check(ctx context.Context, o Options, msg any) (*protoargs.Result, error) {
	res, err := o.Check(ctx, msg)
	switch {
	case err != nil:
		return nil, connect.NewError(connect.CodeInternal, err.Error()).WithCause(err)
	case o.Reject(res):
		return res, Error(res)
	}
	return res, nil
}

type serverStream struct {
	connect.ServerStream
	o   Options
	set func(*protoargs.Result)
	ctx context.Context
}

// Receive receives msg, then checks it; an invalid one fails with the
// InvalidArgument error (unless PassInvalid).
func (s *serverStream) Receive(msg any) error {
	if err := s.ServerStream.Receive(msg); err != nil {
		return err
	}
	res, err := check(s.ctx, s.o, msg)
	s.set(res)
	return err
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
	if _, err := check(c.ctx, c.o, msg); err != nil {
		if c.single {
			_ = c.ClientStream.Close() // nothing else can be sent: release the stream
		}
		return err
	}
	return c.ClientStream.Send(msg)
}
