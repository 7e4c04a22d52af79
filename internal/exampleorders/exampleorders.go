// Package exampleorders is an in-memory implementation of the example
// service structkit.example.v2.OrderService, for tests and demonstrations:
// it stores orders as they arrive, exact to the last digit of their 64-bit
// IDs, and rejects some with a google.rpc.BadRequest.
package exampleorders

import (
	"context"
	"sort"
	"strconv"
	"sync"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/timestamppb"

	examplev2 "github.com/structkit/structkit/gen/structkit/example/v2"
)

// BigOrderID is the ID of the order a new Server holds: 2^63 - 1, which no
// double can hold.
const BigOrderID = 9223372036854775807

// BigAccountID is the account of that order: 2^64 - 1.
const BigAccountID = 18446744073709551615

// MaxQuantity is the largest quantity of a line item the server accepts;
// more is refused with a BadRequest naming the field.
const MaxQuantity = 100

// Server implements OrderService in memory. Safe for concurrent use.
type Server struct {
	examplev2.UnimplementedOrderServiceServer

	mu     sync.Mutex
	orders map[int64]*examplev2.Order
	// Last is the last request a method received, as it arrived.
	last proto.Message
}

// New returns a server holding one order, BigOrderID.
func New() *Server {
	s := &Server{orders: map[int64]*examplev2.Order{}}
	s.orders[BigOrderID] = &examplev2.Order{
		OrderId:         BigOrderID,
		AccountId:       BigAccountID,
		Items:           []*examplev2.Order_LineItem{{Sku: "SKU-1", Quantity: 2, UnitPriceMicros: -9007199254740993}},
		NotesByUser:     map[int64]string{9007199254740993: "leave at the door"},
		Payment:         &examplev2.Order_WalletId{WalletId: 18446744073709551614},
		Priority:        examplev2.Priority_PRIORITY_HIGH,
		CreatedAt:       &timestamppb.Timestamp{Seconds: 1714564800},
		RelatedOrderIds: []int64{-9223372036854775808, 9007199254740993},
	}
	return s
}

// Register registers the server on r.
func (s *Server) Register(r grpc.ServiceRegistrar) { examplev2.RegisterOrderServiceServer(r, s) }

// Last returns a copy of the last request received.
func (s *Server) Last() proto.Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.last == nil {
		return nil
	}
	return proto.Clone(s.last)
}

func (s *Server) record(m proto.Message) {
	s.mu.Lock()
	s.last = proto.Clone(m)
	s.mu.Unlock()
}

// GetOrder returns the order of the ID, or NotFound.
func (s *Server) GetOrder(_ context.Context, req *examplev2.GetOrderRequest) (*examplev2.GetOrderResponse, error) {
	s.record(req)
	s.mu.Lock()
	defer s.mu.Unlock()
	o, ok := s.orders[req.GetOrderId()]
	if !ok {
		return nil, status.Errorf(codes.NotFound, "no order %d", req.GetOrderId())
	}
	return &examplev2.GetOrderResponse{Order: proto.Clone(o).(*examplev2.Order)}, nil
}

// CreateOrder stores the order and returns it; a line item of more than
// MaxQuantity is refused with InvalidArgument and a BadRequest.
func (s *Server) CreateOrder(_ context.Context, req *examplev2.CreateOrderRequest) (*examplev2.CreateOrderResponse, error) {
	s.record(req)
	o := req.GetOrder()
	br := &errdetails.BadRequest{}
	for i, it := range o.GetItems() {
		if it.GetQuantity() > MaxQuantity {
			br.FieldViolations = append(br.FieldViolations, &errdetails.BadRequest_FieldViolation{
				Field:       "order.items[" + itoa(i) + "].quantity",
				Description: "at most 100 of one item per order",
				Reason:      "QUANTITY_TOO_LARGE",
			})
		}
	}
	if len(br.FieldViolations) > 0 {
		st, _ := status.New(codes.InvalidArgument, "the order cannot be placed").WithDetails(br)
		return nil, st.Err()
	}
	if !req.GetValidateOnly() {
		s.mu.Lock()
		s.orders[o.GetOrderId()] = proto.Clone(o).(*examplev2.Order)
		s.mu.Unlock()
	}
	return &examplev2.CreateOrderResponse{Order: o, CreateTime: &timestamppb.Timestamp{Seconds: 1714564800}}, nil
}

// ListOrders returns the orders of the account, by ID.
func (s *Server) ListOrders(_ context.Context, req *examplev2.ListOrdersRequest) (*examplev2.ListOrdersResponse, error) {
	s.record(req)
	s.mu.Lock()
	defer s.mu.Unlock()
	resp := &examplev2.ListOrdersResponse{}
	for _, o := range s.orders {
		if o.GetAccountId() == req.GetAccountId() {
			resp.Orders = append(resp.Orders, proto.Clone(o).(*examplev2.Order))
		}
	}
	sort.Slice(resp.Orders, func(i, j int) bool { return resp.Orders[i].GetOrderId() < resp.Orders[j].GetOrderId() })
	resp.Total = uint64(len(resp.Orders)) + 18446744073709551000 // a count beyond 2^53, to show it survives
	return resp, nil
}

func itoa(i int) string { return strconv.Itoa(i) }
