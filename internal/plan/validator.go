package plan

import (
	"encoding/json"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// validator is the full validator, compiled on first use.
type validator struct {
	once sync.Once
	lc   *jsonschema.Compiler
	sch  *jsonschema.Schema
	err  error
}

// Validator returns the full validator of the whole schema, compiling it
// on first use. An error (the validator rejects something the plan
// accepted) is returned on every call.
func (s *Schema) Validator() (*jsonschema.Schema, error) {
	s.val.once.Do(func() {
		if s.val.lc == nil {
			s.val.lc, s.val.err = newLibCompiler(s.docs, s.opts)
		}
		if s.val.err == nil {
			s.val.sch, s.val.err = s.val.lc.Compile(DefaultBaseURI)
			if s.val.err != nil {
				s.val.err = &Error{Msg: "the validator cannot compile the schema", Err: s.val.err}
			}
		}
		s.val.lc = nil // not needed any more
	})
	return s.val.sch, s.val.err
}

// newLibCompiler loads the documents into a full validator's compiler,
// with OpenAPI "nullable": true turned into a null type unless NoNullable.
func newLibCompiler(docs map[string]*document, opts Options) (*jsonschema.Compiler, error) {
	lc := jsonschema.NewCompiler()
	if opts.AssertFormat {
		lc.AssertFormat()
	}
	urls := make([]string, 0, len(docs))
	for u := range docs {
		urls = append(urls, u)
	}
	sort.Strings(urls)
	for _, u := range urls {
		doc := docs[u]
		lc.DefaultDraft(doc.dialect.rules().lib)
		if err := lc.AddResource(doc.url, toLibDoc(doc.root, !opts.NoNullable)); err != nil {
			return nil, &Error{Pointer: doc.url, Msg: "cannot load into the validator", Err: err}
		}
	}
	return lc, nil
}

// compileConditions compiles each "if" subschema with a full validator, so
// the plan can tell whether it holds for an instance.
func (c *compiler) compileConditions() (*jsonschema.Compiler, error) {
	lc, err := newLibCompiler(c.docs, c.opts)
	if err != nil {
		return nil, err
	}
	keys := make([]string, 0, len(c.nodes))
	for key := range c.nodes {
		keys = append(keys, key)
	}
	sort.Strings(keys)
	for _, key := range keys {
		n := c.nodes[key]
		if n.ifN == nil || n.ifN.boolean {
			continue
		}
		docURL, ptr, _ := strings.Cut(key, "#")
		sch, err := lc.Compile(docURL + "#" + ptr + "/if")
		if err != nil {
			return nil, &Error{Pointer: n.ptr, Keyword: "if", Msg: "cannot compile the condition", Err: err}
		}
		n.ifSch = sch
	}
	return lc, nil
}

// toLibDoc converts a decoded document into the shapes the validator
// library expects (json.Number for numbers). With nullable, an object
// holding "nullable": true and a "type" gets "null" added to its type (and
// to its enum), as OpenAPI means it.
func toLibDoc(v any, nullable bool) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = toLibDoc(e, nullable)
		}
		if nb, ok := x["nullable"].(bool); nullable && ok && nb {
			addNull(out)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = toLibDoc(e, nullable)
		}
		return out
	case float64:
		return json.Number(strconv.FormatFloat(x, 'g', -1, 64))
	case float32:
		return json.Number(strconv.FormatFloat(float64(x), 'g', -1, 32))
	case int:
		return json.Number(strconv.Itoa(x))
	case int32:
		return json.Number(strconv.FormatInt(int64(x), 10))
	case int64:
		return json.Number(strconv.FormatInt(x, 10))
	case uint64:
		return json.Number(strconv.FormatUint(x, 10))
	}
	return v
}

func addNull(schema map[string]any) {
	switch t := schema["type"].(type) {
	case string:
		if t != "null" {
			schema["type"] = []any{t, "null"}
		}
	case []any:
		if !slices.Contains(t, any("null")) {
			schema["type"] = append(t, "null")
		}
	default:
		return // without a type, null is already admitted
	}
	if e, ok := schema["enum"].([]any); ok && !slices.Contains(e, nil) {
		schema["enum"] = append(e, nil)
	}
}
