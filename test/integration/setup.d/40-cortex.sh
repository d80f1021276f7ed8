#!/usr/bin/env bash
# Cortex for the ring proofs (Apache-2.0; the ring Loki shares with it), built from Go modules into
# $BIN_DIR/cortex: test/integration/cortex/go pins github.com/cortexproject/cortex (go.mod + go.sum).
# Rebuilt only when those change (a stamp beside the binary).
# lane: go (setup.sh runs the Go builds one at a time, beside the other steps)
set -euo pipefail
source "$(dirname "$0")/lib.bash"

MOD_DIR="$REPO_ROOT/test/integration/cortex/go"

if ! command -v go >/dev/null; then
  echo "Go is not installed: the ring proofs build Cortex from Go modules (Go 1.25 or newer; https://go.dev/dl/)" >&2
  exit 1
fi

# What the binary is built from: go.mod without its comments, and go.sum.
stamp="$(grep -v '^//' "$MOD_DIR/go.mod" | cat - "$MOD_DIR/go.sum" | sha256sum | cut -c1-16)"
if have cortex && [ "$(cat "$BIN_DIR/.cortex.stamp" 2>/dev/null)" = "$stamp" ]; then
  echo "cortex up to date: $("$BIN_DIR/cortex" -version 2>/dev/null | grep -m1 version)"
  exit 0
fi

start=$(date +%s)
version="$(cd "$MOD_DIR" && go list -m -f '{{.Version}}' github.com/cortexproject/cortex)"
echo "building cortex ${version} from $MOD_DIR (with empty Go caches this downloads the modules and takes about 5 minutes on 2 cores)"
out="$(mktemp -d "$CACHE_DIR/cortex-build.XXXXXX")"
trap 'rm -rf "$out"' EXIT
# As Cortex's own Makefile builds it: the tag slicelabels is required (Cortex hands its label slices to
# Prometheus's labels package as they are; the default string labels crash an ingester on its first push).
# Go modules carry no release version: stamp it as the Makefile does, so `cortex -version` tells it.
ldflags="-s -w -X main.Version=${version#v}"
(cd "$MOD_DIR" && nice go build -mod=readonly -trimpath -tags netgo,slicelabels -ldflags="$ldflags" -o "$out/" tool)
mv -f "$out/cortex" "$BIN_DIR/cortex"
echo "$stamp" >"$BIN_DIR/.cortex.stamp"
echo "built $("$BIN_DIR/cortex" -version 2>/dev/null | grep -m1 version) in $(( $(date +%s) - start )) s"
