package validate

import (
	"context"
	"unicode/utf8"

	"github.com/structkit/structkit/internal/jsontype"
	"github.com/structkit/structkit/internal/schema"
)

// Evaluation. A run validates one instance: it flattens the instance so
// every location has a number, then evaluates the root schema there.
//
// Results are memoised by (node, location) for the nodes that are targets
// of a reference, the only ones evaluation can reach twice at one
// location (a schema without references is a tree); nodes that depend on
// the dynamic scope add the scope to the key. A memoised result holds the
// verdict, the error tree when it was computed in full, and the
// annotations. So every node is evaluated at most twice per location and
// scope — once for a verdict, once more in full when a verdict of
// "invalid" turns out to be part of a problem — and a schema that doubles
// itself through references costs what it would cost written out once.
//
// A run evaluates the root once, in full: a failure records its error,
// and a valid instance, having none, costs what its verdict costs. The
// places where only the verdict matters (not, if, contains,
// propertyNames, the branches of a oneOf after the first match) ask for
// the verdict only, as the reference validator does; so do the branches
// of anyOf and oneOf, which are evaluated again in full only when none
// passes, for their part in the problem: a branch that fails where
// another passes costs no detail.
//
// Every evaluation is a step; every 256 steps the run looks at its
// context and gives up with the context's error once it is done.

// none stands for the assertions of a schema that has none.
var none = &schema.Assertions{MinLength: -1, MaxLength: -1, MinItems: -1, MaxItems: -1, MinProperties: -1,
	MaxProperties: -1, MinContains: -1, MaxContains: -1}

// assertOf returns the assertions of a node, none when it has none.
func assertOf(n *schema.Node) *schema.Assertions {
	if n.Assert != nil {
		return n.Assert
	}
	return none
}

// run is the state of one validation.
type run struct {
	prog  *program
	in    instance
	memo  map[memoKey]entry
	names map[[2]int32]int32 // (object, member) → location of the name
	scope scopes
	ctx   context.Context
	steps int
	// onCheck, if not nil, is called at every look at the context (tests
	// cancel from it).
	onCheck func(steps int)
}

type memoKey struct{ n, loc, st int32 }

type entry struct {
	busy bool // being evaluated: meeting it again is a reference cycle
	full bool // res.err is the full error tree
	res  result
}

// result is the outcome of evaluating a node at a location.
type result struct {
	ok  bool
	err *verr // when !ok and the evaluation was in full
	ann annot // what was evaluated, for the nodes that collect it
}

// abort unwinds a run that must stop (its context is done).
type abort struct{ err error }

const checkEvery = 256

func (r *run) tick() {
	r.steps++
	if r.steps%checkEvery == 0 {
		if r.onCheck != nil {
			r.onCheck(r.steps)
		}
		if err := r.ctx.Err(); err != nil {
			panic(abort{err})
		}
	}
}

// eval evaluates node n at location loc in dynamic scope st; full asks
// for the error tree of an invalid result.
func (r *run) eval(n *schema.Node, loc, st int32, full bool) result {
	r.tick()
	fl := &r.prog.flags[n.ID]
	if fl.enters {
		st = r.scope.enter(st, r.prog.res[n.Resource.ID])
	}
	if !fl.memo {
		return r.evalNode(n, loc, st, full)
	}
	key := memoKey{n: int32(n.ID), loc: loc}
	if fl.dyn {
		key.st = st
	}
	if r.memo == nil {
		r.memo = map[memoKey]entry{}
	}
	if e, ok := r.memo[key]; ok {
		switch {
		case e.busy:
			// The schema applies itself at this location again without
			// reaching a member or an item: a cycle (possible through
			// dynamic references and "not"; the plan refuses the static
			// ones).
			if !full {
				return result{}
			}
			return result{err: &verr{kind: kCycle, n: n, loc: loc}}
		case e.res.ok || e.full || !full:
			return e.res
		}
	}
	r.memo[key] = entry{busy: true}
	res := r.evalNode(n, loc, st, full)
	r.memo[key] = entry{full: full, res: res}
	return res
}

// frame is the evaluation of one schema object at one location.
type frame struct {
	r      *run
	n      *schema.Node
	a      *schema.Assertions // n.Assert, or none
	fl     *flags
	loc    int32
	st     int32
	full   bool
	failed bool
	errs   []*verr
	ann    annot
}

// failure records that a keyword failed; it reports whether the error is
// wanted (full evaluation), in which case the caller reports it.
func (f *frame) failure() bool {
	f.failed = true
	return f.full
}

// report adds the error of a keyword of this schema.
func (f *frame) report(e *verr) {
	if e.n == nil {
		e.n, e.loc = f.n, f.loc
	}
	f.errs = append(f.errs, e)
}

// stop reports whether evaluation can end: it failed and only the
// verdict is wanted.
func (f *frame) stop() bool { return f.failed && !f.full }

// add takes the result of a subschema at another location (a member or
// an item).
func (f *frame) add(res result) {
	if !res.ok && f.failure() {
		f.errs = append(f.errs, res.err)
	}
}

// merge takes the result of a subschema applied at this location: its
// annotations too when it passed.
func (f *frame) merge(res result) {
	if !res.ok {
		f.add(res)
		return
	}
	if f.fl.ann {
		f.ann.merge(res.ann)
	}
}

func (f *frame) result() result {
	switch {
	case !f.failed:
		return result{ok: true, ann: f.ann}
	case !f.full:
		return result{}
	case len(f.errs) == 1:
		return result{err: f.errs[0]}
	}
	return result{err: &verr{kind: kGroup, n: f.n, loc: f.loc, causes: f.errs}}
}

// evalNode evaluates a schema's keywords in the reference validator's
// order: type, const, enum and format first (each ends the evaluation
// when it fails), then $ref, the keywords of the value's type, the
// dynamic references, the applicators, and unevaluated* last, when every
// other keyword has had its say.
func (r *run) evalNode(n *schema.Node, loc, st int32, full bool) result {
	if n.Bool {
		if n.True {
			return result{ok: true}
		}
		if !full {
			return result{}
		}
		return result{err: &verr{kind: kFalse, n: n, loc: loc}}
	}
	if r.prog.flags[n.ID].leaf {
		return r.evalLeaf(n, loc, full)
	}
	f := frame{r: r, n: n, a: assertOf(n), fl: &r.prog.flags[n.ID], loc: loc, st: st, full: full}
	t := r.in.vals[loc].t
	switch {
	case t == tInvalid:
		if f.failure() {
			f.report(&verr{kind: kInvalid})
		}
		return f.result()
	case n.Types != 0 && !r.typeOK(n.Types, loc):
		if f.failure() {
			f.report(&verr{kind: kType})
		}
		return f.result()
	case n.HasConst && !r.in.equalAt(loc, n.Const):
		if f.failure() {
			f.report(&verr{kind: kConst})
		}
		return f.result()
	case n.HasEnum && !r.inEnum(n, loc):
		if f.failure() {
			f.report(&verr{kind: kEnum})
		}
		return f.result()
	case f.fl.format != nil && t == tString && !f.fl.format(r.in.vals[loc].s):
		if f.failure() {
			f.report(&verr{kind: kFormat})
		}
		return f.result()
	}
	if n.Ref != nil {
		res := r.eval(n.Ref, loc, st, full)
		if n.RefOverrides {
			return res
		}
		f.merge(res)
		if f.stop() {
			return f.result()
		}
	}
	switch t {
	case tObject:
		f.object()
	case tArray:
		f.array()
	case tString:
		f.str()
	case tNumber:
		f.number()
	}
	if f.stop() {
		return f.result()
	}
	f.dynamicRefs()
	if f.stop() {
		return f.result()
	}
	f.applicators()
	if f.stop() {
		return f.result()
	}
	f.unevaluated()
	return f.result()
}

// evalLeaf is evalNode of a schema with nothing past type, const, enum
// and format (flags.leaf), which it applies in the same order, without a
// frame.
func (r *run) evalLeaf(n *schema.Node, loc int32, full bool) result {
	var kind verrKind
	t := r.in.vals[loc].t
	switch {
	case t == tInvalid:
		kind = kInvalid
	case n.Types != 0 && !r.typeOK(n.Types, loc):
		kind = kType
	case n.HasConst && !r.in.equalAt(loc, n.Const):
		kind = kConst
	case n.HasEnum && !r.inEnum(n, loc):
		kind = kEnum
	case r.prog.flags[n.ID].format != nil && t == tString && !r.prog.flags[n.ID].format(r.in.vals[loc].s):
		kind = kFormat
	default:
		return result{ok: true}
	}
	if !full {
		return result{}
	}
	return result{err: &verr{kind: kind, n: n, loc: loc}}
}

func (r *run) typeOK(types jsontype.Set, loc int32) bool {
	iv := &r.in.vals[loc]
	switch iv.t {
	case tNull:
		return types&jsontype.Null != 0
	case tBool:
		return types&jsontype.Boolean != 0
	case tString:
		return types&jsontype.String != 0
	case tArray:
		return types&jsontype.Array != 0
	case tObject:
		return types&jsontype.Object != 0
	case tNumber:
		return types&jsontype.Number != 0 || types&jsontype.Integer != 0 && r.in.number(loc).IsInt()
	}
	return false
}

func (r *run) inEnum(n *schema.Node, loc int32) bool {
	for _, w := range n.Enum {
		if r.in.equalAt(loc, w) {
			return true
		}
	}
	return false
}

// applicators evaluates not, allOf, anyOf, oneOf and if/then/else.
func (f *frame) applicators() {
	n, r := f.n, f.r
	if f.a.Not != nil {
		if r.eval(f.a.Not, f.loc, f.st, false).ok && f.failure() {
			f.report(&verr{kind: kNot})
		}
		if f.stop() {
			return
		}
	}
	for _, c := range n.AllOf {
		f.merge(r.eval(c, f.loc, f.st, f.full))
		if f.stop() {
			return
		}
	}
	// The branches of anyOf and oneOf are asked for their verdicts only:
	// a branch that fails where another passes costs no detail. Only when
	// none passes, and the detail is wanted, is each evaluated in full
	// for its part in the problem.
	if n.AnyOf != nil {
		matched := false
		for _, c := range n.AnyOf {
			res := r.eval(c, f.loc, f.st, false)
			if res.ok {
				matched = true
				if !f.fl.ann {
					break
				}
				f.ann.merge(res.ann) // every branch that passes counts
			}
		}
		if !matched && f.failure() {
			causes, branches := f.causes(n.AnyOf)
			f.report(&verr{kind: kAnyOf, causes: causes, branches: branches})
		}
		if f.stop() {
			return
		}
	}
	if n.OneOf != nil {
		matched := -1
		for i, c := range n.OneOf {
			res := r.eval(c, f.loc, f.st, false)
			if !res.ok {
				continue
			}
			if matched >= 0 {
				if f.failure() {
					f.report(&verr{kind: kOneOfMany, a: matched, b: i})
				}
				break
			}
			matched = i
			if f.fl.ann {
				f.ann.merge(res.ann)
			}
		}
		if matched < 0 && f.failure() {
			causes, branches := f.causes(n.OneOf)
			f.report(&verr{kind: kOneOf, causes: causes, branches: branches})
		}
		if f.stop() {
			return
		}
	}
	if n.If != nil {
		res := r.eval(n.If, f.loc, f.st, false)
		switch {
		case res.ok:
			if f.fl.ann {
				f.ann.merge(res.ann)
			}
			if n.Then != nil {
				f.merge(r.eval(n.Then, f.loc, f.st, f.full))
			}
		case n.Else != nil:
			f.merge(r.eval(n.Else, f.loc, f.st, f.full))
		}
	}
}

// causes evaluates in full the branches of an anyOf or oneOf of which
// none passed: the failure of each, and its position.
func (f *frame) causes(alts []*schema.Node) ([]*verr, []int) {
	causes := make([]*verr, 0, len(alts))
	branches := make([]int, 0, len(alts))
	for i, c := range alts {
		if res := f.r.eval(c, f.loc, f.st, true); !res.ok {
			causes = append(causes, res.err)
			branches = append(branches, i)
		}
	}
	return causes, branches
}

// unevaluated applies unevaluatedProperties and unevaluatedItems to what
// no other keyword evaluated.
func (f *frame) unevaluated() {
	n, r := f.n, f.r
	iv := r.in.vals[f.loc]
	var u *schema.Node
	var kind verrKind
	switch {
	case iv.t == tObject && f.a.UnevaluatedProperties != nil:
		u, kind = f.a.UnevaluatedProperties, kUnevaluatedProp
	case iv.t == tArray && f.a.UnevaluatedItems != nil:
		u, kind = f.a.UnevaluatedItems, kUnevaluatedItem
	default:
		return
	}
	for j := 0; j < int(iv.n); j++ {
		if f.ann.has(j) {
			continue
		}
		c := iv.first + int32(j)
		if u.Bool && !u.True {
			if f.failure() {
				f.report(&verr{kind: kind, n: n, loc: c})
			}
		} else {
			f.add(r.eval(u, c, f.st, f.full))
		}
		if f.stop() {
			return
		}
	}
	f.ann.all, f.ann.bits = true, nil
}

// str evaluates the string keywords.
func (f *frame) str() {
	a := f.a
	if a == none {
		return
	}
	s := f.r.in.vals[f.loc].s
	if a.MinLength >= 0 || a.MaxLength >= 0 {
		l := utf8.RuneCountInString(s)
		if a.MinLength >= 0 && l < a.MinLength && f.failure() {
			f.report(&verr{kind: kMinLength, a: a.MinLength, b: l})
		}
		if a.MaxLength >= 0 && l > a.MaxLength && f.failure() {
			f.report(&verr{kind: kMaxLength, a: a.MaxLength, b: l})
		}
	}
	if a.Pattern != nil && !a.Pattern.MatchString(s) && f.failure() {
		f.report(&verr{kind: kPattern})
	}
}

// number evaluates the number keywords, exactly.
func (f *frame) number() {
	if f.a == none {
		return
	}
	v := f.r.in.number(f.loc)
	if f.a.Minimum != nil && v.Cmp(*f.a.Minimum) < 0 && f.failure() {
		f.report(&verr{kind: kMinimum, bnd: f.a.Minimum})
	}
	if f.a.Maximum != nil && v.Cmp(*f.a.Maximum) > 0 && f.failure() {
		f.report(&verr{kind: kMaximum, bnd: f.a.Maximum})
	}
	if f.a.ExclusiveMinimum != nil && v.Cmp(*f.a.ExclusiveMinimum) <= 0 && f.failure() {
		f.report(&verr{kind: kExclusiveMinimum, bnd: f.a.ExclusiveMinimum})
	}
	if f.a.ExclusiveMaximum != nil && v.Cmp(*f.a.ExclusiveMaximum) >= 0 && f.failure() {
		f.report(&verr{kind: kExclusiveMaximum, bnd: f.a.ExclusiveMaximum})
	}
	if f.a.MultipleOf != nil && !v.MultipleOf(*f.a.MultipleOf) && f.failure() {
		f.report(&verr{kind: kMultipleOf, bnd: f.a.MultipleOf})
	}
}
