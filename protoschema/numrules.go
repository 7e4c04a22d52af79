package protoschema

import (
	// encoding/json: only its Number type, the exact literal of the schema
	// trees built here (written by jsontext); nothing is read by it.
	"encoding/json"
	"math"
	"math/big"
	"strconv"
	"strings"

	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/structkit/structkit/internal/schema"
)

// numRange collects numeric bounds: they combine into one keyword set,
// or into a "not" when the lower bound exceeds the upper (protovalidate's
// exclusive ranges: gt 10, lt 5 admits x > 10 or x < 5).
type numRange struct {
	lo, hi         string // decimal
	loExcl, hiExcl bool
	hasLo, hasHi   bool
}

func (r numRange) text() string {
	var parts []string
	if r.hasLo {
		op := ">="
		if r.loExcl {
			op = ">"
		}
		parts = append(parts, op+" "+r.lo)
	}
	if r.hasHi {
		op := "<="
		if r.hiExcl {
			op = "<"
		}
		parts = append(parts, op+" "+r.hi)
	}
	return strings.Join(parts, " and ")
}

func isStringSchema(s map[string]any) bool { return s[schema.KwType] == "string" }

func (g *gen) applyRange(s map[string]any, r numRange) bool {
	if !r.hasLo && !r.hasHi {
		return true
	}
	if isStringSchema(s) {
		return false // 64-bit integers as strings: JSON Schema cannot bound them
	}
	set := func(m map[string]any, key string, v string) { m[key] = json.Number(v) }
	if r.hasLo && r.hasHi && cmpDecimal(r.lo, r.hi) > 0 {
		// x > lo or x < hi with lo > hi: forbid [hi, lo].
		not := map[string]any{schema.KwType: "number"}
		if r.hiExcl {
			set(not, schema.KwMinimum, r.hi)
		} else {
			set(not, schema.KwExclusiveMinimum, r.hi)
		}
		if r.loExcl {
			set(not, schema.KwMaximum, r.lo)
		} else {
			set(not, schema.KwExclusiveMaximum, r.lo)
		}
		addNot(s, not)
		return true
	}
	if r.hasLo {
		if r.loExcl {
			delete(s, schema.KwMinimum)
			set(s, schema.KwExclusiveMinimum, r.lo)
		} else {
			set(s, schema.KwMinimum, tighter(s[schema.KwMinimum], r.lo, true))
		}
	}
	if r.hasHi {
		if r.hiExcl {
			delete(s, schema.KwMaximum)
			set(s, schema.KwExclusiveMaximum, r.hi)
		} else {
			set(s, schema.KwMaximum, tighter(s[schema.KwMaximum], r.hi, false))
		}
	}
	return true
}

// tighter returns the tighter of a kind's bound and a rule's.
func tighter(old any, v string, lower bool) string {
	o, ok := old.(json.Number)
	if !ok {
		return v
	}
	c := cmpDecimal(string(o), v)
	if lower == (c > 0) {
		return string(o)
	}
	return v
}

func cmpDecimal(a, b string) int {
	x, ok1 := new(big.Rat).SetString(a)
	y, ok2 := new(big.Rat).SetString(b)
	if !ok1 || !ok2 {
		return 0
	}
	return x.Cmp(y)
}

// numText renders a numeric rule value as a JSON number, or "" for NaN
// and infinities.
func numText(f protoreflect.FieldDescriptor, v protoreflect.Value) string {
	switch f.Kind() {
	case protoreflect.FloatKind:
		x := v.Float()
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return ""
		}
		return strconv.FormatFloat(x, 'g', -1, 32)
	case protoreflect.DoubleKind:
		x := v.Float()
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return ""
		}
		return strconv.FormatFloat(x, 'g', -1, 64)
	case protoreflect.Uint32Kind, protoreflect.Uint64Kind, protoreflect.Fixed32Kind, protoreflect.Fixed64Kind:
		return strconv.FormatUint(v.Uint(), 10)
	}
	return strconv.FormatInt(v.Int(), 10)
}

func (g *gen) numberRule(s map[string]any, f protoreflect.FieldDescriptor, v protoreflect.Value, r *numRange) bool {
	name := string(f.Name())
	asString := isStringSchema(s)
	lit := func(x protoreflect.Value) (any, bool) {
		t := numText(f, x)
		if t == "" {
			return nil, false
		}
		if asString {
			return t, true
		}
		return json.Number(t), true
	}
	switch name {
	case "const":
		x, ok := lit(v)
		if !ok {
			return false
		}
		s[schema.KwConst] = x
	case "in", "not_in":
		l := v.List()
		var vals []any
		for i := 0; i < l.Len(); i++ {
			x, ok := lit(l.Get(i))
			if !ok {
				return false
			}
			vals = append(vals, x)
		}
		if name == "in" {
			s[schema.KwEnum] = vals
		} else if len(vals) > 0 {
			addNot(s, map[string]any{schema.KwEnum: vals})
		}
	case "lt", "lte", "gt", "gte":
		t := numText(f, v)
		if t == "" {
			return false
		}
		if name[0] == 'l' {
			r.hi, r.hiExcl, r.hasHi = t, name == "lt", true
		} else {
			r.lo, r.loExcl, r.hasLo = t, name == "gt", true
		}
	case "finite":
		// JSON numbers are finite, and the schema admits no "NaN" strings.
	case "example":
		l := v.List()
		var vals []any
		for i := 0; i < l.Len(); i++ {
			if x, ok := lit(l.Get(i)); ok {
				vals = append(vals, x)
			}
		}
		if len(vals) > 0 {
			s[schema.KwExamples] = vals
		}
	default:
		return false
	}
	return true
}
