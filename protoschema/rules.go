package protoschema

import (
	"cmp"
	"encoding/base64"
	// encoding/json: only its Number type, the exact literal of the schema
	// trees built here (written by jsontext); nothing is read by it.
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"buf.build/gen/go/bufbuild/protovalidate/protocolbuffers/go/buf/validate"
	"google.golang.org/genproto/googleapis/api/annotations"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/descriptorpb"

	"github.com/structkit/structkit/internal/jsontext"
	"github.com/structkit/structkit/internal/schema"
)

// extension reads an extension of an options message, also when it arrived
// as unknown bytes (descriptors built from a descriptor set or a
// reflection answer whose options were parsed before the extension was
// known). The zero value means not set.
func extension[T any](opts proto.Message, xt protoreflect.ExtensionType) T {
	var zero T
	if opts == nil || !opts.ProtoReflect().IsValid() {
		return zero
	}
	if proto.HasExtension(opts, xt) {
		if v, ok := proto.GetExtension(opts, xt).(T); ok {
			return v
		}
	}
	if len(opts.ProtoReflect().GetUnknown()) == 0 {
		return zero
	}
	b, err := proto.MarshalOptions{Deterministic: true}.Marshal(opts)
	if err != nil {
		return zero
	}
	again := opts.ProtoReflect().New().Interface()
	if err := (proto.UnmarshalOptions{Resolver: protoregistry.GlobalTypes}).Unmarshal(b, again); err != nil {
		return zero
	}
	if !proto.HasExtension(again, xt) {
		return zero
	}
	v, _ := proto.GetExtension(again, xt).(T)
	return v
}

func fieldRules(fd protoreflect.FieldDescriptor) *validate.FieldRules {
	opts, _ := fd.Options().(*descriptorpb.FieldOptions)
	r := extension[*validate.FieldRules](opts, validate.E_Field)
	if r.GetIgnore() == validate.Ignore_IGNORE_ALWAYS {
		return nil
	}
	return r
}

func messageRules(md protoreflect.MessageDescriptor) *validate.MessageRules {
	opts, _ := md.Options().(*descriptorpb.MessageOptions)
	return extension[*validate.MessageRules](opts, validate.E_Message)
}

func oneofRequired(od protoreflect.OneofDescriptor) bool {
	opts, _ := od.Options().(*descriptorpb.OneofOptions)
	return extension[*validate.OneofRules](opts, validate.E_Oneof).GetRequired()
}

type behaviors struct{ required, outputOnly, inputOnly bool }

func fieldBehaviors(fd protoreflect.FieldDescriptor) behaviors {
	opts, _ := fd.Options().(*descriptorpb.FieldOptions)
	var b behaviors
	for _, v := range extension[[]annotations.FieldBehavior](opts, annotations.E_FieldBehavior) {
		switch v {
		case annotations.FieldBehavior_REQUIRED:
			b.required = true
		case annotations.FieldBehavior_OUTPUT_ONLY:
			b.outputOnly = true
		case annotations.FieldBehavior_INPUT_ONLY:
			b.inputOnly = true
		}
	}
	return b
}

// isRequired reports whether a field must be present: proto2 required,
// google.api.field_behavior REQUIRED, or buf.validate required.
func (g *gen) isRequired(fd protoreflect.FieldDescriptor) bool {
	return fd.Cardinality() == protoreflect.Required || fieldBehaviors(fd).required || fieldRules(fd).GetRequired()
}

// celText renders a CEL rule: "weight must be even (CEL weight.even:
// `this % 2 == 0`)".
func celText(id, msg, expr string) string {
	var parts []string
	if id != "" {
		parts = append(parts, id+":")
	}
	parts = append(parts, "`"+expr+"`")
	s := "CEL " + strings.Join(parts, " ")
	if msg != "" {
		return msg + " (" + s + ")"
	}
	return s
}

// addNot adds a "not" to a schema, beside any it has.
func addNot(s map[string]any, not map[string]any) {
	if _, ok := s[schema.KwNot]; !ok {
		s[schema.KwNot] = not
		return
	}
	all, _ := s[schema.KwAllOf].([]any)
	s[schema.KwAllOf] = append(all, map[string]any{schema.KwNot: not})
}

// addPattern adds a pattern to a schema, beside any it has.
func addPattern(s map[string]any, p string) {
	if _, ok := s[schema.KwPattern]; !ok {
		s[schema.KwPattern] = p
		return
	}
	all, _ := s[schema.KwAllOf].([]any)
	s[schema.KwAllOf] = append(all, map[string]any{schema.KwPattern: p})
}

// applyRules applies the protovalidate rules r of field fd (whose values
// have the kind of kfd) to the schema s, and returns description lines for
// what it cannot express (each also a Note).
func (g *gen) applyRules(fd protoreflect.FieldDescriptor, s map[string]any, kfd protoreflect.FieldDescriptor, r *validate.FieldRules, prefix string) []string {
	var extra []string
	el := fd.FullName()
	// unsupported keeps a rule without an equivalent: text is the rule
	// as people read it ("bytes.max_len = 64").
	unsupported := func(rule, text string) {
		g.note(el, prefix+rule, text+": no JSON Schema equivalent")
		extra = append(extra, "Also checked by the server: "+text+".")
	}
	for _, c := range r.GetCel() {
		unsupported("cel", celText(c.GetId(), c.GetMessage(), c.GetExpression()))
	}
	for _, c := range r.GetCelExpression() {
		unsupported("cel_expression", "CEL `"+c+"`")
	}
	m := r.ProtoReflect()
	od := m.Descriptor().Oneofs().ByName("type")
	if od == nil {
		return extra
	}
	which := m.WhichOneof(od)
	if which == nil {
		return extra
	}
	sub := m.Get(which).Message()
	kind := string(which.Name())
	var rng numRange
	// Range's order is unspecified: apply the rules in field-number order,
	// so the schema is the same on every run.
	type setField struct {
		f protoreflect.FieldDescriptor
		v protoreflect.Value
	}
	var set []setField
	sub.Range(func(f protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		set = append(set, setField{f, v})
		return true
	})
	slices.SortFunc(set, func(a, b setField) int { return cmp.Compare(a.f.Number(), b.f.Number()) })
	apply := func(f protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		name := string(f.Name())
		if f.IsExtension() {
			unsupported(kind+".("+string(f.FullName())+")", prefix+kind+".("+string(f.FullName())+") = "+valueText(f, v))
			return true
		}
		switch kind {
		case "repeated":
			switch name {
			case "min_items":
				s[schema.KwMinItems] = v.Uint()
			case "max_items":
				s[schema.KwMaxItems] = v.Uint()
			case "unique":
				if v.Bool() {
					s[schema.KwUniqueItems] = true
				}
			case "items":
				// applied to the items by the caller
			default:
				unsupported(kind+"."+name, prefix+kind+"."+name+" = "+valueText(f, v))
			}
		case "map":
			switch name {
			case "min_pairs":
				s[schema.KwMinProperties] = v.Uint()
			case "max_pairs":
				s[schema.KwMaxProperties] = v.Uint()
			case "keys", "values":
			default:
				unsupported(kind+"."+name, prefix+kind+"."+name+" = "+valueText(f, v))
			}
		case "string":
			if !g.stringRule(s, f, v) {
				unsupported(kind+"."+name, prefix+kind+"."+name+" = "+valueText(f, v))
			}
		case "enum":
			if !g.enumRule(s, kfd, f, v) {
				unsupported(kind+"."+name, prefix+kind+"."+name+" = "+valueText(f, v))
			}
		case "bool":
			if name == "const" {
				s[schema.KwConst] = v.Bool()
			} else if name != "example" {
				unsupported(kind+"."+name, prefix+kind+"."+name+" = "+valueText(f, v))
			}
		case "float", "double", "int32", "int64", "uint32", "uint64", "sint32", "sint64",
			"fixed32", "fixed64", "sfixed32", "sfixed64":
			if !g.numberRule(s, f, v, &rng) {
				unsupported(kind+"."+name, prefix+kind+"."+name+" = "+valueText(f, v))
			}
		default: // bytes, duration, timestamp, any, field_mask: no JSON Schema equivalent
			if name == "example" {
				return true
			}
			unsupported(kind+"."+name, prefix+kind+"."+name+" = "+valueText(f, v))
		}
		return true
	}
	for _, sf := range set {
		apply(sf.f, sf.v)
	}
	if len(sub.GetUnknown()) > 0 {
		unsupported(kind, prefix+kind+" rules this build does not know")
	}
	if !g.applyRange(s, rng) {
		unsupported(kind+".bounds", "value "+rng.text())
	}
	return extra
}

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

// String well-known formats and their JSON Schema form.
var stringFormats = map[string]func(s map[string]any){
	"email":    func(s map[string]any) { s[schema.KwFormat] = "email" },
	"hostname": func(s map[string]any) { s[schema.KwFormat] = "hostname" },
	"ipv4":     func(s map[string]any) { s[schema.KwFormat] = "ipv4" },
	"ipv6":     func(s map[string]any) { s[schema.KwFormat] = "ipv6" },
	"uri":      func(s map[string]any) { s[schema.KwFormat] = "uri" },
	"uri_ref":  func(s map[string]any) { s[schema.KwFormat] = "uri-reference" },
	"uuid":     func(s map[string]any) { s[schema.KwFormat] = "uuid" },
	"tuuid":    func(s map[string]any) { addPattern(s, `^[0-9a-fA-F]{32}$`) },
	"ulid":     func(s map[string]any) { addPattern(s, `^[0-7][0-9A-HJKMNP-TV-Za-hjkmnp-tv-z]{25}$`) },
	"protobuf_fqn": func(s map[string]any) {
		addPattern(s, `^[A-Za-z_][A-Za-z_0-9]*(\.[A-Za-z_][A-Za-z_0-9]*)*$`)
	},
	"protobuf_dot_fqn": func(s map[string]any) {
		addPattern(s, `^\.[A-Za-z_][A-Za-z_0-9]*(\.[A-Za-z_][A-Za-z_0-9]*)*$`)
	},
	"ip": func(s map[string]any) {
		s[schema.KwAnyOf] = []any{map[string]any{schema.KwFormat: "ipv4"}, map[string]any{schema.KwFormat: "ipv6"}}
	},
	"address": func(s map[string]any) {
		s[schema.KwAnyOf] = []any{map[string]any{schema.KwFormat: "hostname"}, map[string]any{schema.KwFormat: "ipv4"}, map[string]any{schema.KwFormat: "ipv6"}}
	},
}

func (g *gen) stringRule(s map[string]any, f protoreflect.FieldDescriptor, v protoreflect.Value) bool {
	name := string(f.Name())
	if set, ok := stringFormats[name]; ok {
		if v.Bool() {
			set(s)
		}
		return true
	}
	switch name {
	case "const":
		s[schema.KwConst] = v.String()
	case "len":
		s[schema.KwMinLength] = v.Uint()
		s[schema.KwMaxLength] = v.Uint()
	case "min_len":
		s[schema.KwMinLength] = v.Uint()
	case "max_len":
		s[schema.KwMaxLength] = v.Uint()
	case "pattern":
		if _, err := regexp.Compile(v.String()); err != nil {
			return false
		}
		addPattern(s, v.String())
	case "prefix":
		addPattern(s, "^"+regexp.QuoteMeta(v.String()))
	case "suffix":
		addPattern(s, regexp.QuoteMeta(v.String())+"$")
	case "contains":
		addPattern(s, regexp.QuoteMeta(v.String()))
	case "not_contains":
		addNot(s, map[string]any{schema.KwPattern: regexp.QuoteMeta(v.String())})
	case "in", "not_in":
		l := v.List()
		vals := make([]any, l.Len())
		for i := range vals {
			vals[i] = l.Get(i).String()
		}
		if name == "in" {
			s[schema.KwEnum] = vals
		} else if len(vals) > 0 {
			addNot(s, map[string]any{schema.KwEnum: vals})
		}
	case "strict":
		// only qualifies well_known_regex
	case "example":
		l := v.List()
		vals := make([]any, l.Len())
		for i := range vals {
			vals[i] = l.Get(i).String()
		}
		if len(vals) > 0 {
			s[schema.KwExamples] = vals
		}
	default: // len_bytes, min_bytes, max_bytes, ip prefixes, host_and_port, well_known_regex
		return false
	}
	return true
}

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

// valueText renders a rule's value for a description.
func valueText(f protoreflect.FieldDescriptor, v protoreflect.Value) string {
	if f.IsList() {
		l := v.List()
		parts := make([]string, l.Len())
		for i := range parts {
			parts[i] = scalarText(f, l.Get(i))
		}
		return "[" + strings.Join(parts, ", ") + "]"
	}
	return scalarText(f, v)
}

func scalarText(f protoreflect.FieldDescriptor, v protoreflect.Value) string {
	switch f.Kind() {
	case protoreflect.StringKind:
		return strconv.Quote(v.String())
	case protoreflect.BytesKind:
		return base64.StdEncoding.EncodeToString(v.Bytes())
	case protoreflect.MessageKind, protoreflect.GroupKind:
		b, err := (protoTextMarshal{}).marshal(v.Message().Interface())
		if err != nil {
			return "{…}"
		}
		return b
	case protoreflect.EnumKind:
		if ev := f.Enum().Values().ByNumber(v.Enum()); ev != nil {
			return string(ev.Name())
		}
		return strconv.Itoa(int(v.Enum()))
	case protoreflect.FloatKind, protoreflect.DoubleKind:
		return strconv.FormatFloat(v.Float(), 'g', -1, 64)
	}
	return fmt.Sprint(v.Interface())
}

// protoTextMarshal renders a message value of a rule (a Duration bound, a
// Timestamp) as compact proto3 JSON, deterministically.
type protoTextMarshal struct{}

func (protoTextMarshal) marshal(m proto.Message) (string, error) {
	b, err := protojson.Marshal(m)
	if err != nil {
		return "", err
	}
	c, err := jsontext.Compact(nil, string(b), jsontext.Options{})
	if err != nil {
		return "", err
	}
	return string(c), nil
}
