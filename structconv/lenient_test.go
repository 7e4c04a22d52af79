package structconv_test

import (
	"bytes"
	"context"
	"encoding/json"
	"math/big"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/structkit/structkit/coerce"
	"github.com/structkit/structkit/structconv"
)

// lenPolicyRules is the set of rules the policy reports.
var lenPolicyRules = func() map[coerce.Rule]bool {
	m := map[coerce.Rule]bool{}
	all, _ := coerce.ParsePolicy("all")
	for _, r := range all.Rules() {
		m[r] = true
	}
	return m
}()

// lenPolicyChanges keeps the policy's entries of a report (the codec's own
// rules, such as integer or bigint-carried, are not the subject here).
func lenPolicyChanges(r *coerce.Report) []coerce.Change {
	var out []coerce.Change
	for _, c := range r.Changes {
		if lenPolicyRules[c.Rule] {
			out = append(out, c)
		}
	}
	return out
}

// lenDecode decodes JSON text with json.Number numbers.
func lenDecode(t *testing.T, b []byte) any {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		t.Fatalf("decode %s: %v", b, err)
	}
	if dec.More() {
		t.Fatalf("decode %s: trailing data", b)
	}
	return v
}

// lenNumberEqual compares numbers by exact value: integral literals by
// their digits, others by their double.
func lenNumberEqual(a, b json.Number) bool {
	ra, okA := new(big.Rat).SetString(string(a))
	rb, okB := new(big.Rat).SetString(string(b))
	if !okA || !okB {
		return a == b
	}
	if ra.IsInt() || rb.IsInt() {
		return ra.Cmp(rb) == 0
	}
	fa, errA := strconv.ParseFloat(string(a), 64)
	fb, errB := strconv.ParseFloat(string(b), 64)
	return errA == nil && errB == nil && fa == fb
}

var lenCmp = cmp.Comparer(lenNumberEqual)

// lenRun is what one path made of a case.
type lenRun struct {
	out     []byte
	changes []coerce.Change
}

func TestLenientTable(t *testing.T) {
	names := map[string]bool{}
	for _, c := range lenCases {
		if names[c.name] {
			t.Fatalf("two cases named %q", c.name)
		}
		names[c.name] = true
		t.Run(c.name, func(t *testing.T) {
			t.Logf("why: %s", c.why)
			schema, err := structconv.Compile([]byte(c.schema))
			if err != nil {
				t.Fatalf("Compile: %v", err)
			}
			// The expected output is itself compact with sorted members.
			if canon := lenCanonical(t, c.out); canon != c.out {
				t.Fatalf("bad case: out %s is not as Marshal writes it (%s)", c.out, canon)
			}
			runs := map[string]lenRun{
				"a": lenPathA(t, schema, c),
				"b": lenPathB(t, schema, c),
				"c": lenPathC(t, schema, c),
				"d": lenPathD(t, schema, c),
			}
			for _, p := range []string{"a", "b", "c", "d"} {
				run := runs[p]
				out, note := c.out, ""
				if o, ok := c.pathOut[p]; ok {
					out, note = o, "\n (this path's expectation: "+c.pathWhy+")"
				}
				if p == "d" {
					if diff := cmp.Diff(lenDecode(t, []byte(out)), lenDecode(t, run.out), lenCmp); diff != "" {
						t.Errorf("path d (GoOptions.Apply): output %s, want %s (-want +got):\n%s%s", run.out, out, diff, note)
					}
				} else if string(run.out) != out {
					t.Errorf("path %s (%s): output\n got  %s\n want %s%s", p, lenPathName[p], run.out, out, note)
				}
				want := c.changes
				if o, ok := c.pathChanges[p]; ok {
					want = o
				}
				lenCheckChanges(t, p, run.changes, want, c.pathWhy)
			}
			// The paths report the same changes, entry for entry: path,
			// rule, to and schema; and from, among the paths that read the
			// same text (a and d hold the literal as written, b and c only
			// the double a Struct holds: 1.5e-3 is 0.0015 there).
			for _, pair := range [][2]string{{"a", "d"}, {"b", "c"}, {"a", "b"}} {
				x, y := pair[0], pair[1]
				_, ownX := c.pathChanges[x]
				_, ownY := c.pathChanges[y]
				if ownX || ownY {
					continue
				}
				withFrom := pair != [2]string{"a", "b"}
				if diff := cmp.Diff(lenFullChanges(runs[x].changes, withFrom), lenFullChanges(runs[y].changes, withFrom)); diff != "" {
					t.Errorf("paths %s and %s report different changes (-%s +%s):\n%s", x, y, x, y, diff)
				}
			}
		})
	}
}

// lenFullChanges renders changes whole, sorted: the set a path reported.
func lenFullChanges(cs []coerce.Change, withFrom bool) []string {
	out := make([]string, len(cs))
	for i, c := range cs {
		if !withFrom {
			c.From = "…"
		}
		out[i] = c.String() + " @" + c.Schema
	}
	slices.Sort(out)
	return out
}

var lenPathName = map[string]string{
	"a": "Unmarshal with the policy, Marshal without",
	"b": "Unmarshal without schema, Marshal with the policy",
	"c": "Unmarshal without schema, Fix, Marshal",
	"d": "GoOptions.Apply on encoding/json values",
}

// lenCanonical rewrites JSON text compact, members sorted, numbers and
// strings as written (encoding/json, no HTML escaping).
func lenCanonical(t *testing.T, s string) string {
	t.Helper()
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(lenDecode(t, []byte(s))); err != nil {
		t.Fatal(err)
	}
	return strings.TrimSuffix(b.String(), "\n")
}

func lenCheckChanges(t *testing.T, p string, got []coerce.Change, want []lenChange, pathWhy string) {
	t.Helper()
	key := func(path string, rule coerce.Rule) string { return strconv.Quote(path) + " " + string(rule) }
	var g, w []string
	for _, c := range got {
		g = append(g, key(c.Path, c.Rule))
	}
	for _, c := range want {
		w = append(w, key(c.path, c.rule))
	}
	slices.Sort(g)
	slices.Sort(w)
	if !slices.Equal(g, w) {
		var lines []string
		for _, c := range got {
			lines = append(lines, c.String())
		}
		note := ""
		if pathWhy != "" {
			note = "\n (this path's expectation: " + pathWhy + ")"
		}
		t.Errorf("path %s (%s): changes\n got  %v\n want %v\n report:\n  %s%s", p, lenPathName[p], g, w, strings.Join(lines, "\n  "), note)
		return
	}
	for _, wc := range want {
		if !wc.full {
			continue
		}
		for _, gc := range got {
			if gc.Path == wc.path && gc.Rule == wc.rule && (gc.From != wc.from || gc.To != wc.to) {
				t.Errorf("path %s (%s): %s %s: from %s to %s; want from %s to %s", p, lenPathName[p], wc.path, wc.rule, gc.From, gc.To, wc.from, wc.to)
			}
		}
	}
	for _, gc := range got {
		if gc.Schema == "" && gc.Path != "" {
			t.Errorf("path %s: change %v names no schema location", p, gc)
		}
	}
}

// (a) JSON → Struct with the schema and the policy; Struct → JSON with the
// schema only.
func lenPathA(t *testing.T, schema *structconv.Schema, c lenCase) lenRun {
	t.Helper()
	var r coerce.Report
	var v structpb.Value
	if err := (structconv.UnmarshalOptions{Schema: schema, Policy: c.policy, Report: &r}).Unmarshal([]byte(c.in), &v); err != nil {
		t.Fatalf("path a: Unmarshal: %v", err)
	}
	out, err := structconv.MarshalOptions{Schema: schema}.Marshal(&v)
	if err != nil {
		t.Fatalf("path a: Marshal: %v", err)
	}
	return lenRun{out, lenPolicyChanges(&r)}
}

// lenRead reads JSON without a schema. It keeps the default
// BigIntegersCarry for every input: it equals BigIntegersRound for inputs
// without integers beyond ±2^53, and keeps every digit of those that have
// them (as a decimal string, which the cases with pathWhy discuss).
func lenRead(t *testing.T, in string) *structpb.Value {
	t.Helper()
	var v structpb.Value
	if err := structconv.Unmarshal([]byte(in), &v); err != nil {
		t.Fatalf("Unmarshal without schema: %v", err)
	}
	return &v
}

// (b) JSON → Struct without a schema; Struct → JSON with the schema and
// the policy.
func lenPathB(t *testing.T, schema *structconv.Schema, c lenCase) lenRun {
	t.Helper()
	v := lenRead(t, c.in)
	var r coerce.Report
	out, err := structconv.MarshalOptions{Schema: schema, Policy: c.policy, Report: &r}.Marshal(v)
	if err != nil {
		t.Fatalf("path b: Marshal: %v", err)
	}
	return lenRun{out, lenPolicyChanges(&r)}
}

// (c) JSON → Struct without a schema; the check of the Struct repairs it
// in place; Struct → JSON with the schema only.
func lenPathC(t *testing.T, schema *structconv.Schema, c lenCase) lenRun {
	t.Helper()
	v := lenRead(t, c.in)
	var m proto.Message = v
	switch {
	case v.GetStructValue() != nil:
		m = v.GetStructValue()
	case v.GetListValue() != nil:
		m = v.GetListValue()
	}
	rep, err := structconv.CheckOptions{Policy: c.policy}.Struct(context.Background(), "", schema, m)
	if err != nil {
		t.Fatalf("path c: CheckOptions.Struct: %v", err)
	}
	r := coerce.Report{Changes: rep.Changes}
	out, err := structconv.MarshalOptions{Schema: schema}.Marshal(v)
	if err != nil {
		t.Fatalf("path c: Marshal: %v", err)
	}
	return lenRun{out, lenPolicyChanges(&r)}
}

// (d) encoding/json with UseNumber → GoOptions.Apply → encoding/json.
func lenPathD(t *testing.T, schema *structconv.Schema, c lenCase) lenRun {
	t.Helper()
	in := lenDecode(t, []byte(c.in))
	var r coerce.Report
	res, err := structconv.GoOptions{Schema: schema, Policy: c.policy, Report: &r}.Apply(in)
	if err != nil {
		t.Fatalf("path d: Apply: %v", err)
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(res); err != nil {
		t.Fatalf("path d: encode %#v: %v", res, err)
	}
	return lenRun{bytes.TrimSuffix(b.Bytes(), []byte("\n")), lenPolicyChanges(&r)}
}

// TestReportOrderDeterministic: every path reports in the same order on
// every run; the Go-value paths visit members by name, not in Go's random
// map order.
func TestReportOrderDeterministic(t *testing.T) {
	var props, in []string
	for i := range 40 {
		name := "p" + strconv.Itoa(i)
		props = append(props, strconv.Quote(name)+`:{"type":"integer"}`)
		in = append(in, strconv.Quote(name)+`:"`+strconv.Itoa(i)+`"`)
	}
	schema, err := structconv.Compile([]byte(`{"type":"object","properties":{` + strings.Join(props, ",") + `}}`))
	if err != nil {
		t.Fatal(err)
	}
	doc := []byte(`{` + strings.Join(in, ",") + `}`)
	want := ""
	for run := range 20 {
		for name, report := range map[string]func() *coerce.Report{
			"ToGo": func() *coerce.Report {
				var r coerce.Report
				if _, err := (structconv.GoOptions{Schema: schema, Policy: lenL, Report: &r}).ToGo(lenRead(t, string(doc))); err != nil {
					t.Fatal(err)
				}
				return &r
			},
			"Apply": func() *coerce.Report {
				var r coerce.Report
				if _, err := (structconv.GoOptions{Schema: schema, Policy: lenL, Report: &r}).Apply(lenDecode(t, doc)); err != nil {
					t.Fatal(err)
				}
				return &r
			},
			"Marshal": func() *coerce.Report {
				var r coerce.Report
				if _, err := (structconv.MarshalOptions{Schema: schema, Policy: lenL, Report: &r}).Marshal(lenRead(t, string(doc))); err != nil {
					t.Fatal(err)
				}
				return &r
			},
			"CheckOptions.Struct": func() *coerce.Report {
				rep, err := structconv.CheckOptions{Policy: lenL}.Struct(context.Background(), "", schema, lenRead(t, string(doc)))
				if err != nil {
					t.Fatal(err)
				}
				return &coerce.Report{Changes: rep.Changes}
			},
		} {
			got := report().String()
			if want == "" {
				want = got
				if !slices.IsSortedFunc(report().Changes, func(a, b coerce.Change) int { return strings.Compare(a.Path, b.Path) }) {
					t.Fatalf("%s: changes not in member-name order:\n%s", name, got)
				}
			}
			if got != want {
				t.Fatalf("run %d, %s: report\n%s\nwant (as the first run)\n%s", run, name, got, want)
			}
		}
	}
}
