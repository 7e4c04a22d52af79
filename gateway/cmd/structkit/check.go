package main

import (
	"context"
	// encoding/json: only json.RawMessage, the type of JSON text in the
	// output struct (written through jsontext).
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/structkit/structkit/coerce"
	"github.com/structkit/structkit/jsonvalue"
	"github.com/structkit/structkit/structconv"
)

// errInvalid is returned by check for arguments with problems: exit 1,
// with nothing more printed than the report.
var errInvalid = errors.New("invalid arguments")

// checkResult is the --format json output.
type checkResult struct {
	Valid     bool             `json:"valid"`
	Arguments json.RawMessage  `json:"arguments"`
	Changes   []coerce.Change  `json:"changes"`
	Problems  []coerce.Problem `json:"problems"`
}

// runCheck implements "structkit check": the pre-dispatch check of a tool
// call's arguments.
func runCheck(e *env, args []string) error {
	fs := flag.NewFlagSet("check", flag.ContinueOnError)
	var sf schemaFlags
	sf.register(fs)
	var pol policyFlags
	pol.register(fs)
	format := newEnum("text", "text", "json")
	fs.Var(format, "format", "`FORMAT` of the output: text (arguments on stdout, report on stderr) or json (one object on stdout)")
	var jo jsonOutput
	jo.register(fs)
	pos, err := parseFlags(e, fs, args, func(w io.Writer) { checkUsage(w, fs) })
	if err != nil {
		return err
	}
	policy, err := pol.policy(fs)
	if err != nil {
		return err
	}
	schema, err := sf.load(e)
	if err != nil {
		return err
	}
	if schema == nil {
		return usagef("check needs a schema: --schema FILE or --tools FILE --tool NAME")
	}
	name, data, err := readInput(e, "check", pos)
	if err != nil {
		return err
	}

	out, rep, err := structconv.CheckOptions{Policy: policy}.JSON(context.Background(), sf.tool, schema, data)
	where := ""
	if err != nil {
		var schemaErr *coerce.SchemaError
		if errors.As(err, &schemaErr) {
			// The schema is at fault, not the arguments: name it, exit 2.
			return usagef("%s: %v", sf.source(), err)
		}
		rep, where, err = inputReport(name, data, err)
		if err != nil {
			return err
		}
		out = nil
	}
	return writeCheckResult(e, jo, format.value, out, rep, where)
}

// inputReport turns an error reading arguments (or an answer) into the
// report of a check: input that is not JSON is an invalid argument too,
// one problem of keyword "json" at the path where the reading stopped. The
// problem's parts say what is wrong ("... (byte N)"); where is its place
// in the input, "name:line:col" (or the name alone), which the text output
// puts first, as compilers do. Any other error is returned, naming the
// input.
func inputReport(name string, data []byte, err error) (rep *coerce.Report, where string, _ error) {
	var se *structconv.Error
	if !errors.As(err, &se) {
		return nil, "", fmt.Errorf("%s: %w", name, err)
	}
	msg, where := se.Msg, name
	if se.Offset >= 0 && data != nil {
		line, col := jsonvalue.LineCol(string(data), se.Offset)
		msg = fmt.Sprintf("%s (byte %d)", se.Msg, se.Offset)
		where = fmt.Sprintf("structkit: %s:%d:%d", name, line, col)
		if se.Code == structconv.CodeSyntax {
			where = fmt.Sprintf("structkit: %s:%d:%d: not JSON", name, line, col)
		}
	}
	return &coerce.Report{Problems: []coerce.Problem{{
		Path: se.Path, Keyword: "json", Expected: "a JSON document", Got: se.Msg, Msg: msg,
	}}}, where, nil
}

// writeCheckResult writes what a check or a restore made of arguments: in
// the json format one object (written by writeValue), else the arguments
// on stdout and the report on stderr, its problems placed after where
// when where is not empty (input that is not JSON: "name:line:col: /path:
// message"). Problems make it errInvalid.
func writeCheckResult(e *env, jo jsonOutput, format string, out []byte, rep *coerce.Report, where string) error {
	if format == "json" {
		res := checkResult{Valid: rep.Valid(), Arguments: out, Changes: rep.Changes, Problems: rep.Problems}
		if res.Arguments == nil {
			res.Arguments = json.RawMessage("null")
		}
		if res.Changes == nil {
			res.Changes = []coerce.Change{}
		}
		if res.Problems == nil {
			res.Problems = []coerce.Problem{}
		}
		if err := jo.value(e, res); err != nil {
			return err
		}
	} else {
		if out != nil {
			if err := jo.write(e, out); err != nil {
				return err
			}
		}
		if where != "" {
			for _, p := range rep.Problems {
				fmt.Fprintf(e.stderr, "%s: %s\n", where, p.String())
			}
		} else {
			writeReport(e.stderr, rep)
		}
	}
	if !rep.Valid() {
		return errInvalid
	}
	return nil
}

// ruleList names every lenient rule, comma-separated.
func ruleList() string {
	all, _ := coerce.ParsePolicy("all")
	return joinRules(all.Rules())
}

func joinRules(rules []coerce.Rule) string {
	names := make([]string, len(rules))
	for i, r := range rules {
		names[i] = string(r)
	}
	return strings.Join(names, ",")
}

func checkUsage(w io.Writer, fs *flag.FlagSet) {
	fmt.Fprint(w, `Usage: structkit check [--schema FILE | --tools FILE --tool NAME] [--lenient | --rules r1,r2] [--format text|json] [--indent] [FILE]

Check reads a tool call's arguments as a model wrote them, from FILE or
standard input when FILE is absent or "-", repairs what the chosen rules
allow (each repair reported; none by default), and validates the result
against the whole schema.

With --format text (the default) the arguments as they should be sent go
to standard output and the report (changes, then problems, one per line)
to standard error. With --format json one object goes to standard output:
{"valid", "arguments", "changes": [{"path","rule","from","to"}],
"problems": [{"path","keyword","expected","got","message"}]}.

Exit status: 0 valid; 1 invalid (arguments that are not JSON included);
2 bad usage, or a schema that cannot be read or compiled.

`+schemaHelp+`
Flags:
`)
	printDefaults(w, fs)
}
