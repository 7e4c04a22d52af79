package grpcmcp

// FieldPointer exposes fieldPointer to the external tests.
var FieldPointer = fieldPointer

// JSONSchemaTypes exposes jsonSchemaTypes to the external tests.
var JSONSchemaTypes = jsonSchemaTypes
