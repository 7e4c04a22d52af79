package grpcmcp

// FieldPointer exposes fieldPointer to the external tests.
var FieldPointer = fieldPointer
