package main

import (
	"context"
	// encoding/json: only json.RawMessage, the type of JSON text in the
	// output structs (written through jsontext).
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/structkit/structkit/adapt"
	"github.com/structkit/structkit/coerce"
	"github.com/structkit/structkit/structconv"
)

// profileFlag is --profile: a provider profile name.
type profileFlag struct{ p adapt.Profile }

func (f *profileFlag) String() string { return string(f.p) }

func (f *profileFlag) Set(s string) error {
	p, err := adapt.ParseProfile(s)
	if err != nil {
		return err
	}
	f.p = p
	return nil
}

func profileNames() string {
	var names []string
	for _, p := range adapt.Profiles() {
		names = append(names, string(p))
	}
	return strings.Join(names, ", ")
}

// sourceSchema reads the schema the flags name, decoded through the token
// layer (numbers exact), with the name to use in messages: the --schema
// file, or the inputSchema of --tool in --tools.
func (s *schemaFlags) sourceSchema(e *env) (name string, doc any, err error) {
	switch {
	case s.schema != "" && (s.tools != "" || s.tool != ""):
		return "", nil, usagef("--schema and --tools/--tool exclude each other: give one")
	case s.schema != "":
		return s.readSchema(e)
	case s.tools != "" && s.tool != "":
		tools, err := s.readTools(e)
		if err != nil {
			return "", nil, err
		}
		for _, t := range tools {
			if t.Name == s.tool {
				return fmt.Sprintf("%s: tool %q", s.tools, s.tool), t.InputSchema, nil
			}
		}
		return "", nil, usagef("%s has no tool %q; available: %s", s.tools, s.tool, toolNames(tools))
	case s.tool != "":
		return "", nil, usagef("--tool needs --tools FILE, the tools/list answer to pick it from")
	}
	return "", nil, usagef("a schema is needed: --schema FILE or --tools FILE --tool NAME")
}

func (s *schemaFlags) readTools(e *env) ([]mcpTool, error) {
	name, data, err := e.readFile("--tools", s.tools)
	if err != nil {
		return nil, err
	}
	return parseTools(name, data)
}

// adaptResult is one adapted schema in --format json.
type adaptResult struct {
	Name        string          `json:"name,omitempty"`
	Description string          `json:"description,omitempty"`
	InputSchema json.RawMessage `json:"inputSchema"`
	Report      *adaptReport    `json:"report"`
}

// adaptReport is what an adaptation did, in --format json.
type adaptReport struct {
	Profile adapt.Profile `json:"profile"`
	Changes []adapt.Edit  `json:"changes"`
}

// reportOf is the report of s.
func reportOf(s *adapt.Schema) *adaptReport {
	return &adaptReport{Profile: s.Profile(), Changes: s.Edits()}
}

// adaptSchema adapts the schema doc read from name. The whole schema must
// compile, what only validation reads included: the library adapts a
// server's schema whose bounds are malformed (and leaves the error to the
// check of each answer), but the command, run on a schema being written,
// says so at once (exit 2).
func adaptSchema(name string, doc any, p adapt.Profile) (*adapt.Schema, error) {
	if _, err := structconv.Compile(doc); err != nil {
		return nil, usagef("%s: %v", name, err)
	}
	s, err := adapt.Adapt(doc, p)
	if err != nil {
		return nil, usagef("%s: %v", name, err)
	}
	return s, nil
}

// runAdapt implements "structkit adapt".
func runAdapt(e *env, args []string) error {
	fs := flag.NewFlagSet("adapt", flag.ContinueOnError)
	var sf schemaFlags
	sf.register(fs)
	var pf profileFlag
	fs.Var(&pf, "profile", "the provider `NAME`: "+profileNames())
	rules := fs.Bool("rules", false, "print the profile's rules (all profiles' without --profile) instead")
	format := newEnum("text", "text", "json")
	fs.Var(format, "format", "`FORMAT` of the output: text (schema on stdout, report on stderr) or json (schema and report on stdout)")
	var jo jsonOutput
	jo.register(fs)
	pos, err := parseFlags(e, fs, args, func(w io.Writer) { adaptUsage(w, fs) })
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usagef("adapt takes no arguments, got %s", strings.Join(pos, " "))
	}
	if *rules {
		if sf.schema != "" || sf.tools != "" || sf.tool != "" {
			return usagef("adapt: --rules prints the profiles' rules and reads no schema: drop --schema/--tools/--tool")
		}
		return writeRules(e, jo, pf.p, format.value)
	}
	if pf.p == "" {
		return usagef("adapt needs --profile NAME (%s)", profileNames())
	}
	if sf.tools != "" && sf.tool == "" && sf.schema == "" {
		return adaptTools(e, jo, &sf, pf.p, format.value)
	}
	name, doc, err := sf.sourceSchema(e)
	if err != nil {
		return err
	}
	s, err := adaptSchema(name, doc, pf.p)
	if err != nil {
		return err
	}
	if format.value == "json" {
		return jo.value(e, adaptResult{Name: sf.tool, InputSchema: s.JSON(), Report: reportOf(s)})
	}
	if err := jo.write(e, s.JSON()); err != nil {
		return err
	}
	for _, c := range s.Edits() {
		fmt.Fprintln(e.stderr, c)
	}
	return nil
}

// adaptTools adapts every tool of a tools/list answer: {"tools": [...]}
// with the adapted input schemas on stdout, the reports on stderr (text)
// or beside each tool (json).
func adaptTools(e *env, jo jsonOutput, sf *schemaFlags, p adapt.Profile, format string) error {
	tools, err := sf.readTools(e)
	if err != nil {
		return err
	}
	out := struct {
		Tools []adaptResult `json:"tools"`
	}{Tools: []adaptResult{}}
	var failed []string
	for _, t := range tools {
		s, err := adapt.Adapt(t.InputSchema, p)
		if err != nil {
			failed = append(failed, fmt.Sprintf("tool %q: %v", t.Name, err))
			continue
		}
		res := adaptResult{Name: t.Name, Description: t.Description, InputSchema: s.JSON(), Report: reportOf(s)}
		if format == "text" {
			for _, c := range s.Edits() {
				fmt.Fprintf(e.stderr, "%s: %s\n", t.Name, c)
			}
			res.Report = nil
		}
		out.Tools = append(out.Tools, res)
	}
	if err := jo.value(e, out); err != nil {
		return err
	}
	if len(failed) > 0 {
		return fmt.Errorf("%s: %s", sf.tools, strings.Join(failed, "; "))
	}
	return nil
}

func writeRules(e *env, jo jsonOutput, p adapt.Profile, format string) error {
	profiles := adapt.Profiles()
	if p != "" {
		profiles = []adapt.Profile{p}
	}
	if format == "json" {
		out := map[string][]adapt.Requirement{}
		for _, q := range profiles {
			out[string(q)] = q.Requirements()
		}
		return jo.value(e, out)
	}
	var b strings.Builder
	for _, q := range profiles {
		fmt.Fprintf(&b, "%s\n", q)
		for _, r := range q.Requirements() {
			fmt.Fprintf(&b, "  %-18s %s\n  %-18s source: %s\n", r.Name, r.Text, "", r.Source)
		}
	}
	return writeOutput(e, []byte(b.String()))
}

// runRestore implements "structkit restore".
func runRestore(e *env, args []string) error {
	fs := flag.NewFlagSet("restore", flag.ContinueOnError)
	var sf schemaFlags
	sf.register(fs)
	var pf profileFlag
	fs.Var(&pf, "profile", "the provider `NAME` the answer was written for: "+profileNames())
	var pol policyFlags
	pol.register(fs)
	format := newEnum("text", "text", "json")
	fs.Var(format, "format", "`FORMAT` of the output: text (arguments on stdout, report on stderr) or json (one object on stdout)")
	var jo jsonOutput
	jo.register(fs)
	pos, err := parseFlags(e, fs, args, func(w io.Writer) { restoreUsage(w, fs) })
	if err != nil {
		return err
	}
	policy, err := pol.policy(fs)
	if err != nil {
		return err
	}
	if pf.p == "" {
		return usagef("restore needs --profile NAME (%s)", profileNames())
	}
	name, doc, err := sf.sourceSchema(e)
	if err != nil {
		return err
	}
	s, err := adaptSchema(name, doc, pf.p)
	if err != nil {
		return err
	}
	inName, answer, err := readInput(e, "restore", pos)
	if err != nil {
		return err
	}
	where := ""
	out, rep, err := adapt.RestoreOptions{Schema: s, CheckOptions: structconv.CheckOptions{Policy: policy}}.JSON(context.Background(), sf.tool, answer)
	var schemaErr *coerce.SchemaError
	if errors.As(err, &schemaErr) {
		return usagef("%s: %v", name, err) // the schema is at fault, not the answer
	}
	if err != nil {
		if rep, where, err = inputReport(inName, answer, err); err != nil {
			return err
		}
		out = nil
	}
	return writeCheckResult(e, jo, format.value, out, rep, where)
}

func adaptUsage(w io.Writer, fs *flag.FlagSet) {
	fmt.Fprint(w, `Usage: structkit adapt --profile NAME (--schema FILE | --tools FILE [--tool NAME]) [--format text|json] [--indent]
       structkit adapt --rules [--profile NAME]

Adapt rewrites a tool's JSON Schema into what a provider's function calling
accepts (profiles: `+profileNames()+`), and reports every change by
location of the original schema with what was lost. What the profile cannot
say is written in a form the model can still write (null for absent, maps
as {key, value} pairs, JSON text, 64-bit integers as digits) and read back
exactly by "structkit restore".

With --schema FILE (or --tools FILE --tool NAME) the adapted schema goes to
standard output and the report to standard error. With --tools FILE alone
every tool is adapted: {"tools": [{"name", "description", "inputSchema"}]}
on standard output, the reports (each line prefixed by the tool's name) on
standard error. --format json puts the reports beside the schemas on
standard output. --rules prints the profiles' rules, each with its source.

Exit status: 0 ok; 2 bad usage, or a schema that cannot be read, does
not compile or cannot be adapted.

`+schemaHelp+`
Flags:
`)
	printDefaults(w, fs)
}

func restoreUsage(w io.Writer, fs *flag.FlagSet) {
	fmt.Fprint(w, `Usage: structkit restore --profile NAME (--schema FILE | --tools FILE --tool NAME) [--lenient | --rules r1,r2] [--format text|json] [--indent] [ANSWER]

Restore reads a model's answer (a tool call's arguments as the provider
returned them, from the file ANSWER or standard input), written under the
schema "structkit adapt" gives for the profile, and prints the arguments
the tool's own schema asks for: each stand-in read back (null for absent,
pairs as maps, JSON text as values, digits as exact integers), the chosen
repairs made, then the result checked against the original schema.

The output is that of "structkit check": the arguments on standard output
and the report on standard error, or one JSON object with --format json.

Exit status: 0 valid; 1 invalid (an answer that is not JSON included); 2
bad usage, or a schema that cannot be read, compiled or adapted.

`+schemaHelp+`
Flags:
`)
	printDefaults(w, fs)
}
