package adapt

import (
	"context"
	"fmt"
	"reflect"
	"strconv"
	"strings"

	"github.com/structkit/structkit/internal/jsontype"
	"github.com/structkit/structkit/internal/plan"
	"github.com/structkit/structkit/internal/pointer"
	"github.com/structkit/structkit/internal/restore"
	"github.com/structkit/structkit/internal/schema"
)

// The renderer writes the adapted schema one location of the original
// plan at a time, walking the plan as the codec walks an instance
// (Property and Item with no instance), each location once. What it
// writes for a location depends on that location alone, so every
// occurrence of it reads the same, and the stand-ins it records
// (restore.Table) are found by the codec at that very *plan.Loc when it
// reads an answer.
//
// Within one location the renderer writes one schema per admitted JSON
// type (anyOf when there are several): alternatives of the same type are
// merged (an object takes the members of every alternative), and what
// the merge cannot say is written into the description and enforced on
// restore. A stand-in (JSON text, pairs, digits, enum strings) only takes
// a JSON type that no other schema at the location admits, so a value of
// that type can mean nothing else.
//
// A location is decided when it has been written (its children first):
// recursion (a location reached again while it is being written) makes it
// a "$defs" entry or JSON text; then the profile's limits are consulted
// against what is written so far (budget.go): its enum goes into the
// description, or the location becomes JSON text, when that is what
// keeps the adapted schema within them. A decision is never revisited.
// What a location reports and records for restore is kept with the
// location and taken, at the end, from the locations the adapted schema
// reaches (gather), so a body written and then replaced by JSON text
// leaves nothing behind.

// maxNodes bounds the adapted schema, counted in schemas written out.
const maxNodes = 50000

// checkEvery is how many locations the renderer visits between looks at
// its context.
const checkEvery = 256

// testHookVisit and testHookBody, when set (by tests), are called at
// every location the renderer visits, with the count so far, and at every
// body it writes.
var (
	testHookVisit func(visits int)
	testHookBody  func(l *plan.Loc)
)

type renderer struct {
	lim   *limits
	s     *plan.Schema
	root  *plan.Loc
	facts *factReader
	ctx   context.Context
	err   error // the context's, once it is done
	seen  int   // locations visited
	redo  bool  // writing a body again (its enum dropped)

	// decisions, by location, final once taken
	text     map[*plan.Loc]string // written as JSON text, and why
	defs     map[*plan.Loc]string // written once under $defs, by name
	defNames map[string]*plan.Loc
	dropEnum map[*plan.Loc]bool // enum written into the description

	memo   map[*plan.Loc]map[string]any // what a decided location is written as
	texts  map[*plan.Loc]map[string]any // the JSON text stand-in of a location
	bodies map[*plan.Loc]map[string]any // the body of a location under $defs
	refs   map[*plan.Loc][]map[string]any
	stack  map[*plan.Loc]bool // being written

	// what each location reports and records, gathered at the end
	logs map[*plan.Loc]*locLog
	cur  *locLog
	recs map[*plan.Loc]*restore.Rec
	fwd  map[*plan.Loc]map[string]string

	budget
	nulls map[uintptr][2]map[string]any // nullable: a node and its nullable form

	// the result
	tbl     *restore.Table
	fwdEnum map[*plan.Loc]map[string]string
	rep     reportBuilder
}

// locLog is what one location's body reported, in order, with the
// locations it wrote in it.
type locLog struct{ entries []logEntry }

type logEntry struct {
	child  *plan.Loc // a location written here (when isLoc)
	isLoc  bool
	change Edit
}

func newRenderer(lim *limits, s *plan.Schema, ctx context.Context) *renderer {
	r := &renderer{
		lim: lim, s: s, root: s.Root(), ctx: ctx,
		facts:    &factReader{s: s, memo: map[*plan.Loc]*facts{}},
		text:     map[*plan.Loc]string{},
		defs:     map[*plan.Loc]string{},
		defNames: map[string]*plan.Loc{},
		dropEnum: map[*plan.Loc]bool{},
		memo:     map[*plan.Loc]map[string]any{},
		texts:    map[*plan.Loc]map[string]any{},
		bodies:   map[*plan.Loc]map[string]any{},
		refs:     map[*plan.Loc][]map[string]any{},
		stack:    map[*plan.Loc]bool{},
		logs:     map[*plan.Loc]*locLog{},
		recs:     map[*plan.Loc]*restore.Rec{},
		fwd:      map[*plan.Loc]map[string]string{},
		nulls:    map[uintptr][2]map[string]any{},
		tbl:      restore.NewTable(),
		fwdEnum:  map[*plan.Loc]map[string]string{},
	}
	r.budget.init(lim)
	r.tbl.NilText = true
	r.cur = &locLog{}
	return r
}

// run writes the adapted schema.
func (r *renderer) run() (map[string]any, error) {
	top := r.cur
	root := r.root
	wrap := root == nil || root.Admits() != jsontype.Object && root.Admits() != jsontype.Object|jsontype.Null
	var doc, placed map[string]any
	if !wrap {
		placed = r.render(root, 0)
		doc = placed
		if _, ok := r.defs[root]; ok {
			doc = r.bodies[root]
		}
		if _, cut := r.text[root]; cut || doc[schema.KwType] != r.typeName("object") || r.recAt(root).Pairs {
			wrap = true // the root cannot be written as an object
		}
	}
	if wrap {
		const w = "value"
		r.tbl.Wrap = w
		var inner map[string]any
		switch {
		case root == nil:
			r.tbl.WrapText = true
			inner = r.textNode(nil)
		case placed == nil:
			inner = r.render(root, 1)
		default:
			// Written as the root, it is one level deeper in the wrapper,
			// which counts too.
			inner = placed
			x := r.measure(inner)
			t := r.total(metrics{nodes: 1, props: 1, chars: len(w)})
			if _, cut := r.text[root]; !cut {
				if why := r.breaks(t, 1+x.height, x); why != "" {
					r.recut(root, why)
					inner = r.textFor(root)
				}
			}
		}
		doc = r.objectNode(map[string]any{w: inner}, []string{w})
		r.note(root.Pointer(), "", actionWrapped, "", fmt.Sprintf("the arguments are one member %q of the adapted root, which must be an object", w))
	} else if root.Admits()&jsontype.Null != 0 {
		// An object root that also admits null: the adapted root cannot.
		r.note(root.Pointer(), schema.KwType, actionDescribed, "null for the whole arguments", "")
	}
	if _, ok := doc[schema.KwRequired]; !ok && r.lim.rootRequired {
		doc = clone(doc)
		doc[schema.KwRequired] = []any{}
	}
	if r.err != nil {
		return nil, r.err
	}
	defs := r.gather(top)
	if len(defs) > 0 {
		doc = clone(doc)
		doc[schema.KwDefs] = defs
	}
	return doc, nil
}

// typeName spells a JSON Schema type in the profile's form.
func (r *renderer) typeName(t string) string {
	if r.lim.form == openAPI {
		return strings.ToUpper(t)
	}
	return t
}

// render returns the adapted schema of the location l, written at depth
// (the objects and arrays around it), and counts it as written.
func (r *renderer) render(l *plan.Loc, depth int) map[string]any {
	if l != nil {
		r.cur.entries = append(r.cur.entries, logEntry{child: l, isLoc: true})
	}
	n := r.place(l, depth)
	r.charge(r.measure(n))
	return n
}

func (r *renderer) place(l *plan.Loc, depth int) map[string]any {
	r.seen++
	if testHookVisit != nil {
		testHookVisit(r.seen)
	}
	if r.seen%checkEvery == 0 && r.err == nil {
		r.err = r.ctx.Err()
	}
	switch {
	case r.err != nil:
		return map[string]any{} // unwinding: nothing is kept
	case l == nil:
		return r.textNode(nil)
	}
	if _, ok := r.text[l]; ok {
		return r.textFor(l)
	}
	if r.stack[l] {
		// Reached again while being written: recursion.
		if r.lim.refs == refsAny {
			if _, named := r.defs[l]; !named || !r.redo {
				r.name(l)
			}
			return r.refNode(l)
		}
		r.text[l] = "recursion, which the profile does not take"
		return r.textFor(l)
	}
	if _, ok := r.defs[l]; ok {
		return r.refNode(l)
	}
	if n, ok := r.memo[l]; ok {
		if r.share(l, n) {
			return r.refNode(l)
		}
		return n
	}
	return r.write(l, depth)
}

// write writes l for the first time and decides it.
func (r *renderer) write(l *plan.Loc, depth int) map[string]any {
	r.stack[l] = true
	node, x := r.bodyOf(l, depth)
	if _, cut := r.text[l]; !cut && !r.dropEnum[l] && r.enumsOver(x) {
		r.dropEnum[l] = true
		redo := r.redo
		r.redo = true
		node, x = r.bodyOf(l, depth)
		r.redo = redo
	}
	if _, cut := r.text[l]; !cut {
		if _, isDef := r.defs[l]; !isDef || l == r.root {
			if why := r.over(x, depth); why != "" {
				r.text[l] = why
			}
		}
	}
	delete(r.stack, l)
	if why, cut := r.text[l]; cut {
		r.recut(l, why)
		return r.textFor(l)
	}
	if _, isDef := r.defs[l]; isDef {
		r.bodies[l] = node
		r.chargeDef(x, r.defs[l])
		return r.refNode(l)
	}
	r.memo[l] = node
	return node
}

// bodyOf writes the body of l, with a log and records of its own, and
// measures it.
func (r *renderer) bodyOf(l *plan.Loc, depth int) (map[string]any, metrics) {
	if testHookBody != nil {
		testHookBody(l)
	}
	log := &locLog{}
	r.logs[l] = log
	delete(r.recs, l)
	delete(r.fwd, l)
	outer, mark := r.cur, r.enter()
	r.cur = log
	node := r.body(l, depth)
	r.cur = outer
	r.leave(mark)
	if node == nil {
		return nil, metrics{}
	}
	return node, r.measure(node)
}

// recut makes l JSON text, for the reason why: what its body reported
// and recorded is replaced.
func (r *renderer) recut(l *plan.Loc, why string) {
	r.text[l] = why
	r.logs[l] = &locLog{entries: []logEntry{{change: Edit{Pointer: l.Pointer(), Action: actionText,
		Lost: "the structure of the value (written as JSON text; checked on restore)", Note: why}}}}
	r.recs[l] = &restore.Rec{Text: true}
	delete(r.fwd, l)
	r.memo[l] = r.textFor(l)
}

// name gives l a name under $defs: its last pointer token, made unique.
// A location reached again while it is being written is named again, as
// each such reach of it asks (the name given last is the one written).
func (r *renderer) name(l *plan.Loc) {
	tokens, _ := pointer.Split(l.Pointer())
	base := "root"
	if len(tokens) > 0 {
		base = tokens[len(tokens)-1]
	}
	var b strings.Builder
	for _, c := range base {
		if c == '_' || c == '-' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' {
			b.WriteRune(c)
		}
	}
	name := b.String()
	if name == "" {
		name = "def"
	}
	candidate := name
	for i := 2; r.defNames[candidate] != nil; i++ {
		candidate = name + "_" + strconv.Itoa(i)
	}
	if old, ok := r.defs[l]; ok {
		delete(r.defNames, old)
	}
	r.defs[l] = candidate
	r.defNames[candidate] = l
}

// refNode is a reference to l under $defs. Its target is written in
// gather, when the names are final.
func (r *renderer) refNode(l *plan.Loc) map[string]any {
	n := map[string]any{schema.KwRef: ""}
	r.refs[l] = append(r.refs[l], n)
	return n
}

// share reports whether a location written before is written as a
// reference from now on: under a profile that takes recursion, once the
// schema written so far is past half a limit that repeating it would
// count against again (writing it under $defs counts it once).
func (r *renderer) share(l *plan.Loc, n map[string]any) bool {
	if r.lim.refs != refsAny || l == r.root {
		return false
	}
	x := r.measure(n)
	if x.nodes < 2 || !r.tight(x) {
		return false
	}
	r.name(l)
	r.bodies[l] = n
	r.chargeDef(x, r.defs[l])
	return true
}

// textFor is the JSON text stand-in of l.
func (r *renderer) textFor(l *plan.Loc) map[string]any {
	if n, ok := r.texts[l]; ok {
		return n
	}
	n := r.textNode(l)
	r.texts[l] = n
	return n
}

func nodeID(n map[string]any) uintptr { return reflect.ValueOf(n).Pointer() }

// textNode is the stand-in for a value written as JSON text: a string.
func (r *renderer) textNode(l *plan.Loc) map[string]any {
	f := r.facts.at(l)
	var note string
	if l == nil {
		note = "Any JSON value, written as JSON text (for example \"{\\\"a\\\":1}\", \"[1,2]\", \"\\\"text\\\"\", \"5\" or \"null\")."
	} else {
		note = "Write this value as JSON text (a string holding one JSON document)."
		if s := r.facts.schemaText(l); s != "" {
			note += " Its JSON Schema: " + s
		}
	}
	return map[string]any{schema.KwType: r.typeName("string"), schema.KwDescription: joinDesc(f.desc, note)}
}

// note reports a change of the location being written.
func (r *renderer) note(ptr, kw string, a Action, lost, note string) {
	r.cur.entries = append(r.cur.entries, logEntry{change: Edit{Pointer: ptr, Keyword: kw, Action: a, Lost: lost, Note: note}})
}

// rec is the restore record of the location being written, l.
func (r *renderer) rec(l *plan.Loc) *restore.Rec {
	rec := r.recs[l]
	if rec == nil {
		rec = &restore.Rec{}
		r.recs[l] = rec
	}
	return rec
}

// recAt is the record of l so far (empty when it has none).
func (r *renderer) recAt(l *plan.Loc) restore.Rec {
	if rec := r.recs[l]; rec != nil {
		return *rec
	}
	return restore.Rec{}
}

// gather takes what the locations the adapted schema reaches reported
// and recorded, in the order they were written, names the references,
// and returns the "$defs" they need.
func (r *renderer) gather(top *locLog) map[string]any {
	reached := map[*plan.Loc]bool{}
	defs := map[string]any{}
	var visit func(log *locLog)
	visit = func(log *locLog) {
		for _, e := range log.entries {
			if !e.isLoc {
				c := e.change
				r.rep.add(c.Pointer, c.Keyword, c.Action, c.Lost, c.Note)
				continue
			}
			l := e.child
			if reached[l] {
				continue
			}
			reached[l] = true
			if rec := r.recs[l]; rec != nil {
				*r.tbl.Set(l) = *rec
			}
			if fwd := r.fwd[l]; fwd != nil {
				r.fwdEnum[l] = fwd
			}
			if body, ok := r.bodies[l]; ok {
				defs[r.defs[l]] = body
			}
			if log := r.logs[l]; log != nil {
				visit(log)
			}
		}
	}
	visit(top)
	for l, list := range r.refs {
		_, cut := r.text[l]
		for _, n := range list {
			if !cut {
				n[schema.KwRef] = "#/$defs/" + r.defs[l]
				continue
			}
			// Named while it was written, and then written as JSON text:
			// so it reads where it was referred to.
			delete(n, schema.KwRef)
			for k, v := range r.textFor(l) {
				n[k] = v
			}
		}
	}
	return defs
}
