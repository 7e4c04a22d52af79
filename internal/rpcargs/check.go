package rpcargs

import (
	"context"
	"errors"
	"sync/atomic"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/protobuf/proto"

	structkitv1 "github.com/structkit/structkit/gen/structkit/v1"
)

// Check is a check of the Struct fields of a message: protoargs.Checker's
// method.
type Check func(ctx context.Context, msg proto.Message) (*Result, error)

// Failure is why a call must fail after the check of its message.
type Failure struct {
	// Internal is set when the check itself failed (a field's schema
	// cannot be had, the context is done); Msg says why. Otherwise the
	// message is invalid: Msg is the one-line summary, and BadRequest and
	// Report are the details. Err is the *FieldError when that is why the
	// check failed.
	Internal   bool
	Msg        string
	Err        error
	BadRequest *errdetails.BadRequest
	Report     *structkitv1.Report
}

// Run checks msg as every interceptor does, on a client before the
// message is sent and on a server before the handler sees it: a message
// that is not a protobuf message, or no check, passes untouched. An
// invalid message fails unless passInvalid, which lets it on (to the
// handler, or onto the wire) with what the check repaired; res says what
// was found either way.
func Run(ctx context.Context, check Check, msg any, passInvalid bool) (res *Result, fail *Failure) {
	m, ok := msg.(proto.Message)
	if !ok || check == nil {
		return nil, nil
	}
	res, err := check(ctx, m)
	if err != nil {
		var fe *FieldError
		if errors.As(err, &fe) {
			return nil, &Failure{Internal: true, Msg: err.Error(), Err: err}
		}
		return nil, &Failure{Internal: true, Msg: "checking arguments: " + err.Error()}
	}
	if res.Valid() || passInvalid {
		return res, nil
	}
	return res, Invalid(res)
}

// Details are the details an invalid message's error carries on every
// transport, in this order: the google.rpc.BadRequest, then the
// structkit.v1.Report. They are nil for an internal failure.
func (f *Failure) Details() []proto.Message {
	if f == nil || f.Internal {
		return nil
	}
	return []proto.Message{f.BadRequest, f.Report}
}

// Invalid is the failure of a result with problems: a one-line message, a
// google.rpc.BadRequest with one field violation per problem, and the
// structkit.v1.Report. It is nil for a valid result. Field paths join the
// protobuf field path and the JSON Pointer inside the Struct
// ("arguments.filters[0].value").
func Invalid(res *Result) *Failure {
	if res == nil || res.Valid() {
		return nil
	}
	br := &errdetails.BadRequest{}
	n := 0
	first := ""
	for _, f := range res.Fields {
		for _, p := range f.Problems {
			field := FieldPath(f.Field, p.Path)
			if n == 0 {
				first = field + ": " + p.Msg
			}
			n++
			br.FieldViolations = append(br.FieldViolations, &errdetails.BadRequest_FieldViolation{
				Field: field, Description: p.String(), Reason: p.Keyword,
			})
		}
	}
	msg := "invalid arguments: " + first
	if n > 1 {
		msg += " (and more: see the details)"
	}
	return &Failure{Msg: msg, BadRequest: br, Report: res.Proto()}
}

// Details picks the structkit.v1.Report and the google.rpc.BadRequest out
// of the details of an error; ok is false when they hold neither.
func Details(details []any) (report *structkitv1.Report, badRequest *errdetails.BadRequest, ok bool) {
	for _, d := range details {
		switch v := d.(type) {
		case *structkitv1.Report:
			report = v
		case *errdetails.BadRequest:
			badRequest = v
		}
	}
	return report, badRequest, report != nil || badRequest != nil
}

type ctxKey struct{}

// Holder carries what the check of a call found to its handler; a stream
// updates it with each message received.
type Holder struct{ res atomic.Pointer[Result] }

// Run checks a message a stream received, as Run does, and keeps what the
// check found for the handler to read, even when the message fails.
func (h *Holder) Run(ctx context.Context, check Check, msg any, passInvalid bool) *Failure {
	res, fail := Run(ctx, check, msg, passInvalid)
	h.Set(res)
	return fail
}

// Set keeps res for the handler to read. A stream's handler may read it
// in one goroutine while another receives (connect and gRPC allow a
// stream's Send and Receive to run concurrently): it is held atomically.
func (h *Holder) Set(res *Result) { h.res.Store(res) }

// WithHolder returns ctx carrying a new Holder, and the Holder.
func WithHolder(ctx context.Context, res *Result) (context.Context, *Holder) {
	h := &Holder{}
	h.Set(res)
	return context.WithValue(ctx, ctxKey{}, h), h
}

// FromContext returns the result a Holder in ctx carries; ok is false
// outside a checked call, or before anything was checked.
func FromContext(ctx context.Context) (res *Result, ok bool) {
	h, ok := ctx.Value(ctxKey{}).(*Holder)
	if !ok {
		return nil, false
	}
	res = h.res.Load()
	return res, res != nil
}
