#!/usr/bin/env bash
# The Kubernetes tier's programs, built from Go modules into $BIN_DIR:
#   kube-apiserver, kube-controller-manager, kube-scheduler and etcd from test/integration/kubernetes/go
#   (go.mod + go.sum pin the Kubernetes release and, through it, etcd), and kwok at KWOK_VERSION.
# openssl (for the harness's certificates) comes from Debian. Each part is rebuilt only when what pins it
# changes (a stamp beside the binaries records it).
# lane: go (setup.sh runs the Go builds one at a time, beside the other steps)
set -euo pipefail
source "$(dirname "$0")/lib.bash"

KWOK_VERSION=v0.7.0
MOD_DIR="$REPO_ROOT/test/integration/kubernetes/go"

# elapsed SINCE: "12 s" since the epoch second SINCE.
elapsed() { echo "$(( $(date +%s) - $1 )) s"; }

command -v openssl >/dev/null || apt_install openssl

if ! command -v go >/dev/null; then
  echo "Go is not installed: the Kubernetes tier builds its control plane from Go modules (Go 1.25 or newer; https://go.dev/dl/)" >&2
  exit 1
fi

# stamp_ok NAME VALUE: the binaries recorded under NAME were built from VALUE.
stamp_ok() { [ "$(cat "$BIN_DIR/.$1.stamp" 2>/dev/null)" = "$2" ]; }

control_plane=(kube-apiserver kube-controller-manager kube-scheduler etcd)
# What the binaries are built from: go.mod without its comments, and go.sum.
k8s_stamp="$(grep -v '^//' "$MOD_DIR/go.mod" | cat - "$MOD_DIR/go.sum" | sha256sum | cut -c1-16)"
missing=0
for bin in "${control_plane[@]}"; do have "$bin" || missing=1; done
if [ "$missing" -eq 0 ] && stamp_ok kubernetes "$k8s_stamp"; then
  echo "control plane up to date: $("$BIN_DIR/kube-apiserver" --version), etcd $("$BIN_DIR/etcd" --version | sed -n 's/^etcd Version: //p')"
else
  start=$(date +%s)
  k8s_version="$(cd "$MOD_DIR" && go list -m -f '{{.Version}}' k8s.io/kubernetes)"
  echo "building the control plane ${k8s_version} and etcd from $MOD_DIR (with empty Go caches this downloads the modules and takes about 10 minutes on 2 cores)"
  # Go modules carry no release version; stamp it the way Kubernetes' own build does, so /version and
  # clients that look at it (Prometheus' Kubernetes discovery, kwok) see the real release.
  major="${k8s_version#v}"; minor="${major#*.}"; major="${major%%.*}"; minor="${minor%%.*}"
  ldflags="-s -w"
  for pkg in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
    ldflags+=" -X $pkg.gitVersion=$k8s_version -X $pkg.gitMajor=$major -X $pkg.gitMinor=$minor -X $pkg.gitTreeState=clean"
  done
  out="$(mktemp -d "$CACHE_DIR/k8s-build.XXXXXX")"
  trap 'rm -rf "$out"' EXIT
  (cd "$MOD_DIR" && go build -mod=readonly -trimpath -ldflags="$ldflags" -o "$out/" tool)
  mv "$out/server" "$out/etcd"   # go.etcd.io/etcd/server/v3 builds a binary named after its package
  for bin in "${control_plane[@]}"; do mv -f "$out/$bin" "$BIN_DIR/$bin"; done
  echo "$k8s_stamp" >"$BIN_DIR/.kubernetes.stamp"
  echo "built $("$BIN_DIR/kube-apiserver" --version) and etcd in $(elapsed "$start")"
fi

if have kwok && stamp_ok kwok "$KWOK_VERSION"; then
  echo "kwok up to date: $KWOK_VERSION"
else
  start=$(date +%s)
  echo "building kwok $KWOK_VERSION"
  GOBIN="$BIN_DIR" go install -trimpath -ldflags="-s -w" "sigs.k8s.io/kwok/cmd/kwok@$KWOK_VERSION"
  echo "$KWOK_VERSION" >"$BIN_DIR/.kwok.stamp"
  echo "built kwok $KWOK_VERSION in $(elapsed "$start")"
fi
