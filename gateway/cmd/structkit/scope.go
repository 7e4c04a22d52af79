package main

import (
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/structkit/structkit/gateway/grpcmcp"
	"github.com/structkit/structkit/gateway/internal/scope"
)

// commaList is a repeatable flag of comma-separated items.
type commaList []string

func (l *commaList) String() string { return strings.Join(*l, ",") }

func (l *commaList) Set(s string) error {
	for _, item := range strings.Split(s, ",") {
		item = strings.TrimSpace(item)
		if item == "" {
			return fmt.Errorf("an empty item in %q", s)
		}
		*l = append(*l, item)
	}
	return nil
}

// scopeFlags are the flags that scope what "structkit mcp" and "structkit
// bridge" expose and forward.
type scopeFlags struct {
	tools, exclude commaList
	readOnly       bool
	forward        commaList
	forwardFlag    string // --forward-header or --forward-metadata
}

// register adds --tools, --exclude-tools, --read-only and the forwarding
// flag; names says what the patterns match, readOnly which tools are
// read-only, forwardHelp what is forwarded.
func (f *scopeFlags) register(fs *flag.FlagSet, names, readOnly, forwardFlag, forwardHelp string) {
	fs.Var(&f.tools, "tools", "expose only the tools matching one of these `PATTERNS` (path.Match: * ? [a-z], * and ? matching \"/\" too; case-sensitive; comma-separated, repeatable) over "+names)
	fs.Var(&f.exclude, "exclude-tools", "hide the tools matching one of these `PATTERNS` (as --tools; wins over it): not listed, and a call is answered as for a tool that does not exist")
	fs.BoolVar(&f.readOnly, "read-only", false, "expose only the read-only tools: "+readOnly)
	fs.Var(&f.forward, forwardFlag, forwardHelp)
	f.forwardFlag = forwardFlag
}

// check refuses malformed patterns and header names (exit 2), naming the
// flag.
func (f *scopeFlags) check(cmd string) error {
	if _, err := scope.Compile(scope.Filter{Include: f.tools, Exclude: f.exclude}, "--tools", "--exclude-tools"); err != nil {
		return usagef("%s: %v", cmd, err)
	}
	if _, err := scope.CompileForward("--"+f.forwardFlag, f.forward); err != nil {
		return usagef("%s: %v", cmd, err)
	}
	return nil
}

// scopeFlag names the flag of each reason a tool is hidden.
var scopeFlag = map[string]string{scope.ByTools: "--tools", scope.ByExcludeTools: "--exclude-tools", scope.ByReadOnly: "--read-only"}

// splitScoped separates the methods the scope hid from those a limit left
// out.
func splitScoped(omitted []grpcmcp.Omission) (scoped, limited []grpcmcp.Omission) {
	for _, o := range omitted {
		if _, ok := scopeFlag[o.Limit]; ok {
			scoped = append(scoped, o)
		} else {
			limited = append(limited, o)
		}
	}
	return scoped, limited
}

// sayScoped names on w the methods --tools, --exclude-tools and
// --read-only hid, at most maxOmittedLines of them.
func sayScoped(w io.Writer, scoped []grpcmcp.Omission) {
	if len(scoped) == 0 {
		return
	}
	fmt.Fprintf(w, "structkit mcp: %s not exposed (--tools, --exclude-tools, --read-only):\n", count(len(scoped), "method"))
	for i, o := range scoped {
		if i == maxOmittedLines {
			fmt.Fprintf(w, "structkit mcp:   … and %d more\n", len(scoped)-i)
			break
		}
		fmt.Fprintf(w, "structkit mcp:   %s (%s): %s\n", o.Method, scopeFlag[o.Limit], o.Msg)
	}
}

// checkForwardAuth refuses to forward "authorization" when the bridge
// authenticates clients with it (--auth-token-file): that would hand the
// bridge's own token to the MCP servers, unless --forward-auth-token says
// so.
func (f *bridgeFlags) checkForwardAuth(sec security) error {
	if sec.auth == nil || f.forwardAuthToken {
		return nil
	}
	for _, n := range f.scope.forward {
		if strings.EqualFold(n, "authorization") {
			return usagef("bridge: --forward-metadata authorization with --auth-token-file would hand the bridge's own token to the MCP servers: add --forward-auth-token to forward it anyway, or forward another name")
		}
	}
	return nil
}
