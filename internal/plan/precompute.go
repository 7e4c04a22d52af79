package plan

import "sort"

// planBudget bounds how many locations precompute prepares ahead, and
// planWork how many schemas its walks of their in-place closures may visit
// in all (a recursive schema that reaches a member through two keywords
// makes ever larger combined locations, whose closures grow with them:
// counting locations alone let 90 bytes of schema take 30 s; the real
// schemas of testdata and the official suite's stay under 200). The rest,
// only reachable in such schemas, are derived when a conversion reaches
// them, with the same result.
const (
	planBudget = 1 << 14
	planWork   = 1 << 16
)

// precompute derives info for every node, then prepares the children of every
// location reachable from the root, so conversions find them in maps. It
// returns the work its walks did (at most a little over planWork).
func precompute(all []*Loc, root *Loc) (work int) {
	for _, n := range all {
		n.info()
	}
	cons := &consTable{m: map[string]*Loc{}}
	queue := []*Loc{root}
	seen := map[*Loc]bool{root: true}
	enqueue := func(c *Loc) {
		if c != nil && !seen[c] {
			seen[c] = true
			queue = append(queue, c)
		}
	}
	for len(queue) > 0 && len(seen)+len(cons.m) < planBudget && work < planWork {
		n := queue[0]
		queue = queue[1:]
		if n.trivial || n.boolean {
			continue
		}
		names, patterned, prefix, visited := closureShape(n)
		work += visited + len(names)
		prepareKids(n, names, patterned, prefix, cons, enqueue)
	}
	return work
}

// prepareKids derives the children of n: each declared name, the other
// members (unless patternProperties decide by name), the prefix items and
// the rest, handing each to enqueue.
func prepareKids(n *Loc, names []string, patterned bool, prefix int, cons *consTable, enqueue func(*Loc)) {
	kids := make(map[string]*Loc, len(names))
	for _, name := range names {
		d := deriver{name: name, cons: cons}
		kids[name] = d.child(n)
		enqueue(kids[name])
	}
	if !patterned {
		d := deriver{other: true, cons: cons}
		n.other = d.child(n)
		n.otherOK = true
		enqueue(n.other)
	}
	n.kids, n.kidsOK = kids, true
	n.kidNames = names
	n.kidLocs = make([]*Loc, len(names))
	for i, name := range names {
		n.kidLocs[i] = kids[name]
	}
	items := make([]*Loc, prefix)
	for i := range items {
		d := deriver{item: true, index: i, cons: cons}
		items[i] = d.child(n)
		enqueue(items[i])
	}
	d := deriver{item: true, index: prefix, cons: cons}
	n.restItem = d.child(n)
	enqueue(n.restItem)
	n.items, n.itemsOK = items, true
}

// closureShape lists the member names declared anywhere in the in-place
// closure of n, whether patternProperties occur there, and the longest
// prefix of positional items; visited is the size of the closure.
func closureShape(n *Loc) (names []string, patterned bool, prefix, visited int) {
	seen := map[*Loc]bool{}
	set := map[string]bool{}
	var walk func(m *Loc)
	walk = func(m *Loc) {
		if seen[m] {
			return
		}
		seen[m] = true
		if m.node != nil {
			for name := range m.node.Properties {
				set[name] = true
			}
		}
		patterned = patterned || len(m.patterns) > 0
		prefix = max(prefix, len(m.prefix))
		m.inPlace(func(c *Loc) bool {
			if c != m.ifN {
				walk(c)
			}
			return true
		})
	}
	walk(n)
	names = make([]string, 0, len(set))
	for name := range set {
		names = append(names, name)
	}
	sort.Strings(names)
	return names, patterned, prefix, len(seen)
}
