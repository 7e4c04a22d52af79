package protoargs

import "github.com/structkit/structkit/internal/pragma"

// RPCOptions configure the interceptors that check requests before they
// are dispatched or sent: grpcargs's, and connectargs's for connect-go v1
// and v2 (each package's Options is this type, so that one value
// configures them all).
type RPCOptions struct {
	pragma.NoUnkeyedLiterals // fields by name only, so that fields can be added

	// Checker checks the requests; required.
	Checker *Checker
	// PassInvalid lets invalid requests through, with what the check
	// repaired, instead of failing them: a server hands them to the
	// handler (which can read the problems with FromContext), a client
	// sends them.
	PassInvalid bool
}
