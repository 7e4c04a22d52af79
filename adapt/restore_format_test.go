package adapt

// White space and member order do not change what restore makes of an
// answer (the "One core" issue, item 4): the decoder has one object
// iterator and one array iterator, and the token layer alone handles
// white space, in the answer and in the JSON text its stand-ins hold.

import (
	"bytes"
	"context"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/structkit/structkit/coerce"
	"github.com/structkit/structkit/internal/jsontext"
	"github.com/structkit/structkit/structconv"
)

// TestRestoreIssueExamples: the issue's two examples give the compact
// result: null written after a space is absence, and JSON text and the
// extra member written as Python's json.dumps writes them are restored.
func TestRestoreIssueExamples(t *testing.T) {
	tests := []struct {
		name, schema string
		answers      []string // all restore to want
		want         string
	}{
		{
			name:    "null after a space is absence",
			schema:  `{"type":"object","properties":{"id":{"type":"integer"},"free":{"type":"string"}},"required":["id"]}`,
			answers: []string{`{"id":1,"free":null}`, `{"id":1,"free": null}`, `{"id":1,"free" :null}`, "{\"id\":1,\"free\":\n\tnull}", `{ "id" : 1 , "free" : null }`},
			want:    `{"id":1}`,
		},
		{
			name: "JSON text and extra members after a space",
			schema: `{"type":"object","properties":{"id":{"type":"integer"},
				"meta":{"type":"object","properties":{"a":{"type":"integer"}},"additionalProperties":{"type":"integer"}},
				"open":{"type":"object","properties":{"a":{"type":"integer"}},"additionalProperties":true},
				"any":{}},"required":["id","meta","open","any"]}`,
			answers: nil, // made from the forward form below
			want:    `{"any":{"k":[1,2]},"id":1,"meta":{"a":1,"b":2},"open":{"a":1,"z":{"y":null}}}`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, err := Adapt([]byte(tt.schema), OpenAI)
			if err != nil {
				t.Fatal(err)
			}
			answers := tt.answers
			if answers == nil {
				fw, err := a.Forward([]byte(tt.want))
				if err != nil {
					t.Fatal(err)
				}
				answers = []string{string(fw), pythonStyle(t, fw)}
				for _, stand := range []string{`"{\"k\": [1, 2]}"`, `"extra_members": "{\"z\": {\"y\": null}}"`, `"extra_members": [{"key": "b", "value": 2}]`} {
					if !strings.Contains(answers[1], stand) {
						t.Fatalf("the answer %s lacks %s", answers[1], stand)
					}
				}
			}
			for _, ans := range answers {
				out, rep, err := a.Restore([]byte(ans))
				if err != nil {
					t.Fatalf("Restore(%s): %v", ans, err)
				}
				if string(out) != tt.want || !rep.Valid() {
					t.Errorf("Restore(%s) = %s, problems %v; want %s", ans, out, rep.Problems, tt.want)
				}
			}
		})
	}
}

// pythonStyle writes the answer b as Python's json.dumps does, ", " and
// ": " between tokens, inside the JSON text its strings hold too.
func pythonStyle(t testing.TB, b []byte) string {
	v, err := jsontext.Decode(b, jsontext.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var w formatter
	w.python = true
	w.value(v)
	return w.b.String()
}

// formatter writes a decoded tree back with white space of its choice and
// its members in an order of its choice; a string holding the JSON text of
// an object or an array is written the same way inside.
type formatter struct {
	b      strings.Builder
	rng    *rand.Rand // nil: no random spaces, members sorted
	python bool
}

func (w *formatter) space() {
	if w.rng == nil {
		return
	}
	for range w.rng.IntN(4) {
		w.b.WriteByte(" \t\n\r"[w.rng.IntN(4)])
	}
}

func (w *formatter) value(v any) {
	w.space()
	switch x := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		if w.rng != nil {
			w.rng.Shuffle(len(keys), func(i, j int) { keys[i], keys[j] = keys[j], keys[i] })
		}
		w.b.WriteByte('{')
		for i, k := range keys {
			if i > 0 {
				w.sep(',')
			}
			w.space()
			w.str(k)
			w.sep(':')
			w.value(x[k])
		}
		w.space()
		w.b.WriteByte('}')
	case []any:
		w.b.WriteByte('[')
		for i, e := range x {
			if i > 0 {
				w.sep(',')
			}
			w.value(e)
		}
		w.space()
		w.b.WriteByte(']')
	case string:
		if inner, err := jsontext.DecodeString(x, jsontext.Options{}); err == nil {
			switch inner.(type) {
			case map[string]any, []any:
				sub := formatter{rng: w.rng, python: w.python}
				sub.value(inner)
				sub.space()
				x = sub.b.String()
			}
		}
		w.str(x)
	default:
		b, _ := jsontext.Marshal(x)
		w.b.Write(b)
	}
	w.space()
}

func (w *formatter) sep(c byte) {
	w.space()
	w.b.WriteByte(c)
	if w.python {
		w.b.WriteByte(' ')
	}
}

func (w *formatter) str(s string) {
	b, _ := jsontext.AppendString(nil, s)
	w.b.Write(b)
}

// reportKey renders a report in an order and a form that white space and
// member order do not change: each change and problem on a line, sorted;
// a From that quotes JSON text is written as its compact form.
func reportKey(rep *coerce.Report) string {
	var lines []string
	for _, c := range rep.Changes {
		from := c.From
		if s, err := strconv.Unquote(from); err == nil {
			if v, err := jsontext.DecodeString(s, jsontext.Options{}); err == nil {
				b, _ := jsontext.Marshal(v)
				from = strconv.Quote(string(b))
			}
		}
		lines = append(lines, "change "+c.Path+" "+string(c.Rule)+" "+from+" -> "+c.To+" @"+c.Schema)
	}
	for _, p := range rep.Problems {
		lines = append(lines, "problem "+p.Path+" "+p.Keyword+" "+p.String()+" @"+p.Schema)
	}
	slices.Sort(lines)
	return strings.Join(lines, "\n")
}

// TestRestoreFormatInvariance: for every tool of the corpus and every
// profile, the answers the round trips use (the forward form of instances
// valid under the original, with their stand-ins, and answers generated
// under the adapted schema), reformatted with arbitrary white space
// everywhere (inside JSON text too) and members in another order, restore
// to the same arguments with the same report, under the strict and the
// lenient policy.
func TestRestoreFormatInvariance(t *testing.T) {
	tools := loadCorpus(t)
	seeds := corpusSeedCount
	if testing.Short() {
		seeds = 2
	}
	var answers, reformatted, withText int
	for _, p := range Profiles() {
		for ti, tool := range tools {
			a, err := Adapt(tool.raw, p)
			if err != nil {
				continue // TestCorpus names it
			}
			origDoc := decode(t, tool.raw).(map[string]any)
			sdoc := adaptedDoc(t, a)
			for seed := uint64(1); seed <= seeds; seed++ {
				var cands [][]byte
				if x, ok := newGen(origDoc, seed).value(origDoc, 0); ok {
					xb, _ := jsontext.Marshal(x)
					if fw, err := a.Forward(xb); err == nil {
						cands = append(cands, fw)
					}
				}
				if y, ok := newGen(sdoc, seed+1000).value(sdoc, 0); ok {
					yb, _ := jsontext.Marshal(y)
					cands = append(cands, yb)
				}
				for ci, ans := range cands {
					answers++
					if bytes.Contains(ans, []byte(`\"`)) {
						withText++
					}
					rng := rand.New(rand.NewPCG(seed, uint64(ti*7+ci)))
					for _, policy := range []coerce.Policy{{}, coerce.Lenient()} {
						o := RestoreOptions{Schema: a, CheckOptions: structconv.CheckOptions{Policy: policy}}
						want, wantRep, wantErr := o.JSON(context.Background(), "", ans)
						forms := []string{pythonStyle(t, ans)}
						for range 3 {
							v, err := jsontext.Decode(ans, jsontext.Options{})
							if err != nil {
								t.Fatalf("%s %s: the answer %s is not JSON: %v", p, tool.name, ans, err)
							}
							w := formatter{rng: rng}
							w.value(v)
							forms = append(forms, w.b.String())
						}
						for _, f := range forms {
							reformatted++
							got, gotRep, gotErr := o.JSON(context.Background(), "", []byte(f))
							if (gotErr != nil) != (wantErr != nil) {
								t.Fatalf("%s %s: Restore(%s) err %v, but Restore(%s) err %v", p, tool.name, f, gotErr, ans, wantErr)
							}
							if wantErr != nil {
								continue
							}
							if !bytes.Equal(got, want) {
								t.Errorf("%s %s (lenient %v): reformatted, the arguments differ\n answer:      %s\n reformatted: %s\n restored:    %s\n want:        %s",
									p, tool.name, policy.Enabled(), ans, f, got, want)
								continue
							}
							if g, w := reportKey(gotRep), reportKey(wantRep); g != w {
								t.Errorf("%s %s (lenient %v): reformatted, the report differs\n answer:      %s\n reformatted: %s\n report:\n%s\n want:\n%s",
									p, tool.name, policy.Enabled(), ans, f, g, w)
							}
						}
					}
				}
			}
		}
	}
	t.Logf("%d answers (%d holding JSON text), %d reformatted forms", answers, withText, reformatted)
	if withText == 0 {
		t.Error("no answer held JSON text: the test proves nothing about it")
	}
}
