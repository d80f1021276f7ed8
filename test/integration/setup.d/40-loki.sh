#!/usr/bin/env bash
# Loki for the real-Loki proof, built from Go modules into $BIN_DIR/loki: test/integration/loki/go pins
# github.com/grafana/loki/v3 (go.mod + go.sum). Rebuilt only when those change (a stamp beside the binary).
set -euo pipefail
source "$(dirname "$0")/lib.bash"

MOD_DIR="$REPO_ROOT/test/integration/loki/go"

if ! command -v go >/dev/null; then
  echo "Go is not installed: the Loki proof builds Loki from Go modules (Go 1.26.5 or newer; https://go.dev/dl/)" >&2
  exit 1
fi

# What the binary is built from: go.mod without its comments, and go.sum.
stamp="$(grep -v '^//' "$MOD_DIR/go.mod" | cat - "$MOD_DIR/go.sum" | sha256sum | cut -c1-16)"
if have loki && [ "$(cat "$BIN_DIR/.loki.stamp" 2>/dev/null)" = "$stamp" ]; then
  echo "loki up to date: $("$BIN_DIR/loki" -version | head -1)"
  exit 0
fi

start=$(date +%s)
version="$(cd "$MOD_DIR" && go list -m -f '{{.Version}}' github.com/grafana/loki/v3)"
echo "building loki ${version} from $MOD_DIR (with empty Go caches this downloads the modules and takes about 10 minutes on 2 cores)"
out="$(mktemp -d "$CACHE_DIR/loki-build.XXXXXX")"
trap 'rm -rf "$out"' EXIT
# Go modules carry no release version: stamp it the way Loki's own build does, so `loki -version` tells it.
ldflags="-s -w -X github.com/grafana/loki/v3/pkg/util/build.Version=${version#v}"
(cd "$MOD_DIR" && nice go build -mod=readonly -trimpath -ldflags="$ldflags" -o "$out/" tool)
mv -f "$out/loki" "$BIN_DIR/loki"
echo "$stamp" >"$BIN_DIR/.loki.stamp"
echo "built $("$BIN_DIR/loki" -version | head -1) in $(( $(date +%s) - start )) s"
