# Helpers for setup steps: `source "$(dirname "$0")/lib.bash"` (the runner only runs *.sh files).
# shellcheck shell=bash

# with_apt_lock CMD...: runs CMD holding the setup's apt lock: the two lanes of setup.sh run side by side, and apt
# and dpkg take one user at a time (a second apt-get fails at once on their lock).
with_apt_lock() {
  (flock 9 && "$@") 9>"$CACHE_DIR/.apt.lock"
}

# apt_update_once: apt-get update, once per setup run (call it holding the apt lock).
apt_update_once() {
  [ ! -e "$APT_UPDATED_MARKER" ] || return 0
  local sudo=""; [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq && touch "$APT_UPDATED_MARKER"
}

# apt_install PKG...: installs Debian packages that are missing (runs apt-get update once per setup run).
apt_install() {
  local missing=()
  for pkg in "$@"; do dpkg -s "$pkg" >/dev/null 2>&1 || missing+=("$pkg"); done
  [ ${#missing[@]} -eq 0 ] && return 0
  with_apt_lock apt_install_now "${missing[@]}"
}

apt_install_now() {
  local sudo=""; [ "$(id -u)" -eq 0 ] || sudo="sudo"
  apt_update_once
  echo "installing $*"
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "$@" >/dev/null
}

# have NAME: true when $BIN_DIR/NAME is an executable (the step's work is already done).
have() { [ -x "$BIN_DIR/$1" ]; }

# module_file WHAT MODULE VERSION FILE TARGET: copies FILE of the Go module MODULE at VERSION (through the Go module
# proxy, nothing built) to TARGET, unless TARGET is there from that same module, version and file; WHAT names it in
# messages.
module_file() {
  local what=$1 module=$2 version=$3 file=$4 target=$5
  local stamp="$module $version $file" dir
  if [ -f "$target" ] && [ "$(cat "$target.stamp" 2>/dev/null)" = "$stamp" ]; then
    echo "$what $version already in $target"
    return 0
  fi
  if ! command -v go >/dev/null; then
    echo "Go is not installed: $what comes from the Go module $module (https://go.dev/dl/)" >&2
    return 1
  fi
  dir="$(cd "$CACHE_DIR" && go mod download -json "$module@$version" | sed -n 's/^\t"Dir": "\(.*\)",$/\1/p')"
  [ -f "$dir/$file" ] || { echo "go mod download $module@$version gave no $file" >&2; return 1; }
  mkdir -p "$(dirname "$target")"
  cp "$dir/$file" "$target" && chmod u+w "$target"
  echo "$stamp" >"$target.stamp"
  echo "$what $version in $target"
}
