package schema

import (
	"math"
	"strings"
)

// The keywords only validation reads: their errors are recorded on the
// node (see Graph.Check), and reading goes on.

// applicators reads the subschemas that do not shape instance locations:
// not, contains, propertyNames, unevaluatedProperties, unevaluatedItems.
func (r *reader) applicators() {
	a := r.n.Assert
	one := func(kw string) *Node {
		if !r.has(kw) {
			return nil
		}
		return r.later(kw, r.m[kw], kw)
	}
	a.Not = one(KwNot)
	a.Contains = one(KwContains)
	a.PropertyNames = one(KwPropertyNames)
	a.UnevaluatedProperties = one(KwUnevaluatedProperties)
	a.UnevaluatedItems = one(KwUnevaluatedItems)
}

// required reads "required" (it shapes instance locations: the plan
// reads it; its errors are validation's).
func (r *reader) required() error {
	n := r.n
	if r.has(KwRequired) {
		list, ok := r.m[KwRequired].([]any)
		if n.Required = stringList(list); !ok || n.Required == nil {
			r.invalid(r.bad(KwRequired, "an array of strings"))
			n.Required = nil
			for _, e := range list { // what the shape of instances can use
				if s, ok := e.(string); ok {
					n.Required = append(n.Required, s)
				}
			}
		}
	}
	return nil
}

// objects reads dependentRequired and the member counts.
func (r *reader) objects() {
	n := r.n.Assert
	if r.has(KwDependentRequired) {
		dm, ok := r.m[KwDependentRequired].(map[string]any)
		if !ok {
			r.invalid(r.bad(KwDependentRequired, "an object"))
		}
		for _, name := range sortedKeys(dm) {
			list, ok := dm[name].([]any)
			req := stringList(list)
			if !ok || req == nil {
				r.invalid(r.errorf(KwDependentRequired, "the dependencies of %q must be an array of strings", name))
				continue
			}
			n.DependentRequired = append(n.DependentRequired, Dependency{Name: name, Required: req})
		}
	}
	n.MinProperties = r.count(KwMinProperties)
	n.MaxProperties = r.count(KwMaxProperties)
}

// arrays reads the item counts, uniqueItems and the bounds of contains.
func (r *reader) arrays() {
	n := r.n.Assert
	n.MinItems = r.count(KwMinItems)
	n.MaxItems = r.count(KwMaxItems)
	if r.has(KwUniqueItems) {
		b, ok := r.m[KwUniqueItems].(bool)
		if !ok {
			r.invalid(r.bad(KwUniqueItems, "a boolean"))
		}
		n.UniqueItems = b
	}
	n.MinContains = r.count(KwMinContains)
	n.MaxContains = r.count(KwMaxContains)
}

// count reads a non-negative integer keyword (1.0 counts as 1; values
// beyond int range are clamped), -1 when absent or wrong.
func (r *reader) count(kw string) int {
	if !r.has(kw) {
		return -1
	}
	v, ok := NumberOf(r.m[kw])
	if !ok || !v.IsInt() || v.Sign() < 0 {
		r.invalid(r.bad(kw, "a non-negative integer"))
		return -1
	}
	if i, ok := v.Int64(); ok {
		return int(min(i, math.MaxInt))
	}
	return math.MaxInt
}

// numbers reads the bounds, exactly. draft-04's boolean exclusiveMinimum
// and exclusiveMaximum make minimum and maximum exclusive; they are read
// so in every draft (OpenAPI 3.0 writes them so beside 2020-12).
func (r *reader) numbers() {
	n := r.n.Assert
	bound := func(kw string) *Number {
		if !r.has(kw) {
			return nil
		}
		v := r.m[kw]
		if _, isBool := v.(bool); isBool && strings.HasPrefix(kw, "exclusive") {
			return nil
		}
		b, ok := NumberOf(v)
		if !ok {
			r.invalid(r.bad(kw, "a number"))
			return nil
		}
		if kw == KwMultipleOf && b.Sign() <= 0 {
			r.invalid(r.errorf(kw, "must be greater than 0"))
			return nil
		}
		return &b
	}
	n.Maximum, n.Minimum = bound(KwMaximum), bound(KwMinimum)
	n.ExclusiveMaximum, n.ExclusiveMinimum = bound(KwExclusiveMaximum), bound(KwExclusiveMinimum)
	n.MultipleOf = bound(KwMultipleOf)
	if ex, ok := r.m[KwExclusiveMinimum].(bool); ok && ex && r.has(KwExclusiveMinimum) {
		n.ExclusiveMinimum, n.Minimum = n.Minimum, nil
	}
	if ex, ok := r.m[KwExclusiveMaximum].(bool); ok && ex && r.has(KwExclusiveMaximum) {
		n.ExclusiveMaximum, n.Maximum = n.Maximum, nil
	}
}

// strings reads the length counts, pattern and format.
func (r *reader) strings() {
	n := r.n.Assert
	n.MinLength = r.count(KwMinLength)
	n.MaxLength = r.count(KwMaxLength)
	if r.has(KwPattern) {
		p, ok := r.m[KwPattern].(string)
		if !ok {
			r.invalid(r.bad(KwPattern, "a string"))
		} else if re, err := r.regexp(KwPattern, p); err != nil {
			r.invalid(err)
		} else {
			n.Pattern = re
		}
	}
	if r.has(KwFormat) {
		n.AssertFormat = r.c.opts.AssertFormat || r.d.vocab&vFormatAssertion != 0
		f, ok := r.m[KwFormat].(string)
		switch {
		case !ok && n.AssertFormat:
			r.invalid(r.bad(KwFormat, "a string"))
		case !ok:
			r.refuse(KwFormat) // an annotation of no use
		}
		n.Format = f
	}
}
