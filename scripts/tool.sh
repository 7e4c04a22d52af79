#!/usr/bin/env bash
# scripts/tool.sh runs one of the tools pinned in tools/go.mod (a module of
# its own, so users of structkit do not inherit their dependencies): buf and
# the local plugins buf.gen.yaml names (protoc-gen-go, protoc-gen-go-grpc),
# and staticcheck. It needs only Go: the tools are built from source
# (through the Go module proxy) into a cache directory keyed by the tools
# module's go.mod and go.sum and the Go version, so later calls reuse them.
#
#   scripts/tool.sh buf lint
#   scripts/tool.sh staticcheck ./...
#
# STRUCTKIT_TOOLS_DIR overrides the cache directory.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

if [ -z "${STRUCTKIT_TOOLS_DIR:-}" ]; then
	key=$({ cat "$root/tools/go.mod" "$root/tools/go.sum"; go env GOVERSION GOOS GOARCH; } | sha256sum | cut -c1-16)
	STRUCTKIT_TOOLS_DIR="${XDG_CACHE_HOME:-${HOME:-/tmp}/.cache}/structkit-tools/$key"
fi
bin=$STRUCTKIT_TOOLS_DIR

if [ ! -f "$bin/.complete" ]; then
	echo "scripts/tool.sh: building the tools of tools/go.mod into $bin" >&2
	start=$SECONDS
	mkdir -p "$(dirname "$bin")"
	tmp=$(mktemp -d "$bin.tmp.XXXXXX")
	trap 'rm -rf "$tmp"' EXIT
	# GOWORK=off: the tools module is built on its own, whatever go.work says.
	GOWORK=off GOBIN="$tmp" go -C "$root/tools" install -trimpath tool
	touch "$tmp/.complete"
	# Move into place whole, so an interrupted build is never taken as done.
	rm -rf "$bin"
	mv "$tmp" "$bin"
	trap - EXIT
	echo "scripts/tool.sh: built in $((SECONDS - start))s" >&2
fi

if [ $# -eq 0 ]; then
	echo "usage: scripts/tool.sh TOOL [ARG...]" >&2
	exit 2
fi
export PATH="$bin:$PATH"
cd "$root"
exec "$@"
