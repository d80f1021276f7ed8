#!/usr/bin/env bash
# The zone check (the cdk8s-zones CLI as published: its bin, lib/cli/cdk8s-zones.js) over every example's synthesized output, dist/<example>/
# from `npm run synth`, with the zones the examples use: fails when one does not survive losing a zone. The Longhorn
# examples hold no workload (a StorageClass, Volumes, Settings), hence --allow-empty.
set -euo pipefail
cd "$(dirname "$0")/.."
for main in examples/*/main.ts; do
  name=$(basename "$(dirname "$main")")
  echo "== $name"
  node lib/cli/cdk8s-zones.js check --zones zone-a,zone-b,zone-c --nodes-per-zone 3 --allow-empty "dist/$name"
done
