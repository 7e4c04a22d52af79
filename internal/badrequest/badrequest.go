// Package badrequest builds what grpcargs and connectargs send for invalid
// arguments: a one-line message, a google.rpc.BadRequest with one field
// violation per problem, and the structkit.v1.Report.
package badrequest

import (
	"google.golang.org/genproto/googleapis/rpc/errdetails"

	structkitv1 "github.com/structkit/structkit/gen/structkit/v1"
	"github.com/structkit/structkit/protoargs"
)

// Build returns the message and details for a result with problems, and
// ok false for a valid result. Field paths join the protobuf field path
// and the JSON Pointer inside the Struct ("arguments.filters[0].value").
func Build(res *protoargs.Result) (msg string, br *errdetails.BadRequest, report *structkitv1.Report, ok bool) {
	if res == nil || res.Valid() {
		return "", nil, nil, false
	}
	br = &errdetails.BadRequest{}
	n := 0
	first := ""
	for _, f := range res.Fields {
		for _, p := range f.Problems {
			if n == 0 {
				first = protoargs.FieldPath(f.Field, p.Path) + ": " + p.Msg
			}
			n++
			br.FieldViolations = append(br.FieldViolations, &errdetails.BadRequest_FieldViolation{
				Field:       protoargs.FieldPath(f.Field, p.Path),
				Description: p.String(),
				Reason:      p.Keyword,
			})
		}
	}
	msg = "invalid arguments: " + first
	if n > 1 {
		msg += " (and more: see the details)"
	}
	return msg, br, res.Proto(), true
}
