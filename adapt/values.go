package adapt

import (
	"encoding/json"
	"math/big"
	"sort"
	"strings"

	"github.com/structkit/structkit/internal/jsontext"
	"github.com/structkit/structkit/internal/jsontype"
	"github.com/structkit/structkit/internal/plan"
)

// The values a location admits (enum, const), as sets by JSON type.

// vals restricts the values of each JSON type (by bucket: null, boolean,
// number, string, array, object); a bucket that is absent is
// unrestricted.
type vals map[int]*valueSet

// bucket is the index of a JSON type's values in vals.
func bucket(t jsontype.Set) int {
	switch {
	case t&jsontype.Null != 0:
		return 0
	case t&jsontype.Boolean != 0:
		return 1
	case t&jsontype.Numeric != 0:
		return 2
	case t&jsontype.String != 0:
		return 3
	case t&jsontype.Array != 0:
		return 4
	}
	return 5
}

var bucketTypes = [6]jsontype.Set{jsontype.Null, jsontype.Boolean, jsontype.Numeric, jsontype.String, jsontype.Array, jsontype.Object}

// restrict is an enum: every bucket restricted to its members.
func restrict(list []any) vals {
	v := vals{}
	for i := range bucketTypes {
		v[i] = &valueSet{}
	}
	for _, e := range list {
		v[bucket(plan.TypeOf(e))].add(e)
	}
	return v
}

// Of returns the allowed values of type t (nil: unrestricted).
func (v vals) of(t jsontype.Set) *valueSet { return v[bucket(t)] }

// intersect combines restrictions that all apply.
func (v vals) intersect(w vals) vals {
	if len(w) == 0 {
		return v
	}
	out := vals{}
	for i := range bucketTypes {
		a, aok := v[i]
		b, bok := w[i]
		switch {
		case aok && bok:
			out[i] = a.intersect(b)
		case aok:
			out[i] = a
		case bok:
			out[i] = b
		}
	}
	return out
}

// within keeps a branch's restrictions, with the types it does not admit
// restricted to nothing.
func (v vals) within(admits jsontype.Set) vals {
	out := vals{}
	for i, t := range bucketTypes {
		if admits&t == 0 {
			out[i] = &valueSet{}
		} else if s, ok := v[i]; ok {
			out[i] = s
		}
	}
	return out
}

// anyOfVals combines the restrictions of alternatives: a type is
// restricted when every branch restricts it, to the union.
func anyOfVals(branches []vals) vals {
	out := vals{}
	for i := range bucketTypes {
		var u *valueSet
		all := true
		for _, b := range branches {
			s, ok := b[i]
			if !ok {
				all = false
				break
			}
			u = u.union(s)
		}
		if all && len(branches) > 0 {
			out[i] = u
		}
	}
	return out
}

// valueSet is a set of JSON values, compared as JSON Schema compares them
// (1 and 1.0 are equal), in first-seen order.
type valueSet struct {
	list []any
	keys []string
	idx  map[string]bool
}

func (s *valueSet) add(v any) {
	s.addKey(valueKey(v), v)
}

func (s *valueSet) addKey(k string, v any) {
	if s.idx == nil {
		s.idx = map[string]bool{}
	}
	if !s.idx[k] {
		s.idx[k] = true
		s.keys = append(s.keys, k)
		s.list = append(s.list, v)
	}
}

func (s *valueSet) has(v any) bool { return s == nil || s.idx[valueKey(v)] }

// intersect: nil is the set of everything.
func (s *valueSet) intersect(t *valueSet) *valueSet {
	switch {
	case s == nil:
		return t
	case t == nil:
		return s
	}
	out := &valueSet{}
	for i, k := range s.keys {
		if t.idx[k] {
			out.addKey(k, s.list[i])
		}
	}
	return out
}

// union of two restrictions (a nil receiver here is the empty set).
func (s *valueSet) union(t *valueSet) *valueSet {
	out := &valueSet{}
	if s != nil {
		for i, k := range s.keys {
			out.addKey(k, s.list[i])
		}
	}
	for i, k := range t.keys {
		out.addKey(k, t.list[i])
	}
	return out
}

// valueKey is a canonical text of a JSON value: numbers by their exact
// rational value.
func valueKey(v any) string {
	switch x := v.(type) {
	case json.Number:
		if r, ok := new(big.Rat).SetString(string(x)); ok {
			return "n:" + r.RatString()
		}
	case float64:
		if r := new(big.Rat); r.SetFloat64(x) != nil {
			return "n:" + r.RatString()
		}
	case map[string]any:
		var b strings.Builder
		b.WriteString("{")
		for _, k := range sortedAnyKeys(x) {
			b.WriteString(quote(k) + ":" + valueKey(x[k]) + ",")
		}
		return b.String() + "}"
	case []any:
		var b strings.Builder
		b.WriteString("[")
		for _, e := range x {
			b.WriteString(valueKey(e) + ",")
		}
		return b.String() + "]"
	}
	b, _ := jsontext.Marshal(v)
	return string(b)
}

func quote(s string) string {
	b, _ := jsontext.Marshal(s)
	return string(b)
}

func sortedAnyKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
