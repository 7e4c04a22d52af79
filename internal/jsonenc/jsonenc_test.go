package jsonenc

import (
	"encoding/json"
	"testing"
)

func TestMarshal(t *testing.T) {
	got, err := Marshal(map[string]any{"b": "<a&b>", "a": json.Number("9007199254740993"), "c": []any{1.5, nil}})
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"a":9007199254740993,"b":"<a&b>","c":[1.5,null]}`; string(got) != want {
		t.Errorf("got %s, want %s", got, want)
	}
	if _, err := Marshal(func() {}); err == nil {
		t.Error("a func marshaled")
	}
}
