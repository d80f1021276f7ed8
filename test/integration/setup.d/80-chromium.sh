#!/usr/bin/env bash
# Chromium (the Debian package) for test/integration/check-html.test.ts: the zone check's HTML page is
# rendered by a real headless browser, its DOM read back and a screenshot kept under .cache/.
# Idempotent: apt_install does nothing when the package is already installed.
set -euo pipefail
source "$(dirname "$0")/lib.bash"

if ! apt_install chromium; then
  echo "could not install the Debian package chromium (apt-get install chromium): check-html.test.ts needs it" >&2
  exit 1
fi
if ! command -v chromium >/dev/null; then
  echo "the chromium package is installed but no chromium command is on PATH" >&2
  exit 1
fi
echo "$(chromium --version 2>/dev/null || echo 'chromium (version unknown)') at $(command -v chromium)"
