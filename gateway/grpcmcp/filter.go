package grpcmcp

import (
	"fmt"

	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/descriptorpb"

	"github.com/structkit/structkit/gateway/internal/scope"
)

// Scoped tools
//
// Options.Tools, ExcludeTools and ReadOnly choose the methods that become
// tools, before the limits count them (a hidden method takes no room in
// MaxTools or MaxListBytes, and its schemas are not generated). A method
// is exposed when
//   - Tools is empty, or one of its patterns matches one of its names;
//   - no pattern of ExcludeTools matches one of its names (ExcludeTools
//     wins over Tools);
//   - ReadOnly is false, or its idempotency_level is NO_SIDE_EFFECTS.
//
// Its names are the tool's name (Options.ToolName's, or Tool.Name), the
// method's full name with a slash, "pkg.Service/Method", as gRPC names it
// on the wire, and with a dot, "pkg.Service.Method", its protobuf full
// name. Patterns are path.Match's, but for "/", which * and ? match too:
// * matches any run of characters, ? one character, [a-z] a class, \
// quotes; case counts. So "OrderService_Get*",
// "structkit.example.v2.OrderService/*" and "structkit.example.v2.*"
// all select by service; "*" alone matches every tool name.

// scoped is the scope of one registration.
type scoped struct {
	m *scope.Matcher
}

// scope checks Options' patterns and header names.
func (r *registration) scope() (scoped, error) {
	m, err := scope.Compile(scope.Filter{Include: r.o.Tools, Exclude: r.o.ExcludeTools, ReadOnly: r.o.ReadOnly}, "grpcmcp: Tools", "grpcmcp: ExcludeTools")
	if err != nil {
		return scoped{}, err
	}
	if r.forward, err = scope.CompileForward("grpcmcp: Forward", r.o.Forward); err != nil {
		return scoped{}, err
	}
	return scoped{m: m}, nil
}

// hides returns the Omission of a tool the scope hides.
func (sc scoped) hides(t Tool, o Options) (Omission, bool) {
	if !sc.m.Filters() || t.Method == nil {
		return Omission{}, false
	}
	md := t.Method
	name := toolName(t, o)
	why := sc.m.Keep(readOnly(md), name, string(md.Parent().FullName())+"/"+string(md.Name()), string(md.FullName()))
	if why == "" {
		return Omission{}, false
	}
	var msg string
	switch why {
	case scope.ByTools:
		msg = "matches no pattern of Tools"
	case scope.ByExcludeTools:
		msg = "matches a pattern of ExcludeTools"
	default:
		msg = fmt.Sprintf("not read-only (idempotency_level %s, not NO_SIDE_EFFECTS)", idempotency(md))
	}
	return Omission{Method: md.FullName(), Tool: name, Limit: why, Msg: msg}, true
}

// idempotency is the method's idempotency_level.
func idempotency(md protoreflect.MethodDescriptor) descriptorpb.MethodOptions_IdempotencyLevel {
	if opts, ok := md.Options().(*descriptorpb.MethodOptions); ok && opts != nil {
		return opts.GetIdempotencyLevel()
	}
	return descriptorpb.MethodOptions_IDEMPOTENCY_UNKNOWN
}

// readOnly reports whether a method is declared free of side effects
// (idempotency_level = NO_SIDE_EFFECTS), which also sets its tool's
// readOnlyHint.
func readOnly(md protoreflect.MethodDescriptor) bool {
	return idempotency(md) == descriptorpb.MethodOptions_NO_SIDE_EFFECTS
}
