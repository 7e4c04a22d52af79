package plan

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

// document is one schema resource tree: the root document or a further
// resource.
type document struct {
	url     string // absolute, no fragment
	root    any
	dialect Dialect
	bases   map[string]string // JSON Pointer of a schema → its base URI
}

// target is a schema within a document.
type target struct {
	doc *document
	ptr string
}

// Keywords whose value is one subschema, a map of subschemas or a list of
// subschemas, in every draft: where the index looks for $id and anchors.
var (
	kwSchema = []string{"additionalProperties", "additionalItems", "contains", "propertyNames",
		"not", "if", "then", "else", "unevaluatedItems", "unevaluatedProperties", "contentSchema", "items"}
	kwSchemaMap  = []string{"properties", "patternProperties", "$defs", "definitions", "dependentSchemas", "dependencies"}
	kwSchemaList = []string{"allOf", "anyOf", "oneOf", "prefixItems", "items"}
)

func (c *compiler) addDocument(uri string, doc any, d Dialect) (*document, error) {
	u, err := url.Parse(uri)
	if err != nil || !u.IsAbs() {
		return nil, &Error{Pointer: uri, Msg: "resource URI is not absolute"}
	}
	u.Fragment = ""
	dd := &document{url: u.String(), root: doc, dialect: d, bases: map[string]string{}}
	c.docs[dd.url] = dd
	c.ids[dd.url] = target{dd, ""}
	if err := c.index(dd, doc, "", u, draftOf(d)); err != nil {
		return nil, err
	}
	return dd, nil
}

// tooDeep is the error for a schema nested beyond MaxSchemaDepth.
func (c *compiler) tooDeep(doc *document, ptr string) *Error {
	return &Error{Pointer: c.display(doc, ptr[:min(len(ptr), 120)]+"..."),
		Msg: fmt.Sprintf("schema nested deeper than %d JSON Pointer tokens", MaxSchemaDepth)}
}

// index walks the schema keywords of a document, recording each schema's
// base URI, and registering $id resources and anchors.
func (c *compiler) index(doc *document, v any, ptr string, base *url.URL, d *draft) error {
	if len(ptr) > 64*MaxSchemaDepth || strings.Count(ptr, "/") > MaxSchemaDepth {
		return c.tooDeep(doc, ptr)
	}
	m, ok := v.(map[string]any)
	if !ok {
		if _, isBool := v.(bool); isBool {
			doc.bases[ptr] = base.String()
		}
		return nil
	}
	_, hasRef := m["$ref"]
	if id, ok := m[d.idKeyword].(string); ok && !(hasRef && d.refOverrides) {
		if strings.HasPrefix(id, "#") && d.fragmentIDs {
			c.anchors[base.String()+id] = target{doc, ptr}
		} else if ref, err := url.Parse(id); err == nil {
			nb := base.ResolveReference(ref)
			frag := nb.Fragment
			nb.Fragment = ""
			base = nb
			c.ids[base.String()] = target{doc, ptr}
			if frag != "" && d.fragmentIDs {
				c.anchors[base.String()+"#"+frag] = target{doc, ptr}
			}
		}
	}
	for _, k := range d.anchorKeywords {
		if a, ok := m[k].(string); ok {
			c.anchors[base.String()+"#"+a] = target{doc, ptr}
		}
	}
	doc.bases[ptr] = base.String()
	for _, k := range kwSchema {
		if sub, ok := m[k]; ok {
			if err := c.index(doc, sub, ptr+"/"+pointer.Escape(k), base, d); err != nil {
				return err
			}
		}
	}
	for _, k := range kwSchemaMap {
		if sub, ok := m[k].(map[string]any); ok {
			for name, s := range sub {
				if err := c.index(doc, s, ptr+"/"+pointer.Escape(k)+"/"+pointer.Escape(name), base, d); err != nil {
					return err
				}
			}
		}
	}
	for _, k := range kwSchemaList {
		if sub, ok := m[k].([]any); ok {
			for i, s := range sub {
				if err := c.index(doc, s, ptr+"/"+k+"/"+strconv.Itoa(i), base, d); err != nil {
					return err
				}
			}
		}
	}
	return nil
}
