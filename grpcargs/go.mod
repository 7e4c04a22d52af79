module github.com/structkit/structkit/grpcargs

go 1.26.0

replace (
	github.com/structkit/structkit => ../
	github.com/structkit/structkit/examples => ../examples
)

require (
	github.com/structkit/structkit v0.0.0-00010101000000-000000000000
	github.com/structkit/structkit/examples v0.0.0-00010101000000-000000000000
	google.golang.org/genproto/googleapis/rpc v0.0.0-20261005182115-fad411399dd8
	google.golang.org/grpc v1.85.0
	google.golang.org/protobuf v1.36.12
)

require (
	golang.org/x/net v0.60.0 // indirect
	golang.org/x/sys v0.48.0 // indirect
	golang.org/x/text v0.42.0 // indirect
)
