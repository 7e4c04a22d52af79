package schema

import (
	"fmt"
	"regexp"
	"strconv"

	"github.com/structkit/structkit/internal/jsontype"
	"github.com/structkit/structkit/internal/pointer"
)

// The keywords that shape instance locations, read by Compile: an error
// here fails it (see reader.fail).

// types reads "type".
func (r *reader) types() error {
	if !r.has(KwType) {
		return nil
	}
	n := r.n
	switch tv := r.m[KwType].(type) {
	case string:
		ts, ok := jsontype.FromName(tv)
		if !ok {
			return r.fail(r.errorf(KwType, "unknown type %q", tv))
		}
		n.Types, n.NamedTypes = ts, jsontype.Named(tv)
	case []any:
		for _, e := range tv {
			s, _ := e.(string)
			ts, ok := jsontype.FromName(s)
			if !ok {
				return r.fail(r.errorf(KwType, "unknown type %v", e))
			}
			n.Types |= ts
			n.NamedTypes |= jsontype.Named(s)
		}
	default:
		return r.fail(r.bad(KwType, "a string or an array of strings"))
	}
	n.HasType = true
	return nil
}

// values reads enum and const, and OpenAPI's "nullable": true, which
// adds null to a type (and to an enum beside it).
func (r *reader) values() error {
	n := r.n
	if r.has(KwEnum) {
		list, ok := r.m[KwEnum].([]any)
		if !ok {
			return r.fail(r.bad(KwEnum, "an array"))
		}
		n.HasEnum, n.Enum = true, list
	}
	if r.has(KwConst) {
		n.HasConst, n.Const = true, r.m[KwConst]
	}
	if nb, ok := r.m[KwNullable].(bool); ok && nb && !r.c.opts.NoNullable {
		n.Nullable = true
		if n.Types != 0 {
			n.Types |= jsontype.Null
			n.NamedTypes |= jsontype.Null
			if n.HasEnum && !containsNull(n.Enum) {
				n.Enum = append(n.Enum[:len(n.Enum):len(n.Enum)], nil)
			}
		}
	}
	return nil
}

func containsNull(list []any) bool {
	for _, v := range list {
		if v == nil {
			return true
		}
	}
	return false
}

func (r *reader) properties() error {
	if !r.has(KwProperties) {
		return nil
	}
	pm, ok := r.m[KwProperties].(map[string]any)
	if !ok {
		return r.fail(r.bad(KwProperties, "an object"))
	}
	r.n.Properties = make(map[string]*Node, len(pm))
	for _, name := range sortedKeys(pm) {
		c, err := r.sub(KwProperties+"/"+pointer.Escape(name), pm[name])
		if err != nil {
			return err
		}
		r.n.Properties[name] = c
	}
	return nil
}

func (r *reader) patternProperties() error {
	if !r.has(KwPatternProperties) {
		return nil
	}
	pm, ok := r.m[KwPatternProperties].(map[string]any)
	if !ok {
		return r.fail(r.bad(KwPatternProperties, "an object"))
	}
	for _, name := range sortedKeys(pm) {
		re, err := r.regexp(KwPatternProperties, name)
		if err != nil {
			return r.fail(err)
		}
		c, err := r.sub(KwPatternProperties+"/"+pointer.Escape(name), pm[name])
		if err != nil {
			return err
		}
		r.n.PatternProperties = append(r.n.PatternProperties, PatternProperty{re, c})
	}
	return nil
}

// regexp compiles a pattern once per compilation (Go's syntax, RE2).
func (r *reader) regexp(kw, src string) (*regexp.Regexp, error) {
	if re, ok := r.c.regexps[src]; ok {
		return re, nil
	}
	re, err := regexp.Compile(src)
	if err != nil {
		return nil, &Error{Pointer: r.n.Location, Keyword: kw, Msg: fmt.Sprintf("pattern %q does not compile", src), Err: err}
	}
	r.c.regexps[src] = re
	return re, nil
}

func (r *reader) additionalProperties() (err error) {
	if r.has(KwAdditionalProperties) {
		r.n.AdditionalProperties, err = r.sub(KwAdditionalProperties, r.m[KwAdditionalProperties])
	}
	return err
}

// items reads "items": one schema for every item or, as an array without
// prefixItems, the tuple form with additionalItems.
func (r *reader) items() (err error) {
	if !r.has(KwItems) {
		return nil
	}
	n := r.n
	list, isList := r.m[KwItems].([]any)
	if !isList {
		n.Items, err = r.sub(KwItems, r.m[KwItems])
		return err
	}
	if r.has(KwPrefixItems) {
		return nil // 2020-12 reads prefixItems and ignores the tuple
	}
	for i, v := range list {
		c, err := r.sub(KwItems+"/"+strconv.Itoa(i), v)
		if err != nil {
			return err
		}
		n.PrefixItems = append(n.PrefixItems, c)
	}
	if r.has(KwAdditionalItems) {
		if n.Items, err = r.sub(KwAdditionalItems, r.m[KwAdditionalItems]); err != nil {
			return err
		}
		n.ItemsAdditional = true
	}
	return nil
}

func (r *reader) prefixItems() error {
	if !r.has(KwPrefixItems) {
		return nil
	}
	list, ok := r.m[KwPrefixItems].([]any)
	if !ok {
		return r.fail(r.bad(KwPrefixItems, "an array"))
	}
	for i, v := range list {
		c, err := r.sub(KwPrefixItems+"/"+strconv.Itoa(i), v)
		if err != nil {
			return err
		}
		r.n.PrefixItems = append(r.n.PrefixItems, c)
	}
	return nil
}

// combinators reads allOf, anyOf and oneOf.
func (r *reader) combinators() error {
	for _, kw := range []string{KwAllOf, KwAnyOf, KwOneOf} {
		if !r.has(kw) {
			continue
		}
		list, ok := r.m[kw].([]any)
		if !ok || len(list) == 0 {
			return r.fail(r.bad(kw, "a non-empty array"))
		}
		group := make([]*Node, len(list))
		for i, v := range list {
			c, err := r.sub(kw+"/"+strconv.Itoa(i), v)
			if err != nil {
				return err
			}
			group[i] = c
		}
		switch kw {
		case KwAllOf:
			r.n.AllOf = group
		case KwAnyOf:
			r.n.AnyOf = group
		default:
			r.n.OneOf = group
		}
	}
	return nil
}

// conditional reads if, then and else.
func (r *reader) conditional() (err error) {
	if !r.has(KwIf) {
		return nil
	}
	n := r.n
	if n.If, err = r.sub(KwIf, r.m[KwIf]); err != nil {
		return err
	}
	if r.has(KwThen) {
		if n.Then, err = r.sub(KwThen, r.m[KwThen]); err != nil {
			return err
		}
	}
	if r.has(KwElse) {
		n.Else, err = r.sub(KwElse, r.m[KwElse])
	}
	return err
}

// dependencies reads "dependencies" (property lists and schemas; read in
// every draft, its shape shaping before 2019-09 only, where it is the
// keyword of dependent schemas) and "dependentSchemas".
func (r *reader) dependencies() error {
	n := r.n
	if r.has(KwDependencies) {
		dm, ok := r.m[KwDependencies].(map[string]any)
		switch {
		case !ok && r.d.rules.version < 2019:
			return r.fail(r.bad(KwDependencies, "an object"))
		case !ok:
			r.invalid(r.bad(KwDependencies, "an object"))
		}
		for _, name := range sortedKeys(dm) {
			d := Dependency{Name: name}
			switch v := dm[name].(type) {
			case []any:
				if d.Required = stringList(v); d.Required == nil {
					r.invalid(r.errorf(KwDependencies, "the dependencies of %q must be strings", name))
					continue
				}
			case bool, map[string]any:
				c, err := r.sub(KwDependencies+"/"+pointer.Escape(name), v)
				if err != nil {
					return err
				}
				d.Schema = c
			default:
				r.later(KwDependencies, v, KwDependencies+"/"+pointer.Escape(name))
				continue
			}
			n.Dependencies = append(n.Dependencies, d)
		}
	}
	if r.has(KwDependentSchemas) {
		dm, ok := r.m[KwDependentSchemas].(map[string]any)
		if !ok {
			return r.fail(r.bad(KwDependentSchemas, "an object"))
		}
		for _, name := range sortedKeys(dm) {
			switch v := dm[name].(type) {
			case bool, map[string]any:
				c, err := r.sub(KwDependentSchemas+"/"+pointer.Escape(name), v)
				if err != nil {
					return err
				}
				n.DependentSchemas = append(n.DependentSchemas, Dependency{Name: name, Schema: c})
			default:
				r.later(KwDependentSchemas, v, KwDependentSchemas+"/"+pointer.Escape(name))
			}
		}
	}
	return nil
}
