#!/usr/bin/env bash
# `npm run test:integration:setup`: builds or installs every real program the integration tier runs into
# .cache/ (git-ignored). Each step is a script in setup.d/, run in name order, idempotent (it does nothing
# when its program is already there) and timed.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
export REPO_ROOT="$(cd "$here/../.." && pwd)"
export CACHE_DIR="$REPO_ROOT/.cache"
export BIN_DIR="$CACHE_DIR/bin"
export APT_UPDATED_MARKER="$CACHE_DIR/.apt-updated-$$"   # apt-get update once per setup run
mkdir -p "$BIN_DIR"

total_start=$(date +%s)
for step in "$here"/setup.d/*.sh; do
  [ -e "$step" ] || continue
  name="$(basename "$step" .sh)"
  start=$(date +%s)
  echo "==> setup $name"
  bash "$step"
  echo "<== setup $name done in $(( $(date +%s) - start )) s"
done
rm -f "$APT_UPDATED_MARKER"
echo "integration setup done in $(( $(date +%s) - total_start )) s; programs in $BIN_DIR: $(ls "$BIN_DIR" | tr '\n' ' ')"
