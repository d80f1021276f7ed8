#!/usr/bin/env bash
# `npm run test:integration:setup`: builds or installs every real program the integration tier runs into
# .cache/ (git-ignored). Each step is a script in setup.d/, idempotent (it does nothing when its program is
# already there) and timed. The steps run in two lanes side by side, each in name order: the Go builds (a
# `# lane: go` line: CPU-bound, one at a time, as `go build` already uses every core) and the rest (packages,
# downloads, the controller image, the Python wheel: mostly waiting on the network and the disk). apt is taken
# one step at a time (apt_install in lib.bash holds a lock).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
export REPO_ROOT="$(cd "$here/../.." && pwd)"
export CACHE_DIR="$REPO_ROOT/.cache"
export BIN_DIR="$CACHE_DIR/bin"
export APT_UPDATED_MARKER="$CACHE_DIR/.apt-updated-$$"   # apt-get update once per setup run
mkdir -p "$BIN_DIR"

# lane NAME STEP...: runs the steps one after the other, each line of their output prefixed with the step's name.
lane() {
  local lane=$1 step name start
  shift
  for step in "$@"; do
    name="$(basename "$step" .sh)"
    start=$(date +%s)
    echo "==> setup $name ($lane lane)"
    bash "$step" 2>&1 | sed -u "s/^/[$name] /" || { echo "<== setup $name FAILED" >&2; return 1; }
    echo "<== setup $name done in $(( $(date +%s) - start )) s"
  done
}

# With --go-only, the Go lane alone: .ci/run starts it beside `npm test` (the other lane's Python step compiles
# the library with jsii, which would race npm test's own compile).
go_only=false
[ "${1:-}" != "--go-only" ] || go_only=true

go_steps=() other_steps=()
for step in "$here"/setup.d/*.sh; do
  [ -e "$step" ] || continue
  if grep -q '^# lane: go' "$step"; then go_steps+=("$step"); else other_steps+=("$step"); fi
done

total_start=$(date +%s)
lane go "${go_steps[@]}" & go_lane=$!
status=0
if ! $go_only; then
  lane other "${other_steps[@]}" & other_lane=$!
  wait "$other_lane" || status=1
fi
wait "$go_lane" || status=1
rm -f "$APT_UPDATED_MARKER"
[ "$status" -eq 0 ] || { echo "integration setup failed after $(( $(date +%s) - total_start )) s" >&2; exit 1; }
echo "integration setup done in $(( $(date +%s) - total_start )) s; programs in $BIN_DIR: $(ls "$BIN_DIR" | tr '\n' ' ')"
