package adapt

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/structkit/structkit/internal/jsontext"
	"github.com/structkit/structkit/internal/plan"
	"github.com/structkit/structkit/internal/schema"
	"github.com/structkit/structkit/structconv"
)

const corpusDir = "../testdata/mcp-tools"

// corpusTool is one tool input schema of the MCP fixtures.
type corpusTool struct {
	name string
	raw  []byte
}

// loadCorpus reads every schemas/*.json and every tool of lists/*.json.
func loadCorpus(t testing.TB) []corpusTool {
	t.Helper()
	var tools []corpusTool
	files, _ := filepath.Glob(filepath.Join(corpusDir, "schemas", "*.json"))
	sort.Strings(files)
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var doc struct {
			InputSchema json.RawMessage `json:"inputSchema"`
		}
		if err := json.Unmarshal(b, &doc); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		tools = append(tools, corpusTool{"schemas/" + strings.TrimSuffix(filepath.Base(f), ".json"), doc.InputSchema})
	}
	lists, _ := filepath.Glob(filepath.Join(corpusDir, "lists", "*.json"))
	sort.Strings(lists)
	for _, f := range lists {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var doc struct {
			Tools []struct {
				Name        string          `json:"name"`
				InputSchema json.RawMessage `json:"inputSchema"`
			} `json:"tools"`
		}
		if err := json.Unmarshal(b, &doc); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		for _, tool := range doc.Tools {
			tools = append(tools, corpusTool{"lists/" + strings.TrimSuffix(filepath.Base(f), ".json") + ":" + tool.Name, tool.InputSchema})
		}
	}
	if len(files) < 80 || len(lists) < 26 {
		t.Fatalf("fixtures missing: %d schema files, %d lists", len(files), len(lists))
	}
	return tools
}

// decode reads JSON with exact numbers.
func decode(t testing.TB, b []byte) any {
	t.Helper()
	v, err := jsontext.Decode(b, jsontext.Options{})
	if err != nil {
		t.Fatalf("not JSON: %v\n%s", err, b)
	}
	return v
}

// canonical is x as structconv writes it under the schema: the form
// restore's output is compared in.
func canonical(t testing.TB, s *structconv.Schema, x []byte) []byte {
	t.Helper()
	var v structpb.Value
	if err := (structconv.UnmarshalOptions{Schema: s}).Unmarshal(x, &v); err != nil {
		t.Fatalf("Unmarshal(%s): %v", x, err)
	}
	out, err := structconv.MarshalOptions{Schema: s}.Marshal(&v)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// adaptedDoc is the adapted schema as a document a generator can read
// (the OpenAPI form rewritten into JSON Schema).
func adaptedDoc(t testing.TB, a *Schema) map[string]any {
	doc := decode(t, a.JSON())
	if a.Profile() == GeminiSchema {
		var err error
		if doc, err = schema.RewriteOpenAPI30(doc); err != nil {
			t.Fatal(err)
		}
	}
	return doc.(map[string]any)
}

// stats counts, per profile, what adaptation did over the corpus.
type stats struct {
	tools, changed, lossy, textCut int
	actions                        map[Action]int
	lost                           map[string]int
	forward, restored, answers     int
	answerProblems, bigints        int
}

// corpusSeedCount is how many instances per tool and profile the round
// trips generate (fewer under the race detector: race_test.go).
var corpusSeedCount uint64 = 6

// TestCorpus adapts every tool of the corpus to every profile and checks:
// the adapted schema passes the profile's rules; for instances x generated
// valid under the original, Forward(x) is valid under the adapted schema
// and restores to x byte for byte; for answers y generated valid under the
// adapted schema, restore gives arguments valid under the original or
// problems that name locations in it.
func TestCorpus(t *testing.T) {
	tools := loadCorpus(t)
	all := map[Profile]*stats{}
	for _, p := range Profiles() {
		st := &stats{actions: map[Action]int{}, lost: map[string]int{}}
		all[p] = st
		t.Run(string(p), func(t *testing.T) {
			for _, tool := range tools {
				corpusTool1(t, p, tool, st)
			}
		})
	}
	for _, p := range Profiles() {
		st := all[p]
		t.Logf("%-13s %d tools, %d changed, %d lose something, %d with a location as JSON text; round trips: %d instances (%d integers beyond 2^53), %d answers (%d with problems)",
			p, st.tools, st.changed, st.lossy, st.textCut, st.restored, st.bigints, st.answers, st.answerProblems)
		t.Logf("%-13s actions: %s", p, topCounts(st.actions, 20))
		t.Logf("%-13s most lost: %s", p, topLost(st.lost, 8))
	}
}

func topCounts(m map[Action]int, n int) string {
	type kv struct {
		k Action
		v int
	}
	var list []kv
	for k, v := range m {
		list = append(list, kv{k, v})
	}
	sort.Slice(list, func(i, j int) bool { return list[i].v > list[j].v || list[i].v == list[j].v && list[i].k < list[j].k })
	var parts []string
	for i, e := range list {
		if i == n {
			break
		}
		parts = append(parts, fmt.Sprintf("%s %d", e.k, e.v))
	}
	return strings.Join(parts, ", ")
}

func topLost(m map[string]int, n int) string {
	type kv struct {
		k string
		v int
	}
	var list []kv
	for k, v := range m {
		list = append(list, kv{k, v})
	}
	sort.Slice(list, func(i, j int) bool { return list[i].v > list[j].v || list[i].v == list[j].v && list[i].k < list[j].k })
	var parts []string
	for i, e := range list {
		if i == n {
			break
		}
		parts = append(parts, fmt.Sprintf("%s %d", e.k, e.v))
	}
	return strings.Join(parts, "; ")
}

func corpusTool1(t *testing.T, p Profile, tool corpusTool, st *stats) {
	t.Helper()
	a, err := Adapt(tool.raw, p)
	if err != nil {
		t.Errorf("%s: Adapt: %v", tool.name, err)
		return
	}
	st.tools++
	vs, err := p.Check(a.JSON())
	if err != nil || len(vs) > 0 {
		t.Errorf("%s: the adapted schema breaks the rules: %v %v\n%s", tool.name, err, vs, a.JSON())
		return
	}
	if len(a.Edits()) > 0 {
		st.changed++
	}
	if len(a.Lost()) > 0 {
		st.lossy++
	}
	cut := false
	for _, c := range a.Edits() {
		st.actions[c.Action]++
		if c.Lost != "" {
			key := string(c.Action)
			if c.Keyword != "" {
				key += " " + c.Keyword
			}
			st.lost[key]++
		}
		cut = cut || c.Action == actionText
	}
	if cut {
		st.textCut++
	}
	orig := a.Original()
	adapted, err := structconv.Compile(a.JSON())
	if err != nil {
		t.Errorf("%s: the adapted schema does not compile: %v", tool.name, err)
		return
	}
	origDoc := decode(t, tool.raw).(map[string]any)
	sdoc := adaptedDoc(t, a)
	for seed := uint64(1); seed <= corpusSeedCount; seed++ {
		// x valid under the original: forward, check, restore.
		x, ok := newGen(origDoc, seed).value(origDoc, 0)
		if ok {
			xb, _ := jsontext.Marshal(x)
			if ps, err := orig.Validate(context.Background(), decode(t, xb)); err == nil && len(ps) == 0 {
				roundTrip(t, tool.name, a, adapted, xb, st)
			}
		}
		// y valid under the adapted schema: restore.
		y, ok := newGen(sdoc, seed+1000).value(sdoc, 0)
		if ok {
			yb, _ := jsontext.Marshal(y)
			if ps, err := adapted.Validate(context.Background(), decode(t, yb)); err == nil && len(ps) == 0 {
				answer(t, tool.name, a, yb, st)
			}
		}
	}
}

// sameFromStruct: the answer y held in a Struct (as Vertex AI hands it
// over) restores, read in place, as the JSON the Struct stands for does:
// the same arguments, problems and changes. A Struct holding a string of
// digits beyond 2^53 is left to TestRestoreStruct: read in place, such a
// string where the original has integers is the integer the codec
// carries, and read as JSON text it is the string it is.
func sameFromStruct(t *testing.T, name string, a *Schema, y []byte) {
	t.Helper()
	var in structpb.Struct
	if err := structconv.Unmarshal(y, &in); err != nil || holdsCarried(structpb.NewStructValue(&in)) {
		return
	}
	text, err := structconv.Marshal(&in)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	wantOut, wantRep, wantErr := a.Restore(text)
	got, rep, err := RestoreOptions{Schema: a}.Struct(context.Background(), "", &in)
	if (err == nil) != (wantErr == nil) {
		t.Errorf("%s: from a Struct: %v; from its JSON %s: %v", name, err, text, wantErr)
		return
	}
	if err != nil {
		return
	}
	if fmt.Sprint(rep.Changes, rep.Problems) != fmt.Sprint(wantRep.Changes, wantRep.Problems) {
		t.Errorf("%s: the report from a Struct differs from its JSON's %s:\n got  %v %v\n want %v %v", name, text, rep.Changes, rep.Problems, wantRep.Changes, wantRep.Problems)
	}
	var want structpb.Struct
	if err := (structconv.UnmarshalOptions{Schema: a.Original()}).Unmarshal(wantOut, &want); err != nil {
		t.Fatalf("%s: %s: %v", name, wantOut, err)
	}
	if !proto.Equal(got, &want) {
		t.Errorf("%s: restored from a Struct: %v; from its JSON %s: %s", name, got, text, wantOut)
	}
}

// holdsCarried reports whether v holds a string of digits beyond 2^53.
func holdsCarried(v *structpb.Value) bool {
	switch k := v.GetKind().(type) {
	case *structpb.Value_StringValue:
		return jsontext.Carried(k.StringValue)
	case *structpb.Value_StructValue:
		for _, e := range k.StructValue.GetFields() {
			if holdsCarried(e) {
				return true
			}
		}
	case *structpb.Value_ListValue:
		for _, e := range k.ListValue.GetValues() {
			if holdsCarried(e) {
				return true
			}
		}
	}
	return false
}

// roundTrip checks the first invariant on x.
func roundTrip(t *testing.T, name string, a *Schema, adapted *structconv.Schema, x []byte, st *stats) {
	t.Helper()
	fw, err := a.Forward(x)
	if err != nil {
		t.Errorf("%s: Forward(%s): %v", name, x, err)
		return
	}
	st.forward++
	ps, err := adapted.Validate(context.Background(), decode(t, fw))
	if err != nil || len(ps) > 0 {
		t.Errorf("%s: Forward(x) is not valid under the adapted schema: %v %v\n x:  %s\n fw: %s\n S': %s", name, err, ps, x, fw, a.JSON())
		return
	}
	out, rep, err := a.Restore(fw)
	if err != nil || !rep.Valid() {
		t.Errorf("%s: Restore(Forward(x)): %v %v\n x:  %s\n fw: %s", name, err, rep, x, fw)
		return
	}
	// Compared as a Struct holds them: restore writes a big integer the
	// answer wrote as a number at a free location as that number, where
	// canonical's Struct holds its digits (exactness: the bridge's
	// TestFreeLocationsExactUnderProfiles).
	if want := canonical(t, a.Original(), x); !bytes.Equal(canonical(t, a.Original(), out), want) {
		t.Errorf("%s: Restore(Forward(x)) differs from x:\n x:   %s\n fw:  %s\n got: %s\n S':  %s", name, want, fw, out, a.JSON())
		return
	}
	st.restored++
	for _, b := range genBig {
		if bytes.Contains(x, []byte(b)) {
			st.bigints++
			break
		}
	}
}

// answer checks the second invariant on y.
func answer(t *testing.T, name string, a *Schema, y []byte, st *stats) {
	t.Helper()
	out, rep, err := a.Restore(y)
	if err != nil {
		t.Errorf("%s: Restore(%s): %v", name, y, err)
		return
	}
	st.answers++
	sameFromStruct(t, name, a, y)
	if rep.Valid() {
		if ps, err := a.Original().Validate(context.Background(), decode(t, out)); err != nil || len(ps) > 0 {
			t.Errorf("%s: restored arguments reported valid are not: %v\n y: %s\n out: %s", name, ps, y, out)
		}
		return
	}
	st.answerProblems++
	doc := (*plan.Schema)(a.Original())
	for _, p := range rep.Problems {
		if p.Schema != "" {
			if _, ok := doc.Graph().Lookup(p.Schema); !ok && !strings.Contains(p.Schema, "#") {
				t.Errorf("%s: problem %q names schema location %q, which the original does not have", name, p.String(), p.Schema)
			}
		}
		if !strings.HasPrefix(p.String(), strings.TrimSuffix(p.Path, "/")) && p.Path != "" {
			t.Errorf("%s: problem %q does not start with its path %q", name, p.String(), p.Path)
		}
	}
}
