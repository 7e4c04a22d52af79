package bridge

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/structkit/structkit/gateway/internal/scope"
	"github.com/structkit/structkit/gateway/mcpbridge"
)

// compileScope checks Options' patterns and metadata names.
func (s *Server) compileScope() error {
	m, err := scope.Compile(scope.Filter{Include: s.opts.Tools, Exclude: s.opts.ExcludeTools, ReadOnly: s.opts.ReadOnly}, "bridge: Tools", "bridge: ExcludeTools")
	if err != nil {
		return err
	}
	f, err := scope.CompileForward("bridge: Forward", s.opts.Forward)
	if err != nil {
		return err
	}
	s.scope, s.forward = m, f
	return nil
}

// hidden says why the scope hides an upstream's tool (ti, when listed;
// nil for one the server did not list or a limit left out, which is not
// known to be read-only), or "". The patterns match the tool's own name
// and SERVER.TOOL, however many servers there are: "delete_*" hides
// every server's, "web.delete_*" one server's, with one --mcp or many.
// (Matching the name at the bridge alone, a plain TOOL pattern stopped
// applying when a second server made the names SERVER.TOOL: an exclusion
// that failed open.)
func (s *Server) hidden(u *upstream, ti *mcpbridge.ToolInfo, tool string) string {
	if !s.scope.Filters() {
		return ""
	}
	return s.scope.Keep(readOnlyHint(ti), tool, u.name+"."+tool)
}

// hides reports whether the scope hides the tool.
func (s *Server) hides(u *upstream, ti *mcpbridge.ToolInfo, tool string) bool {
	return s.hidden(u, ti, tool) != ""
}

// readOnlyHint is the tool's readOnlyHint annotation.
func readOnlyHint(ti *mcpbridge.ToolInfo) bool {
	return ti != nil && ti.Tool != nil && ti.Tool.Annotations != nil && ti.Tool.Annotations.ReadOnlyHint
}

// chosenLeftOut reports whether a limit of the listing of c, a client
// the bridge lists itself, named the tool: one the scope chose (see
// shownLeftOut), which a call is told the limit of, not hidden.
func chosenLeftOut(u *upstream, c *mcpbridge.Client, tool string) bool {
	if u.fixed {
		return false
	}
	for _, e := range c.LeftOut() {
		if slices.Contains(e.Tools, tool) {
			return true
		}
	}
	return false
}

// known is ti when the server lists it.
func known(ti mcpbridge.ToolInfo, ok bool) *mcpbridge.ToolInfo {
	if !ok {
		return nil
	}
	return &ti
}

// unknownTool is the error mcpbridge gives for a tool its server does not
// list: what a call of a hidden tool is answered, so that nothing tells
// the two apart.
func unknownTool(u *upstream, tool string) error {
	return &mcpbridge.CallError{Server: u.name, Tool: tool, Stage: mcpbridge.StageTool, Err: errors.New("unknown tool")}
}

// maxHiddenNamed bounds the hidden tools a log line names.
const maxHiddenNamed = 20

// hiddenTools counts, by the option that hides them, the tools the scope
// hid from a listing, and names the first maxHiddenNamed of each.
type hiddenTools struct {
	counts map[string]int
	names  map[string][]string
}

// keep is the upstream's mcpbridge.ClientOptions.Keep when the scope
// filters: the tools it hides are recorded for sayHidden.
func (u *upstream) keep(t *mcp.Tool) bool {
	return u.keepInfo(&mcpbridge.ToolInfo{Tool: t}, t.Name)
}

// keepInfo is keep of a tool listed as ti (for a fixed client, whose
// listing the bridge does not make, the tools it already holds).
func (u *upstream) keepInfo(ti *mcpbridge.ToolInfo, name string) bool {
	s := u.srv
	s.scope.Matching(func(i int) {
		u.hiddenMu.Lock()
		if u.matching == nil {
			u.matching = make([]bool, len(s.scope.Patterns()))
		}
		u.matching[i] = true
		u.hiddenMu.Unlock()
	}, name, u.name+"."+name)
	why := s.hidden(u, ti, name)
	if why == "" {
		return true
	}
	u.hiddenMu.Lock()
	defer u.hiddenMu.Unlock()
	h := &u.hidden
	if h.counts == nil {
		h.counts, h.names = map[string]int{}, map[string][]string{}
	}
	h.counts[why]++
	if len(h.names[why]) < maxHiddenNamed {
		h.names[why] = append(h.names[why], boundedName(s.toolName(u, name)))
	}
	return false
}

// sayHidden logs, by the option that hides them, the tools the scope hid
// from the listings since it last said so (a start's).
func (u *upstream) sayHidden() {
	s := u.srv
	u.hiddenMu.Lock()
	h := u.hidden
	u.hidden = hiddenTools{}
	u.hiddenMu.Unlock()
	for _, why := range []string{scope.ByExcludeTools, scope.ByTools, scope.ByReadOnly} {
		if n := h.counts[why]; n > 0 {
			names := strings.Join(h.names[why], ", ")
			if n > len(h.names[why]) {
				names += fmt.Sprintf(", … (%d more)", n-len(h.names[why]))
			}
			s.logger.Info("MCP server: tools not served (the bridge's scope)", "server", u.name, "by", why, "count", n, "tools", names)
		}
	}
}

// shownServer is ToolServer's answer for a tool u lists: none when the
// scope hides it.
func shownServer(u *upstream, hidden bool) (string, bool) {
	if hidden {
		return "", false
	}
	return u.name, true
}

// shownLeftOut is e without the tools the scope hides, in its Tools and
// so in its message: left_out names no hidden tool. A server the bridge
// lists itself (not a fixed client) had the scope choose among its tools
// before the limits counted them (ClientOptions.Keep): every tool a limit
// names there was chosen, and is shown, read-only or not known to be.
func (s *Server) shownLeftOut(u *upstream, e *mcpbridge.LimitError) *mcpbridge.LimitError {
	if !s.scope.Filters() || !u.fixed {
		return e
	}
	cp := *e
	cp.Tools = nil
	for _, name := range e.Tools {
		if !s.hides(u, nil, name) {
			cp.Tools = append(cp.Tools, name)
		}
	}
	return &cp
}

// listed ends a listing of the upstream's tools (its
// mcpbridge.ClientOptions.Listed; for a fixed client, New's look at what
// it holds): when ok, the patterns it matched become the upstream's, and
// once New's starts have ended, the scope's patterns that no upstream's
// last listing matched are said.
func (u *upstream) listed(ok bool) {
	u.hiddenMu.Lock()
	m := u.matching
	u.matching = nil
	if ok {
		if m == nil {
			m = make([]bool, len(u.srv.scope.Patterns()))
		}
		u.matched = m
	}
	u.hiddenMu.Unlock()
	if ok && u.srv.listedAll.Load() {
		u.srv.sayUnmatched()
	}
}

// sayUnmatched logs each pattern of Options.Tools and ExcludeTools that
// matches no tool of the last listing of any upstream (those that have
// listed their tools, named in the line): a scope that chooses or hides
// nothing is a mistake (a misspelt name, an exclusion written for other
// names) that would otherwise pass unseen. Said after New's starts, and
// again after each listing while it still matches nothing.
func (s *Server) sayUnmatched() {
	pats := s.scope.Patterns()
	if len(pats) == 0 {
		return
	}
	unmatched := make([]bool, len(pats))
	for i := range unmatched {
		unmatched[i] = true
	}
	var servers []string
	for _, u := range s.ups {
		u.hiddenMu.Lock()
		m := u.matched
		u.hiddenMu.Unlock()
		if m == nil {
			continue
		}
		servers = append(servers, u.name)
		for i, ok := range m {
			unmatched[i] = unmatched[i] && !ok
		}
	}
	if len(servers) == 0 {
		return
	}
	for i, p := range pats {
		if unmatched[i] {
			s.logger.Warn("the bridge's scope: a pattern matches no tool", "by", p.Field, "pattern", p.Text, "servers", strings.Join(servers, ", "))
		}
	}
}
