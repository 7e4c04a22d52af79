package protoargs

// SchemaOption exposes to the tests how a field's option is read.
var SchemaOption = schemaOption
