package grpcmcp

import (
	"strings"
	"testing"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/emptypb"

	"github.com/structkit/structkit/gateway/internal/msgtext"
)

func badRequest(t *testing.T, msg string, vs ...*errdetails.BadRequest_FieldViolation) error {
	t.Helper()
	st, err := status.New(codes.InvalidArgument, msg).WithDetails(&errdetails.BadRequest{FieldViolations: vs})
	if err != nil {
		t.Fatal(err)
	}
	return st.Err()
}

// TestStatusTextBounded: 200,000 violations made 4.9 MB of text; now at
// most ServerDetailCount are listed, the rest counted, and a long message
// is cut saying so.
func TestStatusTextBounded(t *testing.T) {
	input := (&emptypb.Empty{}).ProtoReflect().Descriptor()
	vs := make([]*errdetails.BadRequest_FieldViolation, 200_000)
	for i := range vs {
		vs[i] = &errdetails.BadRequest_FieldViolation{Field: "items", Description: "must be positive, it is the item of a long list of items"}
	}
	text := statusText("t", input, badRequest(t, strings.Repeat("m", 5_000_000), vs...))
	if len(text) > msgtext.ServerTextLimit+msgtext.ServerDetailCount*(msgtext.ServerDetailLimit+8)+200 {
		t.Errorf("%d bytes of text", len(text))
	}
	for _, want := range []string{"(cut at ", " bytes of 5.0 MB)", "\n- … and 199950 more (not shown)", "\nCorrect these arguments"} {
		if !strings.Contains(text, want) {
			t.Errorf("text lacks %q: ...%s", want, text[len(text)-300:])
		}
	}
	if n := strings.Count(text, "\n- /items: "); n != msgtext.ServerDetailCount {
		t.Errorf("%d violations listed, want %d", n, msgtext.ServerDetailCount)
	}
}

// TestStatusTextClean: NUL, bidi controls and newlines from the server
// are escaped; no line can be forged.
func TestStatusTextClean(t *testing.T) {
	input := (&emptypb.Empty{}).ProtoReflect().Descriptor()
	text := statusText("t", input, badRequest(t, "bad\x00 \u202eexe.txt\n- /admin: forged",
		&errdetails.BadRequest_FieldViolation{Field: "a\nb", Description: "x\n- /root: forged too\u2066"}))
	lines := strings.Split(text, "\n")
	want := []string{
		`The call of tool "t" failed: INVALID_ARGUMENT: bad\u0000 \u202eexe.txt\n- /admin: forged`,
		`- /a\nb: x\n- /root: forged too\u2066`,
		"Correct these arguments and call the tool again.",
	}
	if strings.Join(lines, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", text, strings.Join(want, "\n"))
	}
}
