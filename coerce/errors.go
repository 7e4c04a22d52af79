package coerce

// SchemaError is the error structconv.Compile returns for a schema it
// cannot plan: an unresolvable or cyclic $ref, a keyword of the wrong
// shape, a pattern that does not compile, nesting deeper than 1000 JSON
// Pointer tokens. Match it with errors.As.
type SchemaError struct {
	// Pointer is the JSON Pointer of the offending location in the schema
	// document ("" is the root). For a location in another resource it is
	// prefixed by that resource's URI.
	Pointer string
	// Keyword is the keyword at fault, or "" when the location as a whole is.
	Keyword string
	// Msg says what is wrong.
	Msg string
	// Err is the underlying error, if any.
	Err error
}

// Error renders the error: "schema /properties/a ($ref): msg: err".
func (e *SchemaError) Error() string {
	s := "schema " + displayPath(e.Pointer)
	if e.Keyword != "" {
		s += " (" + e.Keyword + ")"
	}
	s += ": " + e.Msg
	if e.Err != nil {
		s += ": " + e.Err.Error()
	}
	return s
}

// Unwrap returns the underlying error.
func (e *SchemaError) Unwrap() error { return e.Err }
