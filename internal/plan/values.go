package plan

import "github.com/structkit/structkit/internal/jsontype"

// valuesTypes returns the types of enum or const members.
func valuesTypes(list []any) jsontype.Set {
	var t jsontype.Set
	for _, v := range list {
		t |= TypeOf(v)
	}
	return t
}

// TypeOf names the JSON type of a decoded value (Integer for a whole
// number).
func TypeOf(v any) jsontype.Set {
	switch x := v.(type) {
	case nil:
		return jsontype.Null
	case bool:
		return jsontype.Boolean
	case string:
		return jsontype.String
	case []any:
		return jsontype.Array
	case map[string]any:
		return jsontype.Object
	default:
		if IsWhole(x) {
			return jsontype.Integer
		}
		if _, ok := NumberValue(x); ok {
			return jsontype.Number
		}
	}
	return 0
}

// stringMembers returns the strings among enum or const members, as a
// non-nil set.
func stringMembers(list []any) *strSet {
	out := &strSet{list: []string{}}
	for _, v := range list {
		if s, ok := v.(string); ok {
			out.list = append(out.list, s)
		}
	}
	return out
}

// namedByValues returns the types enum or const members name: integer
// only when every number among them is whole.
func namedByValues(list []any) jsontype.Set {
	t := valuesTypes(list)
	if t&jsontype.Number != 0 {
		t &^= jsontype.Integer
	}
	return t
}
