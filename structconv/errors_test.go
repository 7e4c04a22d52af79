package structconv_test

import (
	"errors"
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/structkit/structkit/structconv"
)

// TestDepth: nesting is bounded by MaxDepth (default and explicit), and no
// depth of input exhausts the stack, whatever MaxDepth says.
func TestDepth(t *testing.T) {
	nest := func(n int) []byte { return []byte(strings.Repeat("[", n) + strings.Repeat("]", n)) }
	tests := []struct {
		name     string
		why      string
		maxDepth int
		depth    int
		wantErr  bool
	}{
		{"default ok", "the default accepts deep but sane nesting", 0, structconv.DefaultMaxDepth, false},
		{"default too deep", "one level more fails", 0, structconv.DefaultMaxDepth + 1, true},
		{"explicit", "MaxDepth is honoured", 10, 11, true},
		{"huge limit capped", "a huge MaxDepth is capped, so a million levels fail cleanly instead of exhausting the stack", 1 << 40, 1_000_000, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var v structpb.Value
			err := structconv.UnmarshalOptions{MaxDepth: tt.maxDepth}.Unmarshal(nest(tt.depth), &v)
			if (err != nil) != tt.wantErr {
				t.Fatalf("err = %v, want error %v (%s)", err, tt.wantErr, tt.why)
			}
			var se *structconv.Error
			if err != nil && (!errors.As(err, &se) || se.Code != structconv.CodeDepth) {
				t.Fatalf("err = %v, want CodeDepth", err)
			}
		})
	}
}

// TestMarshalDepth: a Struct built in memory deeper than MaxDepthLimit
// fails with CodeDepth instead of exhausting the stack.
func TestMarshalDepth(t *testing.T) {
	v := structpb.NewNullValue()
	for i := 0; i <= structconv.MaxDepthLimit; i++ {
		v = structpb.NewListValue(&structpb.ListValue{Values: []*structpb.Value{v}})
	}
	_, err := structconv.Marshal(v)
	var se *structconv.Error
	if !errors.As(err, &se) || se.Code != structconv.CodeDepth {
		t.Fatalf("err = %v, want CodeDepth", err)
	}
}

// TestRootNotJSON: a document that is not JSON is a syntax error, also
// where the message wants another kind than its first letter would start
// ("nope" is not a null of the wrong kind); a value of the wrong kind is a
// type error at its first byte.
func TestRootNotJSON(t *testing.T) {
	for _, tc := range []struct {
		in   string
		m    func() proto.Message
		code structconv.ErrorCode
		msg  string
	}{
		{`nope`, func() proto.Message { return &structpb.Struct{} }, structconv.CodeSyntax, `unexpected "nope"`},
		{`  tru`, func() proto.Message { return &structpb.ListValue{} }, structconv.CodeSyntax, `unexpected "tru"`},
		{`nope`, func() proto.Message { return &structpb.Value{} }, structconv.CodeSyntax, `unexpected "nope"`},
		{`null`, func() proto.Message { return &structpb.Struct{} }, structconv.CodeType, `got null`},
		{`  [1]`, func() proto.Message { return &structpb.Struct{} }, structconv.CodeType, `got an array`},
		{`{}`, func() proto.Message { return &structpb.ListValue{} }, structconv.CodeType, `got an object`},
	} {
		err := structconv.Unmarshal([]byte(tc.in), tc.m())
		var e *structconv.Error
		if !errors.As(err, &e) || e.Code != tc.code || !strings.Contains(e.Msg, tc.msg) {
			t.Errorf("%q into %T: %v, want code %v saying %s", tc.in, tc.m(), err, tc.code, tc.msg)
			continue
		}
		if tc.code == structconv.CodeType && e.Offset != len(tc.in)-len(strings.TrimLeft(tc.in, " ")) {
			t.Errorf("%q: offset %d, want the value's first byte", tc.in, e.Offset)
		}
	}
}
