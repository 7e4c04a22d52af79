package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/structkit/structkit/coerce"
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
	lenient := fs.Bool("lenient", false, "repair the unambiguous typing slips models make (the safe preset: "+joinRules(coerce.Lenient().Rules())+")")
	rules := fs.String("rules", "", "repair with these `RULES` only, comma-separated: "+joinRules(coerce.AllRules())+"; or lenient, all")
	format := newEnum("text", "text", "json")
	fs.Var(format, "format", "`FORMAT` of the output: text (arguments on stdout, report on stderr) or json (one object on stdout)")
	pos, err := parseFlags(e, fs, args, func(w io.Writer) { checkUsage(w, fs) })
	if err != nil {
		return err
	}
	policy, err := coerce.ParsePolicy(*rules)
	if err != nil {
		return usagef("check: --rules: %v", err)
	}
	if *lenient {
		policy = policy.Or(coerce.Lenient())
	}
	schema, err := sf.load()
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

	out, rep, err := structconv.CheckOptions{Schema: schema, Policy: policy, Tool: sf.tool}.JSON(data)
	if err != nil {
		var schemaErr *coerce.SchemaError
		if errors.As(err, &schemaErr) {
			// The schema is at fault, not the arguments: name it, exit 2.
			return usagef("%s: %v", sf.source(), err)
		}
		var se *structconv.Error
		if !errors.As(err, &se) {
			return fmt.Errorf("%s: %w", name, err)
		}
		// Arguments that are not even JSON are invalid arguments too.
		rep = &coerce.Report{Problems: []coerce.Problem{{
			Path: se.Path, Keyword: "json", Expected: "a JSON document", Got: se.Msg,
			Message: inputError(name, data, err).Error(),
		}}}
		out = nil
	}

	if format.value == "json" {
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
		var b bytes.Buffer
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(res); err != nil {
			return err
		}
		if err := writeOutput(e, b.Bytes()); err != nil {
			return err
		}
	} else {
		if out != nil {
			if err := writeOutput(e, append(out, '\n')); err != nil {
				return err
			}
		}
		writeReport(e.stderr, rep)
	}
	if !rep.Valid() {
		return errInvalid
	}
	return nil
}

func joinRules(rules []coerce.Rule) string {
	names := make([]string, len(rules))
	for i, r := range rules {
		names[i] = string(r)
	}
	return strings.Join(names, ",")
}

func checkUsage(w io.Writer, fs *flag.FlagSet) {
	fmt.Fprint(w, `Usage: structkit check [--schema FILE | --tools FILE --tool NAME] [--lenient | --rules r1,r2] [--format text|json] [FILE]

Check reads a tool call's arguments as a model wrote them, from FILE or
standard input when FILE is absent or "-", repairs what the chosen rules
allow (each repair reported; none by default), and validates the result
against the whole schema.

With --format text (the default) the arguments as they should be sent go
to standard output and the report (changes, then problems, one per line)
to standard error. With --format json one object goes to standard output:
{"valid", "arguments", "changes": [{"path","rule","from","to"}],
"problems": [{"path","keyword","expected","got","message"}]}.

Exit status: 0 valid, 1 invalid (arguments that are not JSON included),
2 bad usage or an unreadable file.

`+schemaHelp+`
Flags:
`)
	printDefaults(w, fs)
}
