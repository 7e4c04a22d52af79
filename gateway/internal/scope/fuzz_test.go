package scope

import (
	"errors"
	"strings"
	"testing"
)

// FuzzPick: whatever the values, Pick returns either a *HeaderError or
// values within the bounds, printable ASCII, in the names' order, and
// never one of a name not configured.
func FuzzPick(f *testing.F) {
	f.Add("Bearer abc", "t1", 1)
	f.Add("a\r\nb", "", 9)
	f.Add(strings.Repeat("x", MaxValueBytes+1), "\x7f", 2)
	fw, err := CompileForward("F", []string{"authorization", "x-tenant"})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, a, b string, n int) {
		n = max(0, n%(2*MaxValues))
		vals := make([]string, n)
		for i := range vals {
			vals[i] = b
		}
		pairs, err := fw.Pick(func(name string) []string {
			switch name {
			case "authorization":
				return []string{a}
			case "x-tenant":
				return vals
			}
			t.Fatalf("asked for %q", name)
			return nil
		})
		if err != nil {
			var he *HeaderError
			if !errors.As(err, &he) || pairs != nil {
				t.Fatalf("err %v (%T), pairs %v", err, err, pairs)
			}
			return
		}
		total := 0
		for i, p := range pairs {
			if p.Name != "authorization" && p.Name != "x-tenant" || (i > 0 && p.Name == "authorization") {
				t.Fatalf("pair %d: %q", i, p.Name)
			}
			for j := 0; j < len(p.Value); j++ {
				if p.Value[j] < 0x20 || p.Value[j] > 0x7e {
					t.Fatalf("pair %d: byte 0x%02x", i, p.Value[j])
				}
			}
			total += len(p.Name) + len(p.Value)
		}
		if total > MaxBytes || len(pairs) != 1+n {
			t.Fatalf("%d bytes, %d pairs (want %d)", total, len(pairs), 1+n)
		}
	})
}
