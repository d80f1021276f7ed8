#!/usr/bin/env bash
# The real Prometheus for test/integration/prometheus: Debian bookworm's package (2.42), unpacked, never
# installed (no service is started). Its Kubernetes discovery is compiled out; the tests use file_sd with
# __meta_* labels and the relabel rules the library generates, which is all the sharding proof needs.
# The same package's promtool checks and unit-tests the zone alert rules (test/integration/monitoring).
set -euo pipefail
source "$(dirname "$0")/lib.bash"

have prometheus && have promtool && { echo "prometheus and promtool already in $BIN_DIR: $("$BIN_DIR/prometheus" --version 2>&1 | head -1)"; exit 0; }

work="$CACHE_DIR/prometheus-deb"
rm -rf "$work" && mkdir -p "$work" && chmod 0777 "$work"   # apt downloads as _apt
with_apt_lock apt_update_once
(cd "$work" && apt-get download -qq prometheus)
dpkg-deb -x "$work"/prometheus_*.deb "$work/root"
install -m 0755 "$work/root/usr/bin/prometheus" "$BIN_DIR/prometheus"
install -m 0755 "$work/root/usr/bin/promtool" "$BIN_DIR/promtool"
rm -rf "$work"
echo "installed $("$BIN_DIR/prometheus" --version 2>&1 | head -1)"
