//go:build goexperiment.jsonv2

package structconv_test

import (
	"bytes"
	"encoding/json/jsontext"
	"io"
)

// jsonv2Tokenizers is encoding/json/jsontext's ReadToken loop over the
// same bytes (it checks repeated names and UTF-8 by default).
var jsonv2Tokenizers = []benchTokenizer{
	{"encoding_json_jsontext", func(b []byte) (int, error) {
		d := jsontext.NewDecoder(bytes.NewReader(b))
		n := 0
		for {
			_, err := d.ReadToken()
			if err == io.EOF {
				return n, nil
			}
			if err != nil {
				return n, err
			}
			n++
		}
	}},
}
