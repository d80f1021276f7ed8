#!/usr/bin/env bash
# The Python package, built and installed for real, for test/integration/python: the jsii assembly
# (`npx projen compile`), the wheel jsii-pacmak builds into dist/python/, and a venv in .cache/python-venv
# with the pinned cdk8s, constructs and cdk8s-plus-28 from PyPI (examples/python/web-3-zones/requirements.txt),
# the jsii runtime at jsii-pacmak's version, and that wheel. Rebuilt only when what it is built from
# changes (a stamp in the venv).
set -euo pipefail
source "$(dirname "$0")/lib.bash"
cd "$REPO_ROOT"

VENV="$CACHE_DIR/python-venv"
REQUIREMENTS="examples/python/web-3-zones/requirements.txt"

# The wheel requires Python 3.10 or newer; Debian's python3 needs python3-venv for `python3 -m venv`.
command -v python3 >/dev/null || apt_install python3
python3 -c 'import ensurepip, venv' 2>/dev/null || apt_install python3-venv
if ! python3 -c 'import sys; sys.exit(sys.version_info < (3, 10))'; then
  echo "python3 is $(python3 --version 2>&1): the jsii wheel needs Python 3.10 or newer" >&2
  exit 1
fi

pacmak_version="$(node -p "require('jsii-pacmak/package.json').version")"
# What the venv is built from: the library's sources and package metadata, the pins, Python and pacmak.
stamp="$( { find src -type f -name '*.ts' | LC_ALL=C sort | xargs cat; cat package.json .npmignore "$REQUIREMENTS";
  python3 --version; echo "$pacmak_version"; } | sha256sum | cut -c1-16)"
if [ "$(cat "$VENV/.stamp" 2>/dev/null)" = "$stamp" ] && "$VENV/bin/python" -c 'import cdk8s_zones' 2>/dev/null; then
  echo "python venv up to date: $("$VENV/bin/python" --version), $("$VENV/bin/pip" list 2>/dev/null | grep -E '^(cdk8s|cdk8s-zones|cdk8s-plus-28|jsii) ' | tr -s ' ' | paste -sd, -)"
  exit 0
fi

start=$(date +%s)
npx projen compile >/dev/null   # the assembly (.jsii) pacmak packages, fresh from src/
rm -rf dist/python
npx jsii-pacmak --targets python
wheel="$(ls dist/python/*.whl)"
echo "built $wheel ($(du -h "$wheel" | cut -f1)) in $(( $(date +%s) - start )) s"

start=$(date +%s)
rm -rf "$VENV"
python3 -m venv "$VENV"
"$VENV/bin/pip" install --quiet --disable-pip-version-check -r "$REQUIREMENTS" "jsii==$pacmak_version" "$wheel"
"$VENV/bin/python" -c 'import cdk8s_zones'
echo "$stamp" >"$VENV/.stamp"
echo "venv $VENV ($("$VENV/bin/python" --version)) in $(( $(date +%s) - start )) s: $("$VENV/bin/pip" list 2>/dev/null | grep -E '^(cdk8s|cdk8s-zones|cdk8s-plus-28|constructs|jsii) ' | tr -s ' ' | paste -sd, -)"
