package schema

import (
	"fmt"
	"net/url"
	"strings"

	"github.com/structkit/structkit/internal/pointer"
)

// display renders a schema location for messages: the bare pointer in the
// root document, prefixed by the resource's URI elsewhere.
func (g *Graph) display(doc *Document, ptr string) string {
	if doc.URL == DefaultBaseURI {
		return ptr
	}
	return doc.URL + "#" + ptr
}

// shownURI renders a resolved URI for messages: relative to the directory
// of DefaultBaseURI when it lies there (a relative $ref in a document
// without $id), so messages do not show the internal base.
func shownURI(u string) string {
	dir := DefaultBaseURI[:strings.LastIndexByte(DefaultBaseURI, '/')+1]
	if rest, ok := strings.CutPrefix(u, dir); ok {
		return rest
	}
	return u
}

// resolve finds the schema a $ref (or $dynamicRef, $recursiveRef) value
// names.
func (g *Graph) resolve(doc *Document, ptr, keyword, ref string) (target, error) {
	fail := func(msg string) (target, error) {
		return target{}, &Error{Pointer: g.display(doc, ptr), Keyword: keyword, Msg: msg}
	}
	base, err := url.Parse(doc.baseAt(ptr))
	if err != nil {
		return fail(fmt.Sprintf("bad base URI %q", doc.baseAt(ptr)))
	}
	u, err := url.Parse(ref)
	if err != nil {
		return fail(fmt.Sprintf("cannot parse %q as a URI reference", ref))
	}
	abs := base.ResolveReference(u)
	frag := abs.Fragment
	abs.Fragment = ""
	res, ok := g.ids[abs.String()]
	if !ok {
		return fail(fmt.Sprintf("unresolvable $ref %q: no resource %s in this document", ref, shownURI(abs.String())))
	}
	var t target
	if frag == "" || frag[0] == '/' {
		t = target{res.doc, res.ptr + frag}
		if _, ok := pointer.Lookup(res.doc.Root, t.ptr); !ok {
			return fail(fmt.Sprintf("unresolvable $ref %q: nothing at %s", ref, g.display(res.doc, t.ptr)))
		}
		return t, nil
	}
	t, ok = g.anchors[abs.String()+"#"+frag]
	if !ok {
		return fail(fmt.Sprintf("unresolvable $ref %q: no anchor %q", ref, frag))
	}
	return t, nil
}

// fragmentOf returns the fragment of a reference, unescaped as
// resolution reads it.
func fragmentOf(ref string) (string, bool) {
	u, err := url.Parse(ref)
	if err != nil {
		return "", false
	}
	return u.Fragment, true
}
