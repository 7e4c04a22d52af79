module github.com/structkit/structkit

go 1.26.8

require (
	github.com/google/go-cmp v0.7.0
	github.com/santhosh-tekuri/jsonschema/v6 v6.0.3
	google.golang.org/protobuf v1.36.12
)

require golang.org/x/text v0.14.0
