#!/usr/bin/env bash
# `npm run test:integration`: the integration tier. Its two jest projects run side by side, each one suite at a time
# (jest.config.json's maxWorkers: 1): the kubernetes suites share one control plane, so they take turns; the
# standalone suites start their own programs on free ports (127.0.0.1 and 127.0.1x.1; kwok's pod IPs are 127.244.x.y)
# in temporary folders, so they need nothing of the other project. Most of the tier waits on timers (heartbeats,
# lookbacks, readiness), so two at once roughly halves it on 2 cores.
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
pids=()
for project in standalone kubernetes; do
  # Each line prefixed with its project: the two outputs interleave.
  npx jest --config "$config" --selectProjects "$project" --json --outputFile "$results/$project.json" \
    > >(tee "$results/$project.log" | sed -u "s/^/[$project] /") 2>&1 &
  pids+=($!)
done
status=0
for pid in "${pids[@]}"; do wait "$pid" || status=1; done
node test/integration/suite-times.js "$results"/standalone.json "$results"/kubernetes.json | tee "$results/times.txt"
exit "$status"
