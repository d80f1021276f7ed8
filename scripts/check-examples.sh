#!/usr/bin/env bash
# The zone check and the traffic report (the cdk8s-zones CLI as published: its bin, lib/cli/cdk8s-zones.js) over every example's synthesized output, dist/<example>/
# from `npm run synth`, with the zones the examples use: fails when one does not survive losing a zone. The Longhorn
# examples hold no workload (a StorageClass, Volumes, Settings), hence --allow-empty.
set -euo pipefail
cd "$(dirname "$0")/.."
for main in examples/*/main.ts; do
  name=$(basename "$(dirname "$main")")
  echo "== $name"
  node lib/cli/cdk8s-zones.js check --zones zone-a,zone-b,zone-c --nodes-per-zone 3 --allow-empty "dist/$name"
done

# The traffic report over the same output: exit 1 (a warning, e.g. a one-replica compactor whose clients cross zones)
# is a report, not a failure here; bad input or a bug (2, 3) fails.
for main in examples/*/main.ts; do
  name=$(basename "$(dirname "$main")")
  echo "== traffic $name"
  code=0
  node lib/cli/cdk8s-zones.js traffic --zones zone-a,zone-b,zone-c --nodes-per-zone 3 --allow-empty "dist/$name" || code=$?
  if [ "$code" -gt 1 ]; then exit "$code"; fi
done
