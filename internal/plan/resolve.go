package plan

import (
	"fmt"
	"net/url"
	"strings"

	"github.com/structkit/structkit/internal/pointer"
)

// baseAt returns the base URI in effect at a pointer: the one the index
// recorded, or that of the nearest indexed ancestor.
func (d *document) baseAt(ptr string) string {
	for {
		if b, ok := d.bases[ptr]; ok {
			return b
		}
		i := strings.LastIndexByte(ptr, '/')
		if i < 0 {
			return d.url
		}
		ptr = ptr[:i]
	}
}

// display renders a schema location for messages: the bare pointer in the
// root document, prefixed by the resource's URI elsewhere.
func (x *schemaIndex) display(doc *document, ptr string) string {
	if doc.url == DefaultBaseURI {
		return ptr
	}
	return doc.url + "#" + ptr
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

// resolve finds the schema a $ref (or $dynamicRef) value names.
func (x *schemaIndex) resolve(doc *document, ptr, keyword, ref string) (target, error) {
	fail := func(msg string) (target, error) {
		return target{}, &Error{Pointer: x.display(doc, ptr), Keyword: keyword, Msg: msg}
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
	res, ok := x.ids[abs.String()]
	if !ok {
		return fail(fmt.Sprintf("unresolvable $ref %q: no resource %s in this document", ref, shownURI(abs.String())))
	}
	var t target
	if frag == "" || frag[0] == '/' {
		t = target{res.doc, res.ptr + frag}
		if _, ok := pointer.Lookup(res.doc.root, t.ptr); !ok {
			return fail(fmt.Sprintf("unresolvable $ref %q: nothing at %s", ref, x.display(res.doc, t.ptr)))
		}
		return t, nil
	}
	t, ok = x.anchors[abs.String()+"#"+frag]
	if !ok {
		return fail(fmt.Sprintf("unresolvable $ref %q: no anchor %q", ref, frag))
	}
	return t, nil
}
