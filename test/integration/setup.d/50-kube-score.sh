#!/usr/bin/env bash
# kube-score (a Go module) for test/integration/kube-score: the Kubernetes object analysis the examples
# must pass with no finding outside the reviewed allow-list. Built with `go install` at a pinned version.
# lane: go (setup.sh runs the Go builds one at a time, beside the other steps)
set -euo pipefail
source "$(dirname "$0")/lib.bash"

KUBE_SCORE_VERSION=v1.20.0

if have kube-score && [ "$(cat "$BIN_DIR/.kube-score.stamp" 2>/dev/null)" = "$KUBE_SCORE_VERSION" ]; then
  echo "kube-score $KUBE_SCORE_VERSION already in $BIN_DIR"
  exit 0
fi
if ! command -v go >/dev/null; then
  echo "Go is not installed: kube-score is built from its Go module (Go 1.25 or newer; https://go.dev/dl/)" >&2
  exit 1
fi
start=$(date +%s)
GOBIN="$BIN_DIR" go install "github.com/zegl/kube-score/cmd/kube-score@$KUBE_SCORE_VERSION"
echo "$KUBE_SCORE_VERSION" >"$BIN_DIR/.kube-score.stamp"
echo "built kube-score $KUBE_SCORE_VERSION in $(( $(date +%s) - start )) s"
