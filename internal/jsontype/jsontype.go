// Package jsontype names the JSON types as structkit distinguishes them:
// integer apart from number, so a plan can say "whole numbers only".
package jsontype

import "strings"

// Set is a set of JSON types. Integer and Number are distinct members:
// Integer stands for whole numbers, Number for numbers with a fraction, so
// the JSON Schema type "number" is Integer|Number and "integer" is Integer.
type Set uint8

// The members of a Set.
const (
	Null Set = 1 << iota
	Boolean
	Integer // whole numbers
	Number  // numbers with a fractional part
	String
	Array
	Object

	// Any admits every JSON value.
	Any = Null | Boolean | Integer | Number | String | Array | Object
	// Numeric admits every number.
	Numeric = Integer | Number
)

var names = [...]struct {
	t    Set
	name string
}{
	{Null, "null"}, {Boolean, "boolean"}, {Integer, "integer"}, {Number, "number"},
	{String, "string"}, {Array, "array"}, {Object, "object"},
}

// FromName maps a JSON Schema type name to the set it admits: "number" is
// Numeric.
func FromName(name string) (Set, bool) {
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

// Named is the member a type name names: "number" names Number only, so
// that naming "integer" stays distinguishable.
func Named(name string) Set {
	if name == "number" {
		return Number
	}
	t, _ := FromName(name)
	return t
}

// Has reports whether every member of u is in t.
func (t Set) Has(u Set) bool { return t&u == u }

// Overlaps reports whether t and u share a member.
func (t Set) Overlaps(u Set) bool { return t&u != 0 }

// String lists the members in JSON Schema words, joined by "|"; a set
// holding both Integer and Number says "number" once.
func (t Set) String() string {
	if t == 0 {
		return "none"
	}
	if t == Any {
		return "any"
	}
	var parts []string
	for _, tn := range names {
		if tn.t == Integer && t.Has(Numeric) {
			continue
		}
		if t&tn.t != 0 {
			parts = append(parts, tn.name)
		}
	}
	return strings.Join(parts, "|")
}

// Names lists the type names of the members of t, one per member:
// Number is "number" and Integer "integer" (as JSON Schema's "type"
// names them, so that a set of named types reads back as written).
func Names(t Set) []string {
	var out []string
	for _, tn := range names {
		if t&tn.t != 0 {
			out = append(out, tn.name)
		}
	}
	return out
}
