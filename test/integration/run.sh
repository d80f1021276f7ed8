#!/usr/bin/env bash
# `npm run test:integration`: the integration tier. Its jest projects run in two lanes side by side, each one suite
# at a time (jest.config.json's maxWorkers: 1): the standalone project, then kubernetes-long (the longest Kubernetes
# suites), beside the kubernetes project. The suites of a kubernetes project share its one control plane, so they
# take turns; each project has its own control plane and pod IPs (kwok's: 127.244.x.y and 127.250.x.y, see
# kubernetes/global-setup.ts); the standalone suites start their own programs on free ports (127.0.0.1 and
# 127.0.1x.1) in temporary folders. So no lane needs anything of the other. Most of the tier waits on timers
# (heartbeats, lookbacks, readiness), so two lanes at once roughly halve it on 2 cores.
# With arguments (`npm run test:integration -- <path> ...`), one jest runs them as given.
# Each project's results: .cache/integration-results/<project>.json (jest --json) and its output, <project>.log; every
# suite's time, slowest first, and the end of the output of a project that left no results (it failed before its
# suites ran, or crashed): .cache/integration-results/times.txt, printed at the end (CI shows the end of its log).
set -uo pipefail
cd "$(dirname "$0")/../.."
config=test/integration/jest.config.json
[ $# -gt 0 ] && exec npx jest --config "$config" "$@"

results=.cache/integration-results
mkdir -p "$results" && rm -f "$results"/*
# project NAME: runs the jest project NAME, each line of its output prefixed with its name (the lanes interleave).
project() {
  npx jest --config "$config" --selectProjects "$1" --json --outputFile "$results/$1.json" \
    > >(tee "$results/$1.log" | sed -u "s/^/[$1] /") 2>&1
}
# A lane goes on after a failed project (its results are kept); it fails if one did.
(status=0; project standalone || status=1; project kubernetes-long || status=1; exit "$status") &
first_lane=$!
project kubernetes &
second_lane=$!
status=0
for pid in "$first_lane" "$second_lane"; do wait "$pid" || status=1; done
node test/integration/suite-times.js "$results"/{standalone,kubernetes-long,kubernetes}.json | tee "$results/times.txt"
exit "$status"
