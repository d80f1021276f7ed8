#!/usr/bin/env bash
# The real redis-server for test/integration/redis: Debian bookworm's package (7.0). The tests start their
# own processes on free 127.0.0.1 ports with per-test directories, so the packaged service must not keep
# running (nor hold port 6379). Beside it the real metrics exporter the pods run (Debian's
# prometheus-redis-exporter, 1.45, MIT): unpacked into .cache/bin, never installed (no service is started).
set -euo pipefail
source "$(dirname "$0")/lib.bash"

apt_install redis-server redis-tools
sudo=""; [ "$(id -u)" -eq 0 ] || sudo="sudo"
if command -v systemctl >/dev/null 2>&1 && [ -d /run/systemd/system ]; then
  $sudo systemctl disable --now redis-server >/dev/null 2>&1 || true
fi
$sudo service redis-server stop >/dev/null 2>&1 || true
# Without an init system the package's start script may have left a daemon behind: stop it by its pid file.
pidfile=/run/redis/redis-server.pid
if [ -s "$pidfile" ] && kill -0 "$(cat "$pidfile")" 2>/dev/null; then $sudo kill "$(cat "$pidfile")"; fi
for _ in $(seq 50); do (exec 3<>/dev/tcp/127.0.0.1/6379) 2>/dev/null || break; sleep 0.1; done
if (exec 3<>/dev/tcp/127.0.0.1/6379) 2>/dev/null; then echo "something still listens on 127.0.0.1:6379" >&2; exit 1; fi
echo "installed $(redis-server --version)"

if have redis_exporter; then
  echo "redis_exporter already in $BIN_DIR"
else
  work="$CACHE_DIR/redis-exporter-deb"
  rm -rf "$work" && mkdir -p "$work" && chmod 0777 "$work"   # apt downloads as _apt
  with_apt_lock apt_update_once
  (cd "$work" && apt-get download -qq prometheus-redis-exporter)
  dpkg-deb -x "$work"/prometheus-redis-exporter_*.deb "$work/root"
  install -m 0755 "$work/root/usr/bin/prometheus-redis-exporter" "$BIN_DIR/redis_exporter"
  rm -rf "$work"
  echo "installed redis_exporter $("$BIN_DIR/redis_exporter" --version 2>&1 | head -1)"
fi
