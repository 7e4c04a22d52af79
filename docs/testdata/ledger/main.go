// Command ledger serves the LedgerService of proto/ledger/v1/ledger.proto
// as MCP tools through the registration protoc-gen-structkit generated,
// and calls its tool as an MCP client would, with 64-bit values beyond
// what a float64 holds.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"log"
	"math"
	"net"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/protobuf/proto"

	ledgerv1 "example.com/ledger/gen/ledger/v1"
)

// ledger answers with the entry it was asked for, and the smallest amount.
type ledger struct {
	ledgerv1.UnimplementedLedgerServiceServer
}

func (ledger) GetEntry(_ context.Context, req *ledgerv1.GetEntryRequest) (*ledgerv1.Entry, error) {
	return &ledgerv1.Entry{
		AccountId: proto.Int64(req.GetAccountId()),
		EntryId:   proto.Uint64(req.GetEntryId()),
		Amount:    proto.Int64(math.MinInt64),
	}, nil
}

func main() {
	ctx := context.Background()

	// The gRPC service, and a client of it.
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		log.Fatal(err)
	}
	gs := grpc.NewServer()
	ledgerv1.RegisterLedgerServiceServer(gs, ledger{})
	go gs.Serve(lis)
	defer gs.Stop()
	conn, err := grpc.NewClient(lis.Addr().String(), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		log.Fatal(err)
	}
	defer conn.Close()

	// Its methods as the tools of an MCP server: the generated function.
	server := mcp.NewServer(&mcp.Implementation{Name: "ledger", Version: "v1"}, nil)
	names, _, err := ledgerv1.RegisterLedgerServiceTools(server, ledgerv1.NewLedgerServiceClient(conn))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(names)

	// Any MCP client; here the go-sdk's, in memory.
	st, ct := mcp.NewInMemoryTransports()
	ss, err := server.Connect(ctx, st, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer ss.Close()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "client", Version: "v1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer cs.Close()
	for _, args := range []string{
		`{"accountId":9223372036854775807,"entryId":18446744073709551615}`,
		`{"entryId":1}`, // the LEGACY_REQUIRED account_id is missing
	} {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: names[0], Arguments: json.RawMessage(args)})
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(res.IsError, res.Content[0].(*mcp.TextContent).Text)
	}
}
