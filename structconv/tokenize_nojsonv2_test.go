//go:build !goexperiment.jsonv2

package structconv_test

// jsonv2Tokenizers is empty without GOEXPERIMENT=jsonv2 (see
// tokenize_jsonv2_test.go).
var jsonv2Tokenizers []benchTokenizer
