#!/usr/bin/env bash
# scripts/buf.sh runs buf with the tool versions pinned in tools/go.mod:
# buf itself, protoc-gen-go and protoc-gen-go-grpc (the local plugins that
# buf.gen.yaml names). It needs only Go: the three are built from source
# (through the Go module proxy) into a cache directory keyed by the tools
# module's go.mod and go.sum and the Go version, so later calls reuse them.
#
#   scripts/buf.sh lint
#   scripts/buf.sh format --diff --exit-code
#   scripts/buf.sh generate
#
# STRUCTKIT_TOOLS_DIR overrides the cache directory.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

if [ -z "${STRUCTKIT_TOOLS_DIR:-}" ]; then
	key=$({ cat "$root/tools/go.mod" "$root/tools/go.sum"; go env GOVERSION GOOS GOARCH; } | sha256sum | cut -c1-16)
	STRUCTKIT_TOOLS_DIR="${XDG_CACHE_HOME:-${HOME:-/tmp}/.cache}/structkit-tools/$key"
fi
bin=$STRUCTKIT_TOOLS_DIR

if [ ! -x "$bin/buf" ] || [ ! -x "$bin/protoc-gen-go" ] || [ ! -x "$bin/protoc-gen-go-grpc" ]; then
	echo "scripts/buf.sh: building buf, protoc-gen-go and protoc-gen-go-grpc from tools/ into $bin" >&2
	start=$SECONDS
	mkdir -p "$(dirname "$bin")"
	tmp=$(mktemp -d "$bin.tmp.XXXXXX")
	trap 'rm -rf "$tmp"' EXIT
	# GOWORK=off: the tools module is built on its own, whatever go.work says.
	GOWORK=off GOBIN="$tmp" go -C "$root/tools" install -trimpath tool
	# Move into place whole, so an interrupted build is never taken as done.
	rm -rf "$bin"
	mv "$tmp" "$bin"
	trap - EXIT
	echo "scripts/buf.sh: built in $((SECONDS - start))s" >&2
fi

export PATH="$bin:$PATH"
cd "$root"
exec buf "$@"
