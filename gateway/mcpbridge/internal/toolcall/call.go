package toolcall

import (
	"bytes"
	"context"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/structkit/structkit/coerce"
	"github.com/structkit/structkit/jsonvalue"
	"github.com/structkit/structkit/structconv"
)

// Call prepares a client's call of one tool: its arguments as the JSON
// the tool's input schema calls for.
type Call struct {
	// Tool is the tool's name.
	Tool string
	// Input is the tool's compiled input schema. When Unchecked (no
	// usable schema), arguments go out unconverted.
	Input     *structconv.Schema
	Unchecked bool
	// Check turns on the pre-dispatch check; Options configure the
	// policy and the limits (its MaxDepth and Observer are set by Call:
	// the caller observes the whole report itself).
	Check   bool
	Options structconv.CheckOptions
	// MaxDepth bounds the nesting of what is sent.
	MaxDepth int
}

// Args is a call's arguments, made ready to send.
type Args struct {
	// JSON is the arguments' text to send; nil when Local is set.
	JSON []byte
	// Report holds the changes made to the arguments (but the integer
	// literals every whole number gets) and the problems the check found.
	Report coerce.Report
	// Local, when not empty, is the IsError text to answer the call with
	// without calling the server: the check found problems.
	Local string
	// NotValidated, when not empty, says why the arguments were
	// converted but not checked although Check asked for it.
	NotValidated string
}

// check returns the pre-dispatch check of the tool's arguments.
func (c *Call) check() structconv.CheckOptions {
	o := c.Options
	o.MaxDepth, o.Observer = c.MaxDepth, nil
	return o
}

// local records the check's report in a and reports whether its
// problems answer the call locally.
func (c *Call) local(a *Args, crep *coerce.Report) bool {
	a.Report.Changes = append(a.Report.Changes, crep.Changes...)
	a.Report.Problems = append(a.Report.Problems, crep.Problems...)
	if crep.Valid() {
		return false
	}
	a.Local = coerce.FormatProblems(c.Tool, crep.Problems)
	return true
}

// Struct prepares arguments held in a Struct (nil means none; args is not
// modified). A Struct cannot tell a number from a string of digits: an
// integer beyond ±2^53 it carries is written as a number only where the
// tool's schema says integer.
func (c *Call) Struct(ctx context.Context, args *structpb.Struct) (*Args, error) {
	if args == nil {
		args = &structpb.Struct{}
	}
	a := &Args{}
	marshal := structconv.MarshalOptions{Schema: c.Input, Policy: c.Options.Policy, MaxDepth: c.MaxDepth}
	var err error
	switch {
	case c.Unchecked:
		marshal.Schema, marshal.Policy = nil, coerce.Policy{}
		a.JSON, err = marshal.Marshal(args)
	case c.Check:
		fixed := proto.Clone(args).(*structpb.Struct)
		var crep *coerce.Report
		crep, err = c.check().Struct(ctx, c.Tool, c.Input, fixed)
		if why, ok := NotValidated(err); ok {
			// The validator cannot compile the schema (an ECMAScript-only
			// pattern, say): convert without validating, and say so.
			a.NotValidated = why
			a.JSON, err = marshalReporting(marshal, args, &a.Report)
			break
		}
		if err != nil {
			break
		}
		if c.local(a, crep) {
			return a, nil
		}
		marshal.Policy = coerce.Policy{} // applied by the check
		var mrep coerce.Report
		marshal.Report = &mrep
		a.JSON, err = marshal.Marshal(fixed)
		appendUnchecked(&a.Report, mrep.Changes)
	default:
		a.JSON, err = marshalReporting(marshal, args, &a.Report)
	}
	if err != nil {
		return nil, err
	}
	return a, nil
}

// JSON prepares arguments given as JSON text (an object; empty means
// none), never passing them through a Struct: every literal the caller
// wrote goes out as written, except where the tool's input schema calls
// for a change (integer literals at integer locations, the lenient
// repairs, which the report lists). The text is read strictly, as
// structconv.Unmarshal reads (duplicate members, invalid UTF-8, nesting
// beyond MaxDepth and over-long numbers are refused with their location),
// in the check's one pass (CheckOptions.JSON, or Repair when the check is
// off or the validator cannot compile the schema).
func (c *Call) JSON(ctx context.Context, args []byte) (*Args, error) {
	if len(bytes.TrimSpace(args)) == 0 {
		args = []byte("{}")
	}
	o, a := c.check(), &Args{}
	input := c.Input
	if c.Unchecked {
		input, o.Policy = nil, coerce.Policy{}
	}
	check := o.Repair
	if c.Check && !c.Unchecked {
		check = o.JSON
	}
	out, rep, err := check(ctx, c.Tool, input, args)
	if why, ok := NotValidated(err); ok {
		// The validator cannot compile the schema (an ECMAScript-only
		// pattern, say): convert without validating, and say so.
		a.NotValidated = why
		out, rep, err = o.Repair(ctx, c.Tool, input, args)
	}
	if err == nil {
		err = wantObject(args)
	}
	if err != nil {
		return nil, err
	}
	switch {
	case c.Unchecked:
		a.JSON = bytes.TrimSpace(args) // read strictly, sent as it is
	case !c.local(a, rep):
		a.JSON = out
	}
	return a, nil
}

// wantObject refuses arguments, read well, that are not a JSON object.
func wantObject(args []byte) error {
	d := jsonvalue.Options{}.NewDecoder(string(args))
	if k := d.Peek(); k != '{' {
		return &structconv.Error{Code: structconv.CodeType, Offset: d.Offset(), Msg: "want a JSON object for the arguments, got " + k.String()}
	}
	return nil
}

// marshalReporting marshals args with o, adding its changes (but the
// integer literals every whole number gets) to rep.
func marshalReporting(o structconv.MarshalOptions, args *structpb.Struct, rep *coerce.Report) ([]byte, error) {
	var mrep coerce.Report
	o.Report = &mrep
	b, err := o.Marshal(args)
	AppendChanges(rep, mrep.Changes, "")
	return b, err
}
