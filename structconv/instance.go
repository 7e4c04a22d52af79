package structconv

import (
	"math"

	"google.golang.org/protobuf/types/known/structpb"

	"github.com/structkit/structkit/internal/jsontext"
	"github.com/structkit/structkit/internal/jsontype"
)

// structInstance shows a Struct to the plan where the plans of its
// children depend on it (if/then/else, dependentSchemas).
type structInstance structpb.Struct

func (s *structInstance) Has(name string) bool {
	_, ok := (*structpb.Struct)(s).GetFields()[name]
	return ok
}

func (s *structInstance) Value() any { return (*structpb.Struct)(s) }

// listInstance shows a ListValue to the plan, as structInstance does.
type listInstance structpb.ListValue

func (l *listInstance) Has(string) bool { return false }

func (l *listInstance) Value() any { return (*structpb.ListValue)(l) }

// Member shows the Struct to the plan's narrowing (plan.Object): a
// string of decimal digits may be an integer the codec carries.
func (s *structInstance) Member(name string) (jsontype.Set, string, bool) {
	v, ok := (*structpb.Struct)(s).GetFields()[name]
	if !ok {
		return 0, "", false
	}
	t, str := valueType(v)
	return t, str, true
}

// valueType returns the JSON types v may be read as, and its text when
// it is a string.
func valueType(v *structpb.Value) (jsontype.Set, string) {
	switch k := v.GetKind().(type) {
	case *structpb.Value_NullValue:
		return jsontype.Null, ""
	case *structpb.Value_BoolValue:
		return jsontype.Boolean, ""
	case *structpb.Value_NumberValue:
		if f := k.NumberValue; f == math.Trunc(f) && !math.IsInf(f, 0) {
			return jsontype.Integer, ""
		}
		return jsontype.Number, ""
	case *structpb.Value_StringValue:
		if jsontext.Carried(k.StringValue) {
			return jsontype.String | jsontype.Integer, k.StringValue
		}
		return jsontype.String, k.StringValue
	case *structpb.Value_StructValue:
		return jsontype.Object, ""
	case *structpb.Value_ListValue:
		return jsontype.Array, ""
	}
	return 0, ""
}
