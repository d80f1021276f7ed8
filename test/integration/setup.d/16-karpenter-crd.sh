#!/usr/bin/env bash
# Karpenter's NodePool CRD for test/integration/kubernetes/zone-shift-node-pools.test.ts: the zonal shift's NodePool
# patches must pass its schema and CEL rules on the real API server. Taken from the sigs.k8s.io/karpenter module
# (Apache-2.0) at a pinned release through the Go module proxy; only the CRD, nothing built or run.
set -euo pipefail
source "$(dirname "$0")/lib.bash"

module_file "Karpenter's NodePool CRD" sigs.k8s.io/karpenter v1.13.0 pkg/apis/crds/karpenter.sh_nodepools.yaml \
  "$CACHE_DIR/karpenter/karpenter.sh_nodepools.yaml"
