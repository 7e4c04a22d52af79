package schema

// Error is a schema the compiler cannot plan. Package coerce presents it
// as a *coerce.SchemaError with the same fields.
type Error struct {
	// Pointer is the JSON Pointer of the offending location in the schema
	// document ("" is the root); in another resource, prefixed by its URI.
	Pointer string
	// Keyword is the keyword at fault, or "".
	Keyword string
	// Msg says what is wrong.
	Msg string
	// Err is the underlying error, if any.
	Err error
}

func (e *Error) Error() string {
	loc := e.Pointer
	if loc == "" {
		loc = "/"
	}
	s := "schema " + loc
	if e.Keyword != "" {
		s += " (" + e.Keyword + ")"
	}
	s += ": " + e.Msg
	if e.Err != nil {
		s += ": " + e.Err.Error()
	}
	return s
}

func (e *Error) Unwrap() error { return e.Err }
