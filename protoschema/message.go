package protoschema

import (
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/structkit/structkit/internal/schema"
)

// message writes the object schema of a message type; at is the JSON
// Pointer of the schema in the document.
func (g *gen) message(md protoreflect.MessageDescriptor, at string) map[string]any {
	s := map[string]any{schema.KwType: "object"}
	props := map[string]any{}
	aliases := map[string]any{}
	// Pairs of names that must not stand together (a field's two names,
	// members of a oneof), with the reason, in the order found.
	var pairs [][2]string
	why := map[[2]string]string{}
	exclude := func(a, b, reason string) {
		p := [2]string{a, b}
		if _, dup := why[p]; !dup {
			pairs = append(pairs, p)
		}
		why[p] = reason
	}
	var required []string
	var groups []reqGroup
	var extra []string // description lines about the message's rules

	names := func(fd protoreflect.FieldDescriptor) []string {
		j, p := fd.JSONName(), string(fd.Name())
		if fd.Kind() == protoreflect.GroupKind {
			p = string(fd.Message().Name()) // protojson's name for a group
		}
		if j == p || g.o.JSONNamesOnly {
			return []string{j}
		}
		return []string{j, p}
	}

	fields := md.Fields()
	for i := 0; i < fields.Len(); i++ {
		fd := fields.Get(i)
		fs := g.field(fd)
		ns := names(fd)
		props[ns[0]] = fs
		if len(ns) == 2 {
			aliases["^"+regexp.QuoteMeta(ns[1])+"$"] = fs
			// One direction suffices: the problem lands on the alias.
			exclude(ns[0], ns[1], "both name the same field")
		}
		if g.isRequired(fd) {
			if len(ns) == 1 {
				required = append(required, ns[0])
			} else {
				groups = append(groups, reqGroup{what: fmt.Sprintf("field %q", ns[0]), names: ns})
			}
		}
	}

	// Oneofs: at most one member. A synthetic oneof (proto3 optional) has
	// one member and says nothing.
	oneofs := md.Oneofs()
	for i := 0; i < oneofs.Len(); i++ {
		od := oneofs.Get(i)
		if od.IsSynthetic() {
			continue
		}
		var members [][]string
		var all []string
		of := od.Fields()
		for j := 0; j < of.Len(); j++ {
			ns := names(of.Get(j))
			members = append(members, ns)
			all = append(all, ns...)
		}
		for a := range members {
			for b := a + 1; b < len(members); b++ {
				for _, x := range members[a] {
					for _, y := range members[b] {
						exclude(x, y, fmt.Sprintf("both are members of oneof %q, which admits at most one", od.Name()))
					}
				}
			}
		}
		required := getBool(rulesOf(od.Options(), extOneofRules), "required")
		if required {
			groups = append(groups, reqGroup{what: fmt.Sprintf("oneof %q", od.Name()), names: all})
		}
		line := fmt.Sprintf("At most one of %s may be set (oneof %s)", quoteList(jsonNames(members)), od.Name())
		if required {
			line = fmt.Sprintf("Exactly one of %s must be set (oneof %s)", quoteList(jsonNames(members)), od.Name())
		}
		extra = append(extra, line+".")
	}

	// protovalidate message rules: oneof groups, CEL.
	if mr := rulesOf(md.Options(), extMessageRules); mr != nil {
		var oneofs protoreflect.List
		if v := get(mr, "oneof"); v.IsValid() {
			oneofs = v.List()
		}
		for i := 0; oneofs != nil && i < oneofs.Len(); i++ {
			r := oneofs.Get(i).Message()
			var members [][]string
			var all []string
			for _, f := range getStrings(r, "fields") {
				fd := fields.ByName(protoreflect.Name(f))
				if fd == nil {
					g.note(md.FullName(), "message.oneof", fmt.Sprintf("names %q, which is not a field", f))
					continue
				}
				ns := names(fd)
				members = append(members, ns)
				all = append(all, ns...)
			}
			for a := range members {
				for b := a + 1; b < len(members); b++ {
					for _, x := range members[a] {
						for _, y := range members[b] {
							exclude(x, y, "at most one of "+quoteList(getStrings(r, "fields"))+" may be set")
						}
					}
				}
			}
			if getBool(r, "required") && len(all) > 0 {
				groups = append(groups, reqGroup{what: "one of " + quoteList(jsonNames(members)), names: all})
			}
			extra = append(extra, fmt.Sprintf("At most one of %s may be set.", quoteList(jsonNames(members))))
		}
		forEachCEL(mr, func(rule, text string) {
			g.note(md.FullName(), "message."+rule, text+": no JSON Schema equivalent")
			extra = append(extra, "Also checked by the server: "+text+".")
		})
	}

	s[schema.KwProperties] = props
	if len(aliases) > 0 {
		s[schema.KwPatternProperties] = aliases
	}
	s[schema.KwAdditionalProperties] = false
	if len(required) > 0 {
		sort.Strings(required)
		s[schema.KwRequired] = required
	}
	// One "not" forbids what must not be: a required group absent
	// ({"properties": {names: false}} holds when none of the names is
	// there) or two names of a pair present ({"required": [a, b]}). A
	// "not" is no union at the root, which model providers refuse; the
	// codec's plan leaves it to validation, and Codec explains a failure
	// by the group or pair at fault.
	var forbidden []any
	for _, gr := range groups {
		p := map[string]any{}
		for _, n := range gr.names {
			p[n] = false
		}
		forbidden = append(forbidden, map[string]any{schema.KwProperties: p})
	}
	for _, p := range pairs {
		forbidden = append(forbidden, map[string]any{schema.KwRequired: []string{p[0], p[1]}})
	}
	switch len(forbidden) {
	case 0:
	case 1:
		s[schema.KwNot] = forbidden[0]
	default:
		s[schema.KwNot] = map[string]any{schema.KwAnyOf: forbidden}
	}
	if len(groups) > 0 {
		g.groups[at] = groups
		var req []string
		for _, gr := range groups {
			req = append(req, gr.what)
		}
		extra = append(extra, "Required: "+strings.Join(req, ", ")+".")
	}
	if len(pairs) > 0 {
		g.why[at] = why
		g.pairs[at] = pairs
	}
	if d := g.describe(md, extra); d != "" {
		s[schema.KwDescription] = d
	}
	return s
}

func jsonNames(members [][]string) []string {
	out := make([]string, len(members))
	for i, m := range members {
		out[i] = m[0]
	}
	return out
}

func quoteList(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = strconv.Quote(n)
	}
	return strings.Join(q, ", ")
}
