package adapt

import (
	"bytes"
	"context"

	"github.com/structkit/structkit/coerce"
	"github.com/structkit/structkit/internal/jsontext"
	"github.com/structkit/structkit/internal/plan"
	"github.com/structkit/structkit/internal/pragma"
	"github.com/structkit/structkit/internal/restore"
	"github.com/structkit/structkit/structconv"
)

// Options configures adaptation. Like protojson's options it is a plain
// struct used by value; write it with field names.
type Options struct {
	pragma.NoUnkeyedLiterals // fields by name only, so that fields can be added

	// Profile is the provider to adapt to. Required.
	Profile Profile
	// Compile compiles the original schema (dialect, resources, formats);
	// the zero value reads JSON Schema 2020-12, or the OpenAPI/Gemini form
	// when the document is in it. Adapting always compiles with
	// LazyValidator: a pattern Go's regexp cannot read (an ECMAScript
	// lookahead, as zod writes) is the adaptation's to report, not a
	// reason to refuse the tool; restoring an answer to such a schema then
	// fails validation with the *coerce.SchemaError that says why.
	Compile structconv.CompileOptions
}

// Adapt adapts a JSON Schema document to a profile with the default
// options; see Options.Adapt.
func Adapt(schema any, p Profile) (*Schema, error) {
	return Options{Profile: p}.Adapt(context.Background(), schema)
}

// Adapt adapts a schema given in any form structconv.Compile takes (JSON
// text, a decoded map, a *structpb.Struct). Errors: a *coerce.SchemaError
// for a schema that does not compile, an *Error for an unknown profile or
// a schema no adaptation can express, and ctx's error when it is done
// before the adaptation is: adapting stops soon after.
//
// The adapted schema is written in one walk of the original schema's
// plan, each location once: what is written at a location (as it is, as
// JSON text, its enum in the description, under "$defs") is decided there,
// from the profile's rules and from what has been written so far (size,
// properties, enum values, characters, nesting), so the time and memory
// are linear in the size of the schema.
func (o Options) Adapt(ctx context.Context, schema any) (*Schema, error) {
	lim := profiles[o.Profile]
	if lim == nil {
		_, err := ParseProfile(string(o.Profile))
		return nil, &Error{Profile: o.Profile, Msg: err.Error()}
	}
	if ctx == nil {
		ctx = context.Background()
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	co := o.Compile
	co.LazyValidator = true
	orig, err := co.Compile(schema)
	if err != nil {
		return nil, err
	}
	a := &Schema{profile: o.Profile, orig: orig}
	if lim.same {
		a.json, err = sameJSON(schema)
		if err != nil {
			return nil, err
		}
		a.tbl = restore.NewTable()
		return a, nil
	}
	ps := (*plan.Schema)(orig)
	// What only validation reads (bounds, patterns, formats) is read into
	// the nodes by the graph's Check, which the lazy validator left to its
	// first use. Its error is restore's to report (see Compile): a value
	// Check refuses is described as written (schema.Node.Extras).
	_ = ps.Graph().Check()
	r := newRenderer(lim, ps, ctx)
	doc, err := r.run()
	if err != nil {
		return nil, err
	}
	// The renderer decides each location by the profile's rules; this one
	// check of what it wrote (linear in its size, which the renderer
	// bounds) keeps the promise that every adaptation passes Check.
	if vs := check(lim, doc); len(vs) > 0 {
		return nil, &Error{Profile: o.Profile, Msg: "the adapted schema breaks the profile's rules: " + vs[0].String(), Violations: vs}
	}
	a.json, err = jsontext.Marshal(doc)
	if err != nil {
		return nil, err
	}
	a.tbl = r.tbl
	a.fwdEnum = r.fwdEnum
	a.edits = r.rep.list()
	return a, nil
}

// sameJSON is the schema as given, as compact JSON text.
func sameJSON(schema any) ([]byte, error) {
	doc, err := plan.Normalize(schema)
	if err != nil {
		return nil, &coerce.SchemaError{Msg: err.Error()}
	}
	return jsontext.Marshal(doc)
}

// Schema is a schema adapted to a profile: the adapted schema, the edits
// that made it, and what restore needs to map an answer back. It is
// immutable and safe for concurrent use.
type Schema struct {
	profile Profile
	orig    *structconv.Schema
	json    []byte
	edits   []Edit
	tbl     *restore.Table
	fwdEnum map[*plan.Loc]map[string]string
}

// Profile returns the profile adapted to.
func (s *Schema) Profile() Profile { return s.profile }

// JSON returns the adapted schema as compact JSON text (a copy).
func (s *Schema) JSON() []byte { return bytes.Clone(s.json) }

// Original returns the compiled original schema, which restore validates
// against.
func (s *Schema) Original() *structconv.Schema { return s.orig }

// Edits returns what the adaptation did, by location of the original
// schema, in pointer order (shared: not to be modified).
func (s *Schema) Edits() []Edit { return s.edits }

// Lost returns the edits that lose something the original schema tells
// the model (Edit.Lost).
func (s *Schema) Lost() []Edit {
	var out []Edit
	for _, e := range s.edits {
		if e.Lost != "" {
			out = append(out, e)
		}
	}
	return out
}
