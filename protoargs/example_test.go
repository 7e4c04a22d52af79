package protoargs_test

import (
	"context"
	"fmt"

	"google.golang.org/protobuf/types/known/structpb"

	"github.com/structkit/structkit/coerce"
	examplev1 "github.com/structkit/structkit/gen/structkit/example/v1"
	"github.com/structkit/structkit/protoargs"
	"github.com/structkit/structkit/structconv"
)

// A request whose arguments field carries its schema in the
// structkit.v1.schema option is repaired in place and validated.
func ExampleChecker_Check() {
	checker := &protoargs.Checker{CheckOptions: structconv.CheckOptions{Policy: coerce.Lenient()}}
	args, _ := structpb.NewStruct(map[string]any{"query": "deadlock", "limit": "7"})
	req := &examplev1.SearchRequest{Arguments: args}
	res, err := checker.Check(context.Background(), req)
	if err != nil {
		panic(err)
	}
	for _, f := range res.Fields {
		fmt.Println(f.Field, f.Report.String())
	}
	fmt.Println(res.Valid(), req.GetArguments().GetFields()["limit"].GetNumberValue())
	// Output:
	// arguments /limit: string-to-integer "7" -> 7
	// true 7
}
