#!/usr/bin/env bash
# scripts/buf.sh runs buf, pinned in tools/go.mod, with the local plugins
# buf.gen.yaml names; see scripts/tool.sh. Before buf it
#   - writes .protodeps/ (git-ignored): the .proto files proto/ imports from
#     protovalidate and googleapis, printed by examples/protodeps from the
#     descriptors of their Go packages, pinned in examples/go.mod (the Buf
#     Schema Registry is not reached);
#   - builds protoc-gen-structkit from the gateway module
#     (gateway/cmd/protoc-gen-structkit) and puts it on PATH, so generation
#     uses the plugin of the checkout.
#
#   scripts/buf.sh lint
#   scripts/buf.sh format --diff --exit-code
#   scripts/buf.sh generate
#   scripts/buf.sh generate --template examples/buf.gen.yaml
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
go -C examples run ./protodeps "$root/.protodeps"

plugins=$(mktemp -d)
trap 'rm -rf "$plugins"' EXIT
go -C gateway build -trimpath -o "$plugins/protoc-gen-structkit" ./cmd/protoc-gen-structkit
PATH="$plugins:$PATH" "$root/scripts/tool.sh" buf "$@"
