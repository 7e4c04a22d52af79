package scope

import (
	"errors"
	"path"
	"slices"
	"strings"
	"testing"
)

func TestKeep(t *testing.T) {
	for _, tc := range []struct {
		name     string
		f        Filter
		readOnly bool
		names    []string
		want     string
	}{
		{"no filter", Filter{}, false, []string{"a"}, ""},
		{"include match", Filter{Include: []string{"get_*"}}, false, []string{"get_order"}, ""},
		{"include miss", Filter{Include: []string{"get_*"}}, false, []string{"create_order"}, ByTools},
		{"include other name", Filter{Include: []string{"pkg.Svc/*"}}, false, []string{"Svc_Get", "pkg.Svc/Get"}, ""},
		{"star crosses slashes", Filter{Include: []string{"pkg.*"}}, false, []string{"pkg.Svc/Get"}, ""},
		{"a server's tools, slashes and all", Filter{Exclude: []string{"web.*"}}, false, []string{"web.admin/delete"}, ByExcludeTools},
		{"star crosses many slashes", Filter{Include: []string{"*"}}, false, []string{"a/b/c"}, ""},
		{"question mark matches a slash", Filter{Exclude: []string{"a?b"}}, false, []string{"a/b"}, ByExcludeTools},
		{"a literal slash", Filter{Include: []string{"web.admin/*"}}, false, []string{"web.admin/delete"}, ""},
		{"a literal slash misses", Filter{Include: []string{"web.admin/*"}}, false, []string{"web.admin_delete"}, ByTools},
		{"a slash in a class", Filter{Include: []string{"a[/]b"}}, false, []string{"a/b"}, ""},
		{"an escaped slash", Filter{Include: []string{`a\/b`}}, false, []string{"a/b"}, ""},
		{"case-sensitive", Filter{Exclude: []string{"*delete*"}}, false, []string{"Svc_DeleteOrder"}, ""},
		{"star crosses dots", Filter{Include: []string{"pkg.*"}}, false, []string{"pkg.Svc.Get"}, ""},
		{"exclude", Filter{Exclude: []string{"delete_*"}}, false, []string{"delete_all"}, ByExcludeTools},
		{"exclude wins over include", Filter{Include: []string{"*"}, Exclude: []string{"delete_*"}}, true, []string{"delete_all"}, ByExcludeTools},
		{"exclude other name", Filter{Exclude: []string{"pkg.Svc.*"}}, true, []string{"Svc_Get", "pkg.Svc/Get", "pkg.Svc.Get"}, ByExcludeTools},
		{"read-only kept", Filter{ReadOnly: true}, true, []string{"get"}, ""},
		{"read-only hides", Filter{ReadOnly: true}, false, []string{"set"}, ByReadOnly},
		{"include before read-only", Filter{Include: []string{"x"}, ReadOnly: true}, false, []string{"set"}, ByTools},
		{"exact name", Filter{Include: []string{"nav.code_nav"}}, false, []string{"nav.code_nav"}, ""},
		{"class", Filter{Include: []string{"tool[12]"}}, false, []string{"tool3"}, ByTools},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, err := Compile(tc.f, "Tools", "ExcludeTools")
			if err != nil {
				t.Fatal(err)
			}
			if got := m.Keep(tc.readOnly, tc.names...); got != tc.want {
				t.Errorf("Keep = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestCompileBad(t *testing.T) {
	for _, tc := range []struct {
		f    Filter
		want string
	}{
		{Filter{Include: []string{"ok", "["}}, `Tools[1] "["`},
		{Filter{Exclude: []string{"a\\"}}, `ExcludeTools[0] "a\\"`},
		{Filter{Exclude: []string{""}}, `ExcludeTools[0] ""`},
	} {
		_, err := Compile(tc.f, "Tools", "ExcludeTools")
		if !errors.Is(err, path.ErrBadPattern) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: err = %v, want ErrBadPattern naming %s", tc.f, err, tc.want)
		}
	}
	if m, err := Compile(Filter{}, "", ""); m != nil || err != nil || m.Filters() {
		t.Errorf("the zero Filter: %v, %v", m, err)
	}
}

func TestCompileForward(t *testing.T) {
	f, err := CompileForward("F", []string{"Authorization", "x-tenant", "AUTHORIZATION"})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(f.Names(), ","); got != "authorization,x-tenant" {
		t.Errorf("names = %s", got)
	}
	for _, bad := range []string{"", ":authority", "grpc-timeout", "x-bin", "connection", "Transfer-Encoding", "te", "host", "content-type", "mcp-session-id", "Mcp-Protocol-Version", "x tenant", "x\r\nevil", strings.Repeat("a", 129)} {
		if _, err := CompileForward("F", []string{bad}); err == nil || !strings.HasPrefix(err.Error(), "F[0]") {
			t.Errorf("%q: err = %v", bad, err)
		}
	}
	many := make([]string, MaxNames+1)
	for i := range many {
		many[i] = "x-h" + strings.Repeat("a", i)
	}
	if _, err := CompileForward("F", many); err == nil {
		t.Error("more than MaxNames names accepted")
	}
}

func TestPick(t *testing.T) {
	f, _ := CompileForward("F", []string{"authorization", "x-tenant"})
	h := map[string][]string{"authorization": {"Bearer t"}, "x-tenant": {"a", "b"}, "x-other": {"no"}}
	got, err := f.Pick(func(n string) []string { return h[n] })
	if err != nil || len(got) != 3 || got[0] != (Pair{"authorization", "Bearer t"}) || got[2] != (Pair{"x-tenant", "b"}) {
		t.Fatalf("Pick = %v, %v", got, err)
	}
	secret := "Bearer s3cret\x00"
	for _, tc := range []struct {
		vals []string
		want string
	}{
		{[]string{strings.Repeat("v", MaxValueBytes+1)}, "more than the 8192"},
		{make([]string, MaxValues+1), "9 values"},
		{[]string{secret}, "byte 0x00 at offset 13"},
		{[]string{"a\r\nX-Evil: 1"}, "byte 0x0d"},
		{[]string{"caf\xc3\xa9"}, "byte 0xc3"},
		{[]string{strings.Repeat("v", MaxValueBytes), strings.Repeat("v", MaxValueBytes)}, "more than 16384 bytes"},
	} {
		_, err := f.Pick(func(n string) []string {
			if n == "x-tenant" {
				return tc.vals
			}
			return nil
		})
		var he *HeaderError
		if !errors.As(err, &he) || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "s3cret") {
			t.Errorf("err = %v, want a HeaderError saying %s (never the value)", err, tc.want)
		}
	}
	if got, err := (Forward{}).Pick(func(string) []string { t.Fatal("read"); return nil }); got != nil || err != nil {
		t.Error("the zero Forward picks")
	}
}

// TestMatching: Matching names every pattern one of the names matches,
// Include's then Exclude's, whichever wins for the tool, so that a
// pattern that matches no tool can be told.
func TestMatching(t *testing.T) {
	m, err := Compile(Filter{Include: []string{"a.*", "x"}, Exclude: []string{"*/delete", "nope"}}, "Tools", "ExcludeTools")
	if err != nil {
		t.Fatal(err)
	}
	want := []Pattern{{ByTools, "a.*"}, {ByTools, "x"}, {ByExcludeTools, "*/delete"}, {ByExcludeTools, "nope"}}
	if got := m.Patterns(); !slices.Equal(got, want) {
		t.Errorf("Patterns: %v, want %v", got, want)
	}
	for _, tc := range []struct {
		names []string
		want  []int
	}{
		{[]string{"admin/delete", "a.admin/delete"}, []int{0, 2}},
		{[]string{"x", "b.x"}, []int{1}},
		{[]string{"y", "b.y"}, nil},
	} {
		var got []int
		m.Matching(func(i int) { got = append(got, i) }, tc.names...)
		if !slices.Equal(got, tc.want) {
			t.Errorf("Matching(%q): %v, want %v", tc.names, got, tc.want)
		}
	}
	var none *Matcher
	none.Matching(func(int) { t.Error("a nil Matcher matched") }, "x")
	if none.Patterns() != nil {
		t.Error("a nil Matcher has patterns")
	}
}
