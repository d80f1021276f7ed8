#!/usr/bin/env bash
# prometheus-operator's PrometheusRule CRD, which ../shared/crds lacks beside its other monitoring.coreos.com CRDs:
# the PrometheusRules that TopologyShardedPrometheus.monitor() writes are validated against it (crd-schema.ts) and
# applied with it to the real API server (the examples tier). Taken from the prometheus-operator module (Apache-2.0)
# at the release ../shared/crds comes from (0.93.0), through the Go module proxy; only the CRD, nothing built or run.
set -euo pipefail
source "$(dirname "$0")/lib.bash"

module_file "the PrometheusRule CRD" github.com/prometheus-operator/prometheus-operator v0.93.0 \
  example/prometheus-operator-crd/monitoring.coreos.com_prometheusrules.yaml \
  "$CACHE_DIR/crds/monitoring.coreos.com_prometheusrules.yaml"
