package adapt

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// Hostile schemas (MCP servers we do not control) get a bounded answer:
// an adapted schema that passes the profile's rules, or an error; never a
// panic, a hang or exponential work.
func TestHostileSchemas(t *testing.T) {
	var defs []string
	for i := range 40 {
		defs = append(defs, fmt.Sprintf(`"d%d":{"type":"object","properties":{"a":{"$ref":"#/$defs/d%d"},"b":{"$ref":"#/$defs/d%d"}}}`, i, i+1, i+1))
	}
	defs = append(defs, `"d40":{"type":"integer"}`)
	dag := `{"type":"object","properties":{"x":{"$ref":"#/$defs/d0"}},"$defs":{` + strings.Join(defs, ",") + `}}`

	deep := `{"type":"string"}`
	for range 400 {
		deep = `{"type":"object","properties":{"a":` + deep + `}}`
	}
	var props []string
	for i := range 6000 {
		props = append(props, fmt.Sprintf(`"p%d":{"type":"integer"}`, i))
	}
	wide := `{"type":"object","properties":{` + strings.Join(props, ",") + `}}`
	var members []string
	for i := range 20000 {
		members = append(members, fmt.Sprintf(`"v%d"`, i))
	}
	enum := `{"type":"object","properties":{"e":{"enum":[` + strings.Join(members, ",") + `]}}}`
	selfRef := `{"type":"object","properties":{"next":{"$ref":"#"},"v":{"type":"integer"}}}`
	anyOfs := `{"type":"object","properties":{"u":` + strings.Repeat(`{"anyOf":[{"type":"integer"},`, 200) + `{"type":"string"}` + strings.Repeat(`]}`, 200) + `}}`

	for name, schema := range map[string]string{"dag": dag, "deep": deep, "wide": wide, "enum": enum, "self": selfRef, "anyOfs": anyOfs} {
		for _, p := range Profiles() {
			start := time.Now()
			a, err := Adapt([]byte(schema), p)
			if err != nil {
				t.Logf("%s/%s: %v", name, p, err)
				continue
			}
			if d := time.Since(start); d > time.Second {
				t.Logf("%s/%s: %v", name, p, d)
			}
			if d := time.Since(start); d > 20*time.Second {
				t.Errorf("%s/%s: %v", name, p, d)
			}
			vs, err := p.Check(a.JSON())
			if err != nil || len(vs) > 0 {
				t.Errorf("%s/%s: the adapted schema breaks the rules: %v %v", name, p, err, vs[:min(len(vs), 3)])
			}
			if len(a.JSON()) > 20<<20 {
				t.Errorf("%s/%s: %d bytes", name, p, len(a.JSON()))
			}
		}
	}
}
