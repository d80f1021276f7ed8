#!/usr/bin/env bash
# prometheus-operator's PrometheusRule CRD, which ../shared/crds lacks beside its other monitoring.coreos.com CRDs:
# the PrometheusRules that TopologyShardedPrometheus.monitor() writes are validated against it (crd-schema.ts) and
# applied with it to the real API server (the examples tier). Taken from the prometheus-operator module (Apache-2.0)
# at the release ../shared/crds comes from (0.93.0), through the Go module proxy; only the CRD, nothing built or run.
set -euo pipefail
source "$(dirname "$0")/lib.bash"

module=github.com/prometheus-operator/prometheus-operator
version=v0.93.0
file=example/prometheus-operator-crd/monitoring.coreos.com_prometheusrules.yaml
target="$CACHE_DIR/crds/monitoring.coreos.com_prometheusrules.yaml"
stamp="$module $version $file"
if [ -f "$target" ] && [ "$(cat "$target.stamp" 2>/dev/null)" = "$stamp" ]; then
  echo "the PrometheusRule CRD $version already in $target"
  exit 0
fi
if ! command -v go >/dev/null; then
  echo "Go is not installed: the PrometheusRule CRD comes from prometheus-operator's Go module (https://go.dev/dl/)" >&2
  exit 1
fi
dir="$(cd "$CACHE_DIR" && go mod download -json "$module@$version" | sed -n 's/^\t"Dir": "\(.*\)",$/\1/p')"
[ -f "$dir/$file" ] || { echo "go mod download $module@$version gave no $file" >&2; exit 1; }
mkdir -p "$(dirname "$target")"
cp "$dir/$file" "$target" && chmod u+w "$target"
echo "$stamp" >"$target.stamp"
echo "the PrometheusRule CRD $version in $target"
