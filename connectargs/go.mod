module github.com/structkit/structkit/connectargs

go 1.26.0

require (
	connectrpc.com/connect v1.21.1
	github.com/structkit/structkit v0.0.0-00010101000000-000000000000
	google.golang.org/genproto/googleapis/rpc v0.0.0-20261005182115-fad411399dd8
	google.golang.org/protobuf v1.36.12
)

replace github.com/structkit/structkit => ../
