package schema

import (
	"regexp"

	"github.com/structkit/structkit/internal/jsontype"
)

// Node is one compiled schema: a location of a schema document with its
// keywords read once, as its dialect (and its metaschema's vocabularies)
// say they are read. A keyword that does not apply (another draft's, a
// sibling of $ref before 2019-09, an inactive vocabulary's) is left at
// its zero value. Subschemas and reference targets are *Node. Readers
// index side tables by ID.
//
// Compile reads the keywords that shape instance locations (references,
// types, enum, const, nullable, required, the subschemas of properties,
// items, combinators, conditions and dependent schemas); they do not
// change afterwards. What only validation reads is in Assert, set by the
// first Graph.Check, which its readers call first.
type Node struct {
	// ID is the node's index in Graph.Nodes.
	ID int
	// Doc is the document the schema is in, Ptr its JSON Pointer there.
	Doc *Document
	Ptr string
	// Location is the pointer errors and problems show: Ptr in the root
	// document, the document's URL, "#" and Ptr elsewhere.
	Location string
	// Resource is the schema resource the node belongs to (its base URI).
	Resource *Resource
	// Value is the schema as the document holds it (a bool or a
	// map[string]any), for readers that copy what no field holds.
	Value any

	// Ref, DynamicRef and RecursiveRef are the statically resolved
	// targets of $ref, $dynamicRef (2020-12) and $recursiveRef (2019-09).
	// Before 2019-09 a $ref overrides its siblings (RefOverrides), and
	// only Ref and the annotations are read.
	Ref, DynamicRef, RecursiveRef *Node
	// DynamicRefAnchor is the $dynamicAnchor name DynamicRef resolves by
	// in the dynamic scope ("" when it resolves statically: its fragment is
	// not a plain name, or the target does not declare it);
	// RecursiveRefDynamic says RecursiveRef resolves in the dynamic scope
	// (its target says "$recursiveAnchor": true).
	DynamicRefAnchor string
	// DynamicAnchor is the node's $dynamicAnchor (2020-12); its
	// "$recursiveAnchor": true (2019-09) is RecursiveAnchor.
	DynamicAnchor string

	// Types is what "type" admits (HasType: there is one; an empty list
	// admits nothing to the plan and is not asserted), as JSON types
	// (integer apart from number: "number" is Integer|Number). OpenAPI's
	// "nullable": true (Nullable) adds Null. NamedTypes is what it names:
	// "number" names Number only, so that naming "integer" stays
	// distinguishable.
	Types, NamedTypes jsontype.Set
	// Enum holds the members of "enum" (HasEnum: there is one); with
	// "nullable": true beside a "type", null is a member too.
	Enum []any
	// Const holds the value of "const" (HasConst: there is one).
	Const any

	// Objects.
	Required             []string
	Properties           map[string]*Node
	PatternProperties    []PatternProperty // sorted by pattern
	AdditionalProperties *Node
	Dependencies         []Dependency // "dependencies": property lists and schemas, by name
	DependentSchemas     []Dependency // by name

	// Arrays. PrefixItems holds prefixItems, or "items" as an array (the
	// tuple form, before 2020-12 and tolerated after without prefixItems);
	// Items is the schema of the items after them: "items", or
	// "additionalItems" after the tuple form (ItemsAdditional).
	PrefixItems []*Node
	Items       *Node

	// Applicators.
	AllOf, AnyOf, OneOf []*Node
	If, Then, Else      *Node

	// Assert holds what only validation reads; nil when the schema has
	// none of those keywords (and before Graph.Check).
	Assert *Assertions

	// Bool is set for the boolean schemas true and false; True says which.
	Bool, True bool
	// See Ref, DynamicRefAnchor, DynamicAnchor, Types, Enum, Const, Items.
	RefOverrides, RecursiveRefDynamic, RecursiveAnchor bool
	HasType, HasEnum, HasConst, Nullable               bool
	ItemsAdditional                                    bool

	read    bool
	groups  uint16   // the groups of keywords the schema object holds
	refused []string // keywords whose value Check refused (see Extras)
}

// Assertions are the keywords of a schema only validation reads.
type Assertions struct {
	// The bounds of numbers, exact. ExclusiveMinimum and ExclusiveMaximum
	// also hold draft-04's boolean form (read in every draft): the
	// minimum (maximum) made exclusive.
	Minimum, Maximum, ExclusiveMinimum, ExclusiveMaximum, MultipleOf *Number
	// The counts; -1 when absent.
	MinLength, MaxLength         int
	MinItems, MaxItems           int
	MinProperties, MaxProperties int
	MinContains, MaxContains     int
	// Pattern is "pattern", compiled (Go's syntax, RE2).
	Pattern *regexp.Regexp
	// Format is the value of "format"; AssertFormat says it is an
	// assertion (Options.AssertFormat, or the metaschema's
	// format-assertion vocabulary), not an annotation.
	Format       string
	AssertFormat bool
	// UniqueItems is "uniqueItems": true.
	UniqueItems bool
	// ContainsEvaluates: the items Contains matches count as evaluated
	// for unevaluatedItems (2020-12).
	ContainsEvaluates bool
	// DependentRequired holds "dependentRequired", by name.
	DependentRequired []Dependency
	// The subschemas that do not shape instance locations.
	Not, Contains, PropertyNames, UnevaluatedProperties, UnevaluatedItems *Node
}

// Title returns the schema's "title" annotation.
func (n *Node) Title() string { s, _ := n.keyword(KwTitle).(string); return s }

// Description returns the schema's "description" annotation.
func (n *Node) Description() string { s, _ := n.keyword(KwDescription).(string); return s }

// Default returns the schema's "default" annotation; ok is false when it
// has none.
func (n *Node) Default() (v any, ok bool) {
	m, _ := n.Value.(map[string]any)
	v, ok = m[KwDefault]
	return v, ok
}

// Examples returns the schema's "examples" annotation.
func (n *Node) Examples() []any { l, _ := n.keyword(KwExamples).([]any); return l }

// Deprecated reports the schema's "deprecated": true annotation.
func (n *Node) Deprecated() bool { return n.keyword(KwDeprecated) == true }

func (n *Node) keyword(kw string) any {
	m, _ := n.Value.(map[string]any)
	return m[kw]
}

// PatternProperty is an entry of "patternProperties".
type PatternProperty struct {
	Pattern *regexp.Regexp
	Schema  *Node
}

// Dependency is an entry of "dependencies", "dependentSchemas" or
// "dependentRequired": a member name and the schema (or the names) its
// presence brings in.
type Dependency struct {
	Name     string
	Required []string // nil for a schema
	Schema   *Node    // nil for a list of names
}

// Resource is a schema resource: the schemas below one base URI, which
// evaluation enters, and what it binds in the dynamic scope.
type Resource struct {
	// ID is the resource's index in Graph.Resources.
	ID int
	// URI is the base URI, absolute, without a fragment.
	URI string
	// Root is the node of the resource's root schema, if compiled.
	Root *Node
	// DynamicAnchors are the schemas its $dynamicAnchors name (2020-12),
	// sorted by name.
	DynamicAnchors []Anchor
	// RecursiveAnchor is its root when that says "$recursiveAnchor": true
	// (2019-09).
	RecursiveAnchor *Node
}

// Anchor is a named schema of a resource.
type Anchor struct {
	Name string
	Node *Node
}

// IsRoot reports whether the node is the root schema of its resource.
func (n *Node) IsRoot() bool { return n.Resource != nil && n.Resource.Root == n }
