// Package jsonenc writes Go values as compact JSON the way structkit's
// peers expect it: members sorted (encoding/json's order for maps), no
// HTML escaping of <, > and &, json.Number literals as they are, and no
// trailing newline. The codec (structconv) writes Structs itself; this is
// for decoded trees, schemas and messages.
package jsonenc

import (
	"bytes"
	"encoding/json"
)

// Marshal writes v as compact JSON without HTML escaping.
func Marshal(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}
