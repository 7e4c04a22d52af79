#!/usr/bin/env bash
# scripts/buf.sh runs buf, pinned in tools/go.mod, with the local plugins
# buf.gen.yaml names; see scripts/tool.sh.
#
#   scripts/buf.sh lint
#   scripts/buf.sh format --diff --exit-code
#   scripts/buf.sh generate
exec "$(dirname "${BASH_SOURCE[0]}")/tool.sh" buf "$@"
