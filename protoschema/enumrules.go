package protoschema

import (
	// encoding/json: only its Number type, the exact literal of the schema
	// trees built here (written by jsontext); nothing is read by it.
	"encoding/json"
	"sort"
	"strconv"

	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/structkit/structkit/internal/schema"
)

func (g *gen) enumRule(s map[string]any, kfd protoreflect.FieldDescriptor, f protoreflect.FieldDescriptor, v protoreflect.Value) bool {
	ed := kfd.Enum()
	if ed == nil {
		return false
	}
	name := string(f.Name())
	keep := func(ok func(protoreflect.EnumNumber) bool) {
		var vals []any
		vs := ed.Values()
		for i := 0; i < vs.Len(); i++ {
			if ok(vs.Get(i).Number()) {
				vals = append(vals, string(vs.Get(i).Name()))
			}
		}
		if g.o.EnumNumbers {
			var nums []int
			for i := 0; i < vs.Len(); i++ {
				if ok(vs.Get(i).Number()) {
					nums = append(nums, int(vs.Get(i).Number()))
				}
			}
			sort.Ints(nums)
			for i, n := range nums {
				if i == 0 || nums[i-1] != n {
					vals = append(vals, json.Number(strconv.Itoa(n)))
				}
			}
		}
		s[schema.KwEnum] = vals
	}
	switch name {
	case "defined_only", "example":
		// the schema lists defined values only
	case "const":
		c := protoreflect.EnumNumber(v.Int())
		keep(func(n protoreflect.EnumNumber) bool { return n == c })
	case "in", "not_in":
		l := v.List()
		set := map[protoreflect.EnumNumber]bool{}
		for i := 0; i < l.Len(); i++ {
			set[protoreflect.EnumNumber(l.Get(i).Int())] = true
		}
		in := name == "in"
		keep(func(n protoreflect.EnumNumber) bool { return set[n] == in })
	default:
		return false
	}
	return true
}
