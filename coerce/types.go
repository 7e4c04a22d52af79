package coerce

import "strings"

// TypeSet is a set of JSON types. Integer and Number are distinct members:
// Integer stands for whole numbers, Number for numbers with a fraction, so the
// JSON Schema type "number" is Integer|Number and "integer" is Integer.
type TypeSet uint8

// The members of a TypeSet.
const (
	Null TypeSet = 1 << iota
	Boolean
	Integer // whole numbers
	Number  // numbers with a fractional part
	String
	Array
	Object

	// AnyType admits every JSON value.
	AnyType = Null | Boolean | Integer | Number | String | Array | Object
	// Numeric admits every number.
	Numeric = Integer | Number
)

var typeNames = [...]struct {
	t    TypeSet
	name string
}{
	{Null, "null"}, {Boolean, "boolean"}, {Integer, "integer"}, {Number, "number"},
	{String, "string"}, {Array, "array"}, {Object, "object"},
}

// typeFromName maps a JSON Schema type name to its set.
func typeFromName(name string) (TypeSet, bool) {
	switch name {
	case "null":
		return Null, true
	case "boolean":
		return Boolean, true
	case "integer":
		return Integer, true
	case "number":
		return Numeric, true
	case "string":
		return String, true
	case "array":
		return Array, true
	case "object":
		return Object, true
	}
	return 0, false
}

// nameBits is the member a type name names: "number" names Number only,
// so that naming "integer" stays distinguishable.
func nameBits(name string) TypeSet {
	if name == "number" {
		return Number
	}
	t, _ := typeFromName(name)
	return t
}

// Has reports whether every member of u is in t.
func (t TypeSet) Has(u TypeSet) bool { return t&u == u }

// Overlaps reports whether t and u share a member.
func (t TypeSet) Overlaps(u TypeSet) bool { return t&u != 0 }

// String lists the members in JSON Schema words, joined by "|"; a set holding
// both Integer and Number says "number" once.
func (t TypeSet) String() string {
	if t == 0 {
		return "none"
	}
	if t == AnyType {
		return "any"
	}
	var parts []string
	for _, tn := range typeNames {
		if tn.t == Integer && t.Has(Numeric) {
			continue
		}
		if t&tn.t != 0 {
			parts = append(parts, tn.name)
		}
	}
	return strings.Join(parts, "|")
}
