package jsontext

// Names detects member names repeated within an object, over nested
// objects: Push on each '{', Add for each name, Pop on each '}'. Small
// objects are checked by comparing with the names so far, larger ones
// through a set kept per level and reused, so the cost stays linear in
// the names. The zero value is ready to use. The Decoder uses it unless
// Options.AllowDuplicateNames is set; a caller reading with that option
// can use its own.
type Names struct {
	list []string          // the names of the open objects, level after level
	base []int             // where each open object's names start in list
	sets []map[string]bool // per level, once it holds more than linearNames
}

// linearNames is how many names an object holds before a set replaces
// the linear comparison.
const linearNames = 16

// Reset forgets every open object, keeping the buffers.
func (n *Names) Reset() {
	clear(n.list)
	n.list, n.base = n.list[:0], n.base[:0]
	for _, s := range n.sets {
		clear(s)
	}
}

// Push opens an object.
func (n *Names) Push() { n.base = append(n.base, len(n.list)) }

// Pop closes the innermost object.
func (n *Names) Pop() {
	lv := len(n.base) - 1
	start := n.base[lv]
	if len(n.list)-start >= linearNames && lv < len(n.sets) {
		clear(n.sets[lv])
	}
	clear(n.list[start:])
	n.list, n.base = n.list[:start], n.base[:lv]
}

// Add adds name to the innermost object, reporting whether it was there
// already. It panics without an open object.
func (n *Names) Add(name string) (repeated bool) {
	lv := len(n.base) - 1
	start := n.base[lv]
	have := n.list[start:]
	if len(have) < linearNames {
		for _, s := range have {
			if s == name {
				return true
			}
		}
		n.list = append(n.list, name)
		return false
	}
	for len(n.sets) <= lv {
		n.sets = append(n.sets, nil)
	}
	set := n.sets[lv]
	if set == nil {
		set = make(map[string]bool, 2*linearNames)
		n.sets[lv] = set
	}
	if len(set) == 0 {
		for _, s := range have {
			set[s] = true
		}
	}
	if set[name] {
		return true
	}
	set[name] = true
	n.list = append(n.list, name) // counted, so Pop knows the set is in use
	return false
}
