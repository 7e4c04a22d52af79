package main

import (
	"flag"
	"fmt"
	"io"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/structkit/structkit/coerce"
	"github.com/structkit/structkit/structconv"
)

var bigIntegerModes = map[string]structconv.BigIntegers{
	"carry":  structconv.BigIntegersCarry,
	"round":  structconv.BigIntegersRound,
	"reject": structconv.BigIntegersReject,
}

// runDecode implements "structkit decode": JSON arguments → Struct.
func runDecode(e *env, args []string) error {
	fs := flag.NewFlagSet("decode", flag.ContinueOnError)
	var sf schemaFlags
	sf.register(fs)
	to := newEnum("json", "json", "binary")
	fs.Var(to, "to", "the output `FORMAT`: json (JSON text showing what the Struct holds) or binary (deterministic protobuf wire format)")
	bigInts := newEnum("carry", "carry", "round", "reject")
	fs.Var(bigInts, "big-integers", "`MODE` for integer literals beyond ±2^53: carry (exact, as decimal strings, where the schema admits integer), round (to the nearest double) or reject")
	maxDepth := fs.Int("max-depth", 0, "accept at most `N` levels of nested arrays and objects; 0 means 512")
	report := fs.Bool("report", false, "print what the conversion changed to standard error, one change per line")
	var jo jsonOutput
	jo.register(fs)
	pos, err := parseFlags(e, fs, args, func(w io.Writer) { decodeUsage(w, fs) })
	if err != nil {
		return err
	}
	if *maxDepth < 0 {
		return usagef("decode: --max-depth must not be negative")
	}
	sf.convertOnly = true
	schema, err := sf.load(e)
	if err != nil {
		return err
	}
	name, data, err := readInput(e, "decode", pos)
	if err != nil {
		return err
	}

	var rep *coerce.Report
	if *report {
		rep = new(coerce.Report)
	}
	opts := structconv.UnmarshalOptions{
		Schema:      schema,
		Report:      rep,
		BigIntegers: bigIntegerModes[bigInts.value],
		MaxDepth:    *maxDepth,
	}
	var st structpb.Struct
	err = opts.Unmarshal(data, &st)
	writeReport(e.stderr, rep)
	if err != nil {
		return inputError(name, data, err)
	}

	if to.value == "binary" {
		if jo.indent {
			return usagef("decode: --indent is for JSON output, not --to binary")
		}
		out, err := proto.MarshalOptions{Deterministic: true}.Marshal(&st)
		if err != nil {
			return inputFaultf(err, "%s: %v", name, err)
		}
		return writeOutput(e, out)
	}
	// Without the schema: show what the Struct holds, carried big integers
	// as the strings they are.
	out, err := structconv.Marshal(&st)
	if err != nil {
		return inputFaultf(err, "%s: %v", name, err)
	}
	return jo.write(e, out)
}

func decodeUsage(w io.Writer, fs *flag.FlagSet) {
	fmt.Fprint(w, `Usage: structkit decode [--schema FILE | --tools FILE --tool NAME] [--to json|binary] [--big-integers carry|round|reject] [--report] [--indent] [FILE]

Decode reads JSON arguments as a model wrote them, from FILE or standard
input when FILE is absent or "-", and converts them into a
google.protobuf.Struct under the schema. Numbers become doubles; an integer
literal beyond ±2^53 that a double would not write back as written is
carried exactly as a string of its digits (where the schema does not say
integer, only when written with digits only: 1e21 is rounded), or handled
as --big-integers says.

The Struct is written as JSON text showing what it holds, carried integers
as strings (--to json, the default), or as deterministic protobuf binary
(--to binary).

`+schemaHelp+`
Flags:
`)
	printDefaults(w, fs)
}
