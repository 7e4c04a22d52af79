package jsontype

import "testing"

func TestString(t *testing.T) {
	for set, want := range map[Set]string{
		0: "none", Any: "any", Integer: "integer", Numeric: "number", Number: "number",
		Integer | Null: "null|integer", String | Array: "string|array",
	} {
		if got := set.String(); got != want {
			t.Errorf("%08b: got %q, want %q", uint8(set), got, want)
		}
	}
}

func TestNames(t *testing.T) {
	for _, n := range []string{"null", "boolean", "integer", "number", "string", "array", "object"} {
		s, ok := FromName(n)
		if !ok || !s.Has(Named(n)) {
			t.Errorf("%s: FromName = %v, %v; Named = %v", n, s, ok, Named(n))
		}
	}
	if Named("number") != Number || Named("integer") != Integer {
		t.Error(`"number" must name Number only and "integer" Integer`)
	}
	if _, ok := FromName("int"); ok {
		t.Error("FromName accepted an unknown name")
	}
}

func TestNamesOfSet(t *testing.T) {
	got := Names(Named("number") | Named("integer") | Null)
	want := []string{"null", "integer", "number"}
	if len(got) != len(want) {
		t.Fatalf("Names = %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("Names = %v, want %v", got, want)
		}
	}
	for _, n := range []string{"null", "boolean", "integer", "number", "string", "array", "object"} {
		if got := Names(Named(n)); len(got) != 1 || got[0] != n {
			t.Errorf("Names(Named(%q)) = %v", n, got)
		}
	}
}
