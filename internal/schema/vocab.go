package schema

import (
	"fmt"
	"strings"

	"github.com/structkit/structkit/internal/pointer"
)

// vocabOf returns the vocabularies of a document: those its metaschema
// declares with "$vocabulary" when "$schema" names one of the schema's
// documents, else the draft's defaults. A vocabulary the compiler knows
// is processed whether the metaschema requires it or not (the boolean
// only says what an implementation that does not know it must do); a
// required one it does not know is an error, as the specification
// demands: an error of what only validation reads, so the vocabularies
// are then the defaults.
func (c *compiler) vocabOf(d *Document) (vocab, error) {
	if d.rules.version < 2019 {
		return vDefault, nil
	}
	m, ok := d.Root.(map[string]any)
	if !ok {
		return vDefault, nil
	}
	uri, ok := m[KwSchema].(string)
	if !ok {
		return vDefault, nil
	}
	uri, _, _ = strings.Cut(uri, "#")
	t, ok := c.g.ids[uri]
	if !ok {
		return vDefault, nil
	}
	meta, _ := pointer.Lookup(t.doc.Root, t.ptr)
	mm, ok := meta.(map[string]any)
	if !ok {
		return vDefault, nil
	}
	declared, ok := mm[KwVocabulary].(map[string]any)
	if !ok {
		return vDefault, nil
	}
	mr := t.doc.rules
	if mr.version < 2019 {
		return vDefault, nil
	}
	v := vCore
	for uri, req := range declared {
		required, _ := req.(bool)
		name, hasPrefix := strings.CutPrefix(uri, mr.vocabPrefix)
		bits, known := mr.vocabs[name]
		if !hasPrefix || !known {
			if required {
				return vDefault, &Error{Pointer: c.g.display(d, ""), Keyword: KwSchema,
					Msg: fmt.Sprintf("the metaschema requires vocabulary %q, which the validator does not know", uri)}
			}
			continue
		}
		v |= bits // known: processed whether required or optional
	}
	return v, nil
}
