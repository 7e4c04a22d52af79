#!/usr/bin/env bash
# scripts/tool.sh runs one of the tools pinned in tools/go.mod (a module of
# its own, so users of structkit do not inherit their dependencies): buf and
# the local plugins buf.gen.yaml names (protoc-gen-go, protoc-gen-go-grpc),
# and staticcheck. It needs only Go: the tools are built from source
# (through the Go module proxy) on first use, into a directory of the cache
# keyed by the tools module's go.mod and go.sum and the Go version, so later
# calls reuse them.
#
#   scripts/tool.sh buf lint
#   scripts/tool.sh staticcheck ./...
#
# The cache is $STRUCTKIT_TOOLS_CACHE, by default structkit-tools in the
# user cache directory ($XDG_CACHE_HOME, else $HOME/.cache). A build goes
# into KEY.tmp.PID beside its place, removed when the build fails or is
# stopped, and is renamed into place whole; one killed outright (SIGKILL)
# is removed by the next build.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

cache=${STRUCTKIT_TOOLS_CACHE:-${XDG_CACHE_HOME:-${HOME:?scripts/tool.sh: set STRUCTKIT_TOOLS_CACHE, XDG_CACHE_HOME or HOME}/.cache}/structkit-tools}
key=$({ cat "$root/tools/go.mod" "$root/tools/go.sum"; go env GOVERSION GOOS GOARCH; } | sha256sum | cut -c1-16)
bin=$cache/$key

if [ ! -f "$bin/.complete" ]; then
	echo "scripts/tool.sh: building the tools of tools/go.mod into $bin" >&2
	start=$SECONDS
	mkdir -p "$cache"
	for old in "$cache"/*.tmp.*; do
		if [ -d "$old" ] && ! kill -0 "${old##*.tmp.}" 2>/dev/null; then
			rm -rf "$old" # the build of a process that is gone
		fi
	done
	tmp=$bin.tmp.$$
	rm -rf "$tmp"
	mkdir "$tmp"
	trap 'rm -rf "$tmp"' EXIT
	# The build runs in the background so that a signal stops it at once
	# (bash runs a trap only once the foreground command is done).
	# GOWORK=off: the tools module is built on its own, whatever go.work says.
	GOWORK=off GOBIN="$tmp" go -C "$root/tools" install -trimpath tool &
	build=$!
	for sig in HUP INT TERM; do
		trap 'kill "$build" 2>/dev/null; exit 1' "$sig"
	done
	wait "$build"
	trap - HUP INT TERM
	touch "$tmp/.complete"
	# Renamed into place whole, so an interrupted build is never taken as
	# done; a build that finished first is kept.
	if ! mv -T "$tmp" "$bin" 2>/dev/null && [ ! -f "$bin/.complete" ]; then
		rm -rf "$bin"
		mv -T "$tmp" "$bin"
	fi
	echo "scripts/tool.sh: built in $((SECONDS - start))s" >&2
fi

if [ $# -eq 0 ]; then
	echo "usage: scripts/tool.sh TOOL [ARG...]" >&2
	exit 2
fi
export PATH="$bin:$PATH"
cd "$root/${STRUCTKIT_TOOL_DIR:-.}" # where the tool runs: a directory of the repository (its root unless told)
exec "$@"
