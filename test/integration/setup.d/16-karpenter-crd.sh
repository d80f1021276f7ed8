#!/usr/bin/env bash
# Karpenter's NodePool CRD for test/integration/kubernetes/zone-shift-node-pools.test.ts: the zonal shift's NodePool
# patches must pass its schema and CEL rules on the real API server. Taken from the sigs.k8s.io/karpenter module
# (Apache-2.0) at a pinned release through the Go module proxy; only the CRD, nothing built or run.
set -euo pipefail
source "$(dirname "$0")/lib.bash"

module=sigs.k8s.io/karpenter
version=v1.13.0
file=pkg/apis/crds/karpenter.sh_nodepools.yaml
target="$CACHE_DIR/karpenter/karpenter.sh_nodepools.yaml"
stamp="$module $version $file"
if [ -f "$target" ] && [ "$(cat "$target.stamp" 2>/dev/null)" = "$stamp" ]; then
  echo "Karpenter's NodePool CRD $version already in $target"
  exit 0
fi
if ! command -v go >/dev/null; then
  echo "Go is not installed: Karpenter's CRD comes from its Go module (https://go.dev/dl/)" >&2
  exit 1
fi
dir="$(cd "$CACHE_DIR" && go mod download -json "$module@$version" | sed -n 's/^\t"Dir": "\(.*\)",$/\1/p')"
[ -f "$dir/$file" ] || { echo "go mod download $module@$version gave no $file" >&2; exit 1; }
mkdir -p "$(dirname "$target")"
cp "$dir/$file" "$target" && chmod u+w "$target"
echo "$stamp" >"$target.stamp"
echo "Karpenter's NodePool CRD $version in $target"
