package schema

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// literalAllowed lists, by file (relative to the module root), the string
// literals equal to a keyword name that are not keywords there. Keep it
// short: a schema keyword written or read anywhere but here is named by
// its Kw constant.
var literalAllowed = map[string]map[string]string{
	// adapt.Action names what the adaptation did, as the report spells it.
	"adapt/report.go": {KwNullable: "the action nullable"},
	// structconv.Code's name of CodeType, a decoding error.
	"structconv/errors.go": {KwType: "the name of CodeType"},
	// protovalidate's rule fields (buf.validate.*Rules), read by their
	// protobuf field names.
	"protoschema/rules.go": {KwType: "oneof of buf.validate.FieldRules", KwItems: "RepeatedRules.items",
		KwEnum: "FieldRules.enum", KwConst: "the rules' const", KwExample: "the rules' example"},
	"protoschema/numrules.go": {KwConst: "the rules' const", KwExample: "the rules' example"},
	"protoschema/stringrules.go": {KwConst: "the rules' const", KwExample: "the rules' example",
		KwPattern: "StringRules.pattern", KwContains: "StringRules.contains"},
	"protoschema/enumrules.go": {KwConst: "the rules' const", KwExample: "the rules' example"},
	"protoschema/options.go":   {KwRequired: "FieldRules.required", KwIDDraft4: "Rule.id"},
	"protoschema/fields.go":    {KwItems: "RepeatedRules.items"},
	"protoschema/message.go":   {KwRequired: "OneofRules.required, MessageOneofRule.required"},
	// google.rpc.BadRequest.FieldViolation's fields, set by name.
	"protoargs/rpc.go": {KwDescription: "FieldViolation.description"},
}

// keywordNames reads the compiler's keyword table: the values of the Kw
// constants of keywords.go.
func keywordNames(t *testing.T) map[string]string {
	f, err := parser.ParseFile(token.NewFileSet(), "keywords.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]string{}
	for _, d := range f.Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok || g.Tok != token.CONST {
			continue
		}
		for _, s := range g.Specs {
			vs := s.(*ast.ValueSpec)
			for i, id := range vs.Names {
				if !strings.HasPrefix(id.Name, "Kw") || i >= len(vs.Values) {
					continue
				}
				if lit, ok := vs.Values[i].(*ast.BasicLit); ok && lit.Kind == token.STRING {
					v, _ := strconv.Unquote(lit.Value)
					names[v] = id.Name
				}
			}
		}
	}
	if len(names) < 60 || names["minimum"] != "KwMinimum" {
		t.Fatalf("read %d keyword names from keywords.go", len(names))
	}
	return names
}

// TestKeywordLiterals enforces that keyword names are string literals in
// this package only: every other non-test Go file of the module names a
// keyword by its Kw constant, except where literalAllowed says the
// literal is not a keyword. JSON documents embedded as text are one
// literal each, and test files and testdata are not read.
func TestKeywordLiterals(t *testing.T) {
	names := keywordNames(t)
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	self, _ := filepath.Abs(".")
	fset := token.NewFileSet()
	used := map[string]map[string]bool{}
	files := 0
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			// gateway/ is a module of its own (the gateway names the
			// keywords it reads in its own words).
			if path == self || path == filepath.Join(root, "gateway") || d.Name() == "testdata" || d.Name() == "vendor" || path != root && strings.HasPrefix(d.Name(), ".") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ParseComments)
		if err != nil {
			return err
		}
		if ast.IsGenerated(f) {
			return nil
		}
		files++
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		ast.Inspect(f, func(n ast.Node) bool {
			lit, ok := n.(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING {
				return true
			}
			v, err := strconv.Unquote(lit.Value)
			if err != nil {
				return true
			}
			c, isKeyword := names[v]
			if !isKeyword {
				return true
			}
			if _, ok := literalAllowed[rel][v]; ok {
				if used[rel] == nil {
					used[rel] = map[string]bool{}
				}
				used[rel][v] = true
				return true
			}
			t.Errorf("%s: the keyword %s is a string literal: use schema.%s", fset.Position(lit.Pos()), lit.Value, c)
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < 100 {
		t.Fatalf("read %d files under %s: not the module", files, root)
	}
	// The allowlist stays as short as the code needs.
	var stale []string
	for file, lits := range literalAllowed {
		for v := range lits {
			if !used[file][v] {
				stale = append(stale, file+": "+strconv.Quote(v))
			}
		}
	}
	sort.Strings(stale)
	for _, s := range stale {
		t.Errorf("literalAllowed lists %s, which the file no longer has", s)
	}
}
