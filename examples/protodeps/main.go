// Command protodeps writes the .proto files that structkit's own protos
// import from outside (protovalidate's buf/validate/validate.proto and
// googleapis' google/api/field_behavior.proto) from the descriptors their
// Go packages register, so buf can compile proto/ without reaching the
// Buf Schema Registry: the Go module proxy, through go.mod, is the one
// source. scripts/buf.sh runs it before buf into .protodeps/ (git-ignored),
// which buf.yaml names as a module of the workspace, excluded from lint.
//
//	go -C examples run ./protodeps DIR
//
// The files declare the same types, fields, numbers and extensions as the
// originals (what compiling and encoding options needs); comments and the
// options of their own elements are left out.
package main

import (
	"fmt"
	"os"
	"path/filepath"

	"buf.build/gen/go/bufbuild/protovalidate/protocolbuffers/go/buf/validate"
	"google.golang.org/genproto/googleapis/api/annotations"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/structkit/structkit/examples/protodeps/protoprint"
)

// files are the imported files to write.
var files = []protoreflect.FileDescriptor{
	validate.File_buf_validate_validate_proto,
	annotations.File_google_api_field_behavior_proto,
}

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: protodeps DIR")
		os.Exit(2)
	}
	if err := write(os.Args[1]); err != nil {
		fmt.Fprintln(os.Stderr, "protodeps:", err)
		os.Exit(1)
	}
}

func write(dir string) error {
	for _, fd := range files {
		src, err := protoprint.File(fd)
		if err != nil {
			return err
		}
		path := filepath.Join(dir, filepath.FromSlash(fd.Path()))
		if old, err := os.ReadFile(path); err == nil && string(old) == src {
			continue // unchanged: keep the timestamp
		}
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
			return err
		}
	}
	return nil
}
