module github.com/structkit/structkit

go 1.26.0

require (
	github.com/google/go-cmp v0.7.0
	google.golang.org/protobuf v1.36.12
)
