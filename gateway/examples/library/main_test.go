package main

// The README's Library example, run.
func Example() {
	main()
	// Output:
	// {"limit":20,"sku":"A-1"}
	// int64 9007199254740993
	// {"limit":20,"sku":"A-1"}
	// Invalid arguments for tool "query_inventory":
	// - /: missing required property "sku"
	// - /limit: expected at least 1, got integer 0
	// Correct these arguments and call the tool again.
}
