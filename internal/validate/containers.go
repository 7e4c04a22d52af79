package validate

import "hash/maphash"

// The keywords of objects and arrays.

// object evaluates the object keywords in the reference validator's
// order: counts, required, dependencies, then every member against
// properties, patternProperties and additionalProperties, then
// propertyNames, dependentSchemas and dependentRequired. Members are
// visited in the order of their names.
func (f *frame) object() {
	n, r := f.n, f.r
	iv := r.in.vals[f.loc]
	nk := int(iv.n)
	if f.a.MinProperties >= 0 && nk < f.a.MinProperties && f.failure() {
		f.report(&verr{kind: kMinProperties, a: f.a.MinProperties, b: nk})
	}
	if f.a.MaxProperties >= 0 && nk > f.a.MaxProperties && f.failure() {
		f.report(&verr{kind: kMaxProperties, a: f.a.MaxProperties, b: nk})
	}
	if missing := f.missing(n.Required); missing != nil && f.failure() {
		f.report(&verr{kind: kRequired, strs: missing})
	}
	if f.stop() {
		return
	}
	for _, d := range n.Dependencies {
		if r.in.member(f.loc, d.Name) < 0 {
			continue
		}
		if d.Schema != nil {
			f.merge(r.eval(d.Schema, f.loc, f.st, f.full))
		} else if missing := f.missing(d.Required); missing != nil && f.failure() {
			f.report(&verr{kind: kDependency, s: d.Name, strs: missing})
		}
		if f.stop() {
			return
		}
	}
	if n.Properties != nil || n.PatternProperties != nil || n.AdditionalProperties != nil {
		var extra []string
		for j := 0; j < nk; j++ {
			name, c := r.in.names[iv.ks+int32(j)], iv.first+int32(j)
			evaluated := false
			if p := n.Properties[name]; p != nil {
				evaluated = true
				f.add(r.eval(p, c, f.st, f.full))
			}
			for _, p := range n.PatternProperties {
				if p.Pattern.MatchString(name) {
					evaluated = true
					f.add(r.eval(p.Schema, c, f.st, f.full))
				}
			}
			if !evaluated && n.AdditionalProperties != nil {
				evaluated = true
				switch {
				case !n.AdditionalProperties.Bool:
					f.add(r.eval(n.AdditionalProperties, c, f.st, f.full))
				case !n.AdditionalProperties.True:
					if f.failure() {
						extra = append(extra, name)
					}
				}
			}
			if evaluated && f.fl.ann {
				f.ann.mark(j, nk)
			}
			if f.stop() {
				return
			}
		}
		if len(extra) > 0 {
			f.report(&verr{kind: kAdditionalProperties, strs: extra})
		}
	}
	if f.a.PropertyNames != nil {
		for j := 0; j < nk; j++ {
			name := r.in.names[iv.ks+int32(j)]
			if !r.eval(f.a.PropertyNames, r.nameLoc(f.loc, int32(j), name), f.st, false).ok && f.failure() {
				f.report(&verr{kind: kPropertyNames, s: name})
			}
			if f.stop() {
				return
			}
		}
	}
	for _, d := range n.DependentSchemas {
		if r.in.member(f.loc, d.Name) >= 0 {
			f.merge(r.eval(d.Schema, f.loc, f.st, f.full))
			if f.stop() {
				return
			}
		}
	}
	for _, d := range f.a.DependentRequired {
		if r.in.member(f.loc, d.Name) >= 0 {
			if missing := f.missing(d.Required); missing != nil && f.failure() {
				f.report(&verr{kind: kDependentRequired, s: d.Name, strs: missing})
			}
		}
	}
}

// missing returns the names among req that the object lacks (nil when
// none), or a non-nil empty list at the first one when only the verdict
// is wanted.
func (f *frame) missing(req []string) []string {
	var out []string
	for _, name := range req {
		if f.r.in.member(f.loc, name) < 0 {
			if !f.full {
				return []string{}
			}
			out = append(out, name)
		}
	}
	return out
}

// nameLoc returns the location of the name of member j of the object at
// loc, as an instance of its own for propertyNames (its problems report
// at the object).
func (r *run) nameLoc(obj, j int32, name string) int32 {
	key := [2]int32{obj, j}
	if l, ok := r.names[key]; ok {
		return l
	}
	if r.names == nil {
		r.names = map[[2]int32]int32{}
	}
	l := r.in.addString(name, obj)
	r.names[key] = l
	return l
}

// array evaluates the array keywords: counts, uniqueItems, the items
// (prefix, then the rest), contains with its bounds.
func (f *frame) array() {
	n, r := f.n, f.r
	iv := r.in.vals[f.loc]
	nk := int(iv.n)
	if f.a.MinItems >= 0 && nk < f.a.MinItems && f.failure() {
		f.report(&verr{kind: kMinItems, a: f.a.MinItems, b: nk})
	}
	if f.a.MaxItems >= 0 && nk > f.a.MaxItems && f.failure() {
		f.report(&verr{kind: kMaxItems, a: f.a.MaxItems, b: nk})
	}
	if f.a.UniqueItems && nk > 1 {
		if i, j, dup := r.duplicates(f.loc); dup && f.failure() {
			f.report(&verr{kind: kUniqueItems, a: i, b: j})
		}
	}
	if f.stop() {
		return
	}
	k := min(len(n.PrefixItems), nk)
	for i := 0; i < k; i++ {
		f.add(r.eval(n.PrefixItems[i], iv.first+int32(i), f.st, f.full))
		if f.stop() {
			return
		}
	}
	if f.fl.ann {
		f.ann.markTo(k, nk)
	}
	if n.Items != nil {
		if n.ItemsAdditional && n.Items.Bool {
			if !n.Items.True && nk > k && f.failure() {
				f.report(&verr{kind: kAdditionalItems, a: nk - k})
			}
		} else {
			for i := k; i < nk; i++ {
				f.add(r.eval(n.Items, iv.first+int32(i), f.st, f.full))
				if f.stop() {
					return
				}
			}
		}
		if f.fl.ann {
			f.ann.all, f.ann.bits = true, nil
		}
	}
	if f.a.Contains != nil {
		matched := 0
		for i := 0; i < nk; i++ {
			if r.eval(f.a.Contains, iv.first+int32(i), f.st, false).ok {
				matched++
				if f.fl.ann && f.a.ContainsEvaluates {
					f.ann.mark(i, nk)
				}
			}
		}
		switch {
		case f.a.MinContains >= 0:
			if matched < f.a.MinContains && f.failure() {
				f.report(&verr{kind: kMinContains, a: f.a.MinContains, b: matched})
			}
		case matched == 0:
			if f.failure() {
				f.report(&verr{kind: kContains})
			}
		}
		if f.a.MaxContains >= 0 && matched > f.a.MaxContains && f.failure() {
			f.report(&verr{kind: kMaxContains, a: f.a.MaxContains, b: matched})
		}
	}
}

// duplicates finds the first pair of equal items (i < j, j smallest, then
// i smallest).
func (r *run) duplicates(loc int32) (int, int, bool) {
	iv := r.in.vals[loc]
	nk := int(iv.n)
	eq := func(a, b int) bool { return r.in.equalLocs(iv.first+int32(a), iv.first+int32(b)) }
	if nk <= 20 {
		for j := 1; j < nk; j++ {
			for i := 0; i < j; i++ {
				if eq(i, j) {
					return i, j, true
				}
			}
		}
		return 0, 0, false
	}
	seed := maphash.MakeSeed()
	buckets := make(map[uint64][]int, nk)
	var h maphash.Hash
	h.SetSeed(seed)
	for j := 0; j < nk; j++ {
		r.tick()
		h.Reset()
		r.in.hashAt(&h, iv.first+int32(j))
		sum := h.Sum64()
		for _, i := range buckets[sum] {
			if eq(i, j) {
				return i, j, true
			}
		}
		buckets[sum] = append(buckets[sum], j)
	}
	return 0, 0, false
}
