package schema

import (
	"fmt"
	"net/url"
	"strconv"
	"strings"

	"github.com/structkit/structkit/internal/pointer"
)

// DefaultBaseURI is the base URI of a schema document that declares no
// $id. Relative $id and $ref values resolve against it.
const DefaultBaseURI = "https://structkit.invalid/schema.json"

// MaxSchemaDepth bounds how deep schemas nest, counted in JSON Pointer
// tokens ("properties/a" is two).
const MaxSchemaDepth = 1000

// Document is one schema resource tree of a compilation: the root
// document or a further resource.
type Document struct {
	// URL is the document's absolute URL, without a fragment; the root
	// document's is DefaultBaseURI unless it declares an $id.
	URL string
	// Root is the decoded document (json.Number or float64 numbers).
	Root any
	// Dialect is the draft the document is read as.
	Dialect Dialect

	rules    *draft
	vocab    vocab
	vocabErr error             // the metaschema's vocabularies cannot be honoured
	bases    map[string]string // JSON Pointer of a schema → its base URI
}

// target is a schema within a document.
type target struct {
	doc *Document
	ptr string
}

// Keywords whose value is one subschema, a map of subschemas or a list of
// subschemas, in every draft: where the index looks for $id and anchors.
var (
	kwSchema = []string{KwAdditionalProperties, KwAdditionalItems, KwContains, KwPropertyNames,
		KwNot, KwIf, KwThen, KwElse, KwUnevaluatedItems, KwUnevaluatedProperties, KwContentSchema, KwItems}
	kwSchemaMap  = []string{KwProperties, KwPatternProperties, KwDefs, KwDefinitions, KwDependentSchemas, KwDependencies}
	kwSchemaList = []string{KwAllOf, KwAnyOf, KwOneOf, KwPrefixItems, KwItems}
)

func (c *compiler) addDocument(uri string, doc any, d Dialect) (*Document, error) {
	u, err := url.Parse(uri)
	if err != nil || !u.IsAbs() {
		return nil, &Error{Pointer: uri, Msg: "resource URI is not absolute"}
	}
	u.Fragment = ""
	dd := &Document{URL: u.String(), Root: doc, Dialect: d, rules: rulesOf(d), bases: map[string]string{}}
	c.g.docs[dd.URL] = dd
	c.g.ids[dd.URL] = target{dd, ""}
	if err := c.index(dd, doc, "", u, u.String(), dd.rules); err != nil {
		return nil, err
	}
	return dd, nil
}

// tooDeep is the error for a schema nested beyond MaxSchemaDepth.
func (g *Graph) tooDeep(doc *Document, ptr string) *Error {
	return &Error{Pointer: g.display(doc, ptr[:min(len(ptr), 120)]+"..."),
		Msg: fmt.Sprintf("schema nested deeper than %d JSON Pointer tokens", MaxSchemaDepth)}
}

// index walks the schema keywords of a document, recording each schema's
// base URI (baseStr is base.String()), and registering $id resources and
// anchors.
func (c *compiler) index(doc *Document, v any, ptr string, base *url.URL, baseStr string, d *draft) error {
	if len(ptr) > 64*MaxSchemaDepth || strings.Count(ptr, "/") > MaxSchemaDepth {
		return c.g.tooDeep(doc, ptr)
	}
	m, ok := v.(map[string]any)
	if !ok {
		if _, isBool := v.(bool); isBool {
			doc.bases[ptr] = baseStr
		}
		return nil
	}
	_, hasRef := m[KwRef]
	if id, ok := m[d.idKeyword].(string); ok && !(hasRef && d.refOverrides) {
		if strings.HasPrefix(id, "#") && d.fragmentIDs {
			c.g.anchors[baseStr+id] = target{doc, ptr}
		} else if ref, err := url.Parse(id); err == nil {
			nb := base.ResolveReference(ref)
			frag := nb.Fragment
			nb.Fragment = ""
			base, baseStr = nb, nb.String()
			c.g.ids[baseStr] = target{doc, ptr}
			if frag != "" && d.fragmentIDs {
				c.g.anchors[baseStr+"#"+frag] = target{doc, ptr}
			}
		}
	}
	for _, k := range d.anchorKeywords {
		if a, ok := m[k].(string); ok {
			c.g.anchors[baseStr+"#"+a] = target{doc, ptr}
		}
	}
	doc.bases[ptr] = baseStr
	for _, k := range kwSchema {
		if sub, ok := m[k]; ok {
			if err := c.index(doc, sub, ptr+"/"+pointer.Escape(k), base, baseStr, d); err != nil {
				return err
			}
		}
	}
	for _, k := range kwSchemaMap {
		if sub, ok := m[k].(map[string]any); ok {
			for name, s := range sub {
				if err := c.index(doc, s, ptr+"/"+pointer.Escape(k)+"/"+pointer.Escape(name), base, baseStr, d); err != nil {
					return err
				}
			}
		}
	}
	for _, k := range kwSchemaList {
		if sub, ok := m[k].([]any); ok {
			for i, s := range sub {
				if err := c.index(doc, s, ptr+"/"+k+"/"+strconv.Itoa(i), base, baseStr, d); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// baseAt returns the base URI in effect at a pointer: the one the index
// recorded, or that of the nearest indexed ancestor.
func (d *Document) baseAt(ptr string) string {
	for {
		if b, ok := d.bases[ptr]; ok {
			return b
		}
		i := strings.LastIndexByte(ptr, '/')
		if i < 0 {
			return d.URL
		}
		ptr = ptr[:i]
	}
}
