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

// runEncode implements "structkit encode": Struct → schema-aware JSON.
func runEncode(e *env, args []string) error {
	fs := flag.NewFlagSet("encode", flag.ContinueOnError)
	var sf schemaFlags
	sf.register(fs)
	from := newEnum("json", "json", "binary")
	fs.Var(from, "from", "the input `FORMAT`: json (JSON text showing what the Struct holds) or binary (protobuf wire format of google.protobuf.Struct)")
	report := fs.Bool("report", false, "print what the conversion changed to standard error, one change per line")
	var jo jsonOutput
	jo.register(fs)
	pos, err := parseFlags(e, fs, args, func(w io.Writer) { encodeUsage(w, fs) })
	if err != nil {
		return err
	}
	sf.convertOnly = true
	schema, err := sf.load(e)
	if err != nil {
		return err
	}
	name, data, err := readInput(e, "encode", pos)
	if err != nil {
		return err
	}

	var st structpb.Struct
	switch from.value {
	case "binary":
		if err := proto.Unmarshal(data, &st); err != nil {
			return inputFaultf(err, "%s: not a binary google.protobuf.Struct: %v", name, err)
		}
	default:
		// The text shows what the Struct holds: read it as is, without the
		// schema, so carried big integers stay strings and every number is
		// a double (rounded as the Struct would hold it).
		read := structconv.UnmarshalOptions{BigIntegers: structconv.BigIntegersRound}
		if err := read.Unmarshal(data, &st); err != nil {
			return inputError(name, data, err)
		}
	}

	var rep *coerce.Report
	if *report {
		rep = new(coerce.Report)
	}
	out, err := structconv.MarshalOptions{Schema: schema, Report: rep}.Marshal(&st)
	writeReport(e.stderr, rep)
	if err != nil {
		return inputError(name, nil, err)
	}
	return jo.write(e, out)
}

func encodeUsage(w io.Writer, fs *flag.FlagSet) {
	fmt.Fprint(w, `Usage: structkit encode [--schema FILE | --tools FILE --tool NAME] [--from json|binary] [--report] [--indent] [FILE]

Encode reads a google.protobuf.Struct and writes the JSON its schema calls
for, compact with members sorted, followed by a newline: whole numbers at
locations whose schema admits integer as integer literals (5.0 → 5), and
big integers carried as decimal strings ("9007199254740993") as bare
literals again.

The Struct is read from FILE, or standard input when FILE is absent or "-",
as JSON text showing what the Struct holds (--from json, the default: read
without the schema, numbers as doubles, strings as strings) or as protobuf
binary (--from binary).

`+schemaHelp+`
Flags:
`)
	printDefaults(w, fs)
}
