# Helpers for setup steps: `source "$(dirname "$0")/lib.bash"` (the runner only runs *.sh files).
# shellcheck shell=bash

# apt_install PKG...: installs Debian packages that are missing (runs apt-get update once per setup run).
apt_install() {
  local missing=()
  for pkg in "$@"; do dpkg -s "$pkg" >/dev/null 2>&1 || missing+=("$pkg"); done
  [ ${#missing[@]} -eq 0 ] && return 0
  local sudo=""; [ "$(id -u)" -eq 0 ] || sudo="sudo"
  if [ ! -e "$APT_UPDATED_MARKER" ]; then $sudo apt-get update -qq; touch "$APT_UPDATED_MARKER"; fi
  echo "installing ${missing[*]}"
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

# have NAME: true when $BIN_DIR/NAME is an executable (the step's work is already done).
have() { [ -x "$BIN_DIR/$1" ]; }
