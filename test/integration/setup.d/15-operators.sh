#!/usr/bin/env bash
# Real operators for test/integration/kubernetes/operator-agreement.test.ts: the releases the check's operator
# models cite (src/check/operator-models/rows/), built from their Go modules into $BIN_DIR, their CRDs copied to
# $CACHE_DIR/operators/<name>/. All three are Apache-2.0 (each module's LICENSE; MongoDB's operator source is, its
# agent binary is not and is never fetched: the operator only names its image).
# Each module is built in a copy of its module-cache folder: `go install module@version` refuses modules with
# replace directives. A replace by a folder of the repository that is a module of its own (VictoriaMetrics'
# ./api) finds no folder there (a module's zip leaves nested modules out): it is replaced by that module at the
# same release, from the proxy.
# lane: go (setup.sh runs the Go builds one at a time, beside the other steps)
set -euo pipefail
source "$(dirname "$0")/lib.bash"

# name  module  version  main package  CRD files (relative to the module, comma-separated)
OPERATORS=(
  "spotahome-redis-operator github.com/spotahome/redis-operator v1.2.4 ./cmd/redisoperator manifests/databases.spotahome.com_redisfailovers.yaml"
  "mongodb-community-operator github.com/mongodb/mongodb-kubernetes-operator v0.13.0 ./cmd/manager config/crd/bases/mongodbcommunity.mongodb.com_mongodbcommunity.yaml"
  "victoriametrics-operator github.com/VictoriaMetrics/operator v0.74.1 ./cmd config/crd/overlay/crd.descriptionless.yaml"
)

if ! command -v go >/dev/null; then
  echo "Go is not installed: the operators are built from their Go modules (Go 1.26.5 or newer; https://go.dev/dl/)" >&2
  exit 1
fi

command -v jq >/dev/null || apt_install jq   # reads go.mod's replaces (go mod edit -json)

for row in "${OPERATORS[@]}"; do
  read -r name module version main crds <<<"$row"
  stamp="$module $version $main $crds"
  if have "$name" && [ "$(cat "$BIN_DIR/.$name.stamp" 2>/dev/null)" = "$stamp" ]; then
    echo "$name $version already in $BIN_DIR"
    continue
  fi
  start=$(date +%s)
  dir="$(go mod download -json "$module@$version" | sed -n 's/^\t"Dir": "\(.*\)",$/\1/p')"
  [ -d "$dir" ] || { echo "go mod download $module@$version gave no folder" >&2; exit 1; }
  work="$(mktemp -d "$CACHE_DIR/operator-build.XXXXXX")"
  cp -r "$dir/." "$work/" && chmod -R u+w "$work"
  mod_flag=-mod=readonly
  while read -r nested folder; do
    [ ! -d "$work/$folder" ] || continue
    (cd "$work" && go mod edit -dropreplace="$nested" -require="$nested@$version")
    mod_flag=-mod=mod   # go.sum gains the nested module's sums
  done < <(cd "$work" && go mod edit -json | jq -r '.Replace[]? | select(.New.Path | startswith("./")) | "\(.Old.Path) \(.New.Path)"')
  (cd "$work" && go build "$mod_flag" -trimpath -ldflags="-s -w" -o "$BIN_DIR/$name" "$main")
  rm -rf "$CACHE_DIR/operators/$name" && mkdir -p "$CACHE_DIR/operators/$name"
  IFS=, read -ra files <<<"$crds"
  for f in "${files[@]}"; do cp "$work/$f" "$CACHE_DIR/operators/$name/"; done
  rm -rf "$work"
  echo "$stamp" >"$BIN_DIR/.$name.stamp"
  echo "built $name $version in $(( $(date +%s) - start )) s"
done
