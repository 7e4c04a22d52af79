module github.com/structkit/structkit/connectargs/v2

go 1.26.0

require (
	connectrpc.com/connect v1.21.1
	connectrpc.com/connect/v2 v2.0.2
	github.com/google/go-cmp v0.7.0
	github.com/structkit/structkit v0.0.0-00010101000000-000000000000
	github.com/structkit/structkit/connectargs v0.0.0-00010101000000-000000000000
	google.golang.org/genproto/googleapis/rpc v0.0.0-20261005182115-fad411399dd8
	google.golang.org/protobuf v1.36.12
)

replace (
	github.com/structkit/structkit => ../../
	github.com/structkit/structkit/connectargs => ../
)
