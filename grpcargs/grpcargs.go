// Package grpcargs plugs the argument check of package protoargs into gRPC:
// server interceptors (unary and streaming) that repair the Struct fields
// of incoming requests in place and reject invalid ones with a standard
// InvalidArgument status a client can read field by field, and client
// interceptors that do the same before a request leaves.
//
// The status carries two details: a google.rpc.BadRequest whose field
// violations name the protobuf field path joined with the JSON Pointer
// inside the Struct ("arguments.filters[0].value"), and the
// structkit.v1.Report with every change and problem. Problems reads them
// back on the client; a handler reads what was repaired with
// protoargs.FromContext.
//
// # Options
//
// Options follow the conventions said once in package
// [github.com/structkit/structkit/structconv]: plain structs used by value,
// written with field names only.
package grpcargs

import (
	"context"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/protoadapt"

	structkitv1 "github.com/structkit/structkit/gen/structkit/v1"
	"github.com/structkit/structkit/protoargs"
)

// Status builds the InvalidArgument status for a result with problems:
// a one-line summary, a google.rpc.BadRequest with one field violation per
// problem, and the structkit.v1.Report. It returns nil for a valid result.
func Status(res *protoargs.Result) *status.Status {
	if res.Valid() {
		return nil
	}
	st := status.New(codes.InvalidArgument, res.Summary())
	details := res.Details()
	v1 := make([]protoadapt.MessageV1, len(details))
	for i, d := range details {
		v1[i] = protoadapt.MessageV1Of(d)
	}
	if withDetails, err := st.WithDetails(v1...); err == nil {
		return withDetails
	}
	return st
}

// Problems reads the structkit.v1.Report and the google.rpc.BadRequest
// out of an error a call returned. ok is false when err carries neither.
func Problems(err error) (report *structkitv1.Report, badRequest *errdetails.BadRequest, ok bool) {
	st, isStatus := status.FromError(err)
	if !isStatus || st == nil {
		return nil, nil, false
	}
	report, br, ok := protoargs.FromDetails(st.Details())
	badRequest, _ = br.(*errdetails.BadRequest)
	return report, badRequest, ok
}

// Options configure the interceptors: protoargs.RPCOptions, the options
// of connectargs too.
type Options = protoargs.RPCOptions

// check checks one message; err is the status to fail the call with:
// Internal when the check itself failed, InvalidArgument with the details
// for an invalid request.
func check(ctx context.Context, o Options, msg any) (*protoargs.Result, error) {
	res, err := o.Check(ctx, msg)
	switch {
	case err != nil:
		return nil, status.Error(codes.Internal, err.Error())
	case o.Reject(res):
		return res, Status(res).Err()
	}
	return res, nil
}

// UnaryServerInterceptor checks every request before the handler sees it.
func UnaryServerInterceptor(o Options) grpc.UnaryServerInterceptor {
	return func(ctx context.Context, req any, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
		res, err := check(ctx, o, req)
		if err != nil {
			return nil, err
		}
		ctx, _ = protoargs.NewContext(ctx, res)
		return handler(ctx, req)
	}
}

// StreamServerInterceptor checks every message a handler receives: an
// invalid one makes RecvMsg return the InvalidArgument status (unless
// PassInvalid).
func StreamServerInterceptor(o Options) grpc.StreamServerInterceptor {
	return func(srv any, ss grpc.ServerStream, info *grpc.StreamServerInfo, handler grpc.StreamHandler) error {
		ctx, set := protoargs.NewContext(ss.Context(), nil)
		return handler(srv, &serverStream{ServerStream: ss, o: o, set: set, ctx: ctx})
	}
}

type serverStream struct {
	grpc.ServerStream
	o   Options
	set func(*protoargs.Result)
	ctx context.Context
}

func (s *serverStream) Context() context.Context { return s.ctx }

func (s *serverStream) RecvMsg(m any) error {
	if err := s.ServerStream.RecvMsg(m); err != nil {
		return err
	}
	res, err := check(s.ctx, s.o, m)
	s.set(res)
	return err
}

// UnaryClientInterceptor checks a request before it leaves: an invalid
// one fails with the InvalidArgument status and is not sent (unless
// PassInvalid).
func UnaryClientInterceptor(o Options) grpc.UnaryClientInterceptor {
	return func(ctx context.Context, method string, req, reply any, cc *grpc.ClientConn, invoker grpc.UnaryInvoker, opts ...grpc.CallOption) error {
		if _, err := check(ctx, o, req); err != nil {
			return err
		}
		return invoker(ctx, method, req, reply, cc, opts...)
	}
}

// StreamClientInterceptor checks each message before SendMsg sends it.
func StreamClientInterceptor(o Options) grpc.StreamClientInterceptor {
	return func(ctx context.Context, desc *grpc.StreamDesc, cc *grpc.ClientConn, method string, streamer grpc.Streamer, opts ...grpc.CallOption) (grpc.ClientStream, error) {
		cs, err := streamer(ctx, desc, cc, method, opts...)
		if err != nil {
			return nil, err
		}
		return &clientStream{ClientStream: cs, o: o}, nil
	}
}

type clientStream struct {
	grpc.ClientStream
	o Options
}

func (s *clientStream) SendMsg(m any) error {
	if _, err := check(s.Context(), s.o, m); err != nil {
		return err
	}
	return s.ClientStream.SendMsg(m)
}
