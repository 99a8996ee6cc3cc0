#!/usr/bin/env bash
# Make the Testcontainers path work on a machine with no Docker engine and no container registry:
# install Podman, serve the Docker Engine API on a unix socket, and build the three test images
# (NATS 2.9, PostgreSQL 15, Redis 7) locally from Debian packages. Idempotent, non-interactive;
# runs as root. Afterwards: `. scripts/podman/env.sh`.
#
# Knobs (env): WRS_DEBIAN_MIRROR (default: the first Debian URI in apt's own sources),
#   WRS_IMAGE_CACHE (default /var/cache/wrs-test-images), WRS_REBUILD_IMAGES=1 forces image rebuild,
#   WRS_PODMAN_LOG (default /var/log/wrs-podman-service.log), WRS_STALE_MINUTES (default 120),
#   WRS_HEALTHCHECK_PUMP=0 to not start healthcheck-pump.sh.
set -Eeuo pipefail

SCRIPT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO_ROOT="$(cd "$SCRIPT_DIR/../.." && pwd)"
IMAGES_SRC="$REPO_ROOT/docker/test-images"
# shellcheck source=env.sh
. "$SCRIPT_DIR/env.sh"

SOCK="$WRS_PODMAN_SOCK"
CONF="$CONTAINERS_CONF"
RUNC=/usr/sbin/runc
# The mirror comes from this machine's apt configuration, never from a host written here.
apt_mirror() {
  grep -hE '^(URIs:|deb )' /etc/apt/sources.list.d/*.sources /etc/apt/sources.list 2>/dev/null \
    | grep -v -- '-security' | sed -E 's/^URIs:[[:space:]]*//; s/^deb[[:space:]]+(\[[^]]*\][[:space:]]+)?//' \
    | awk '{print $1; exit}' || true
}
MIRROR="${WRS_DEBIAN_MIRROR:-$(apt_mirror)}"
[ -n "$MIRROR" ] || { echo "setup.sh: no Debian mirror in apt's sources; set WRS_DEBIAN_MIRROR" >&2; exit 1; }
SUITE=bookworm
CACHE="${WRS_IMAGE_CACHE:-/var/cache/wrs-test-images}"
SERVICE_LOG="${WRS_PODMAN_LOG:-/var/log/wrs-podman-service.log}"
BASE_PKGS="nats-server,redis-server,postgresql-15"
BASE_IMAGE=localhost/wrs-test/base:$SUITE
export DEBIAN_FRONTEND=noninteractive

if [ "$(id -u)" != 0 ]; then echo "setup.sh: must run as root" >&2; exit 1; fi
# one setup at a time (parallel CI steps / a developer re-running it); children must not inherit fd 9
mkdir -p /run/podman
exec 9>/run/podman/wrs-setup.lock
flock -w 900 9 || { echo "setup.sh: another setup.sh holds /run/podman/wrs-setup.lock" >&2; exit 1; }

T0=$(date +%s%N)
elapsed() { local ms=$(( ($(date +%s%N) - T0) / 1000000 )); printf '%d.%d' $((ms / 1000)) $((ms % 1000 / 100)); }
log() { printf '[podman-setup %6ss] %s\n' "$(elapsed)" "$*"; }
timed() { # timed LABEL CMD...
  local label=$1; shift
  local s; s=$(date +%s%N)
  "$@"
  log "$label took $(( ($(date +%s%N) - s) / 1000000 )) ms"
}

# ---------------------------------------------------------------- 1. containers.conf (first: every podman command reads it via CONTAINERS_CONF)
write_conf() {
  mkdir -p "$(dirname "$CONF")"
  local want
  want=$(cat <<CONFEOF
# Written by scripts/podman/setup.sh (wrs test containers). Read via CONTAINERS_CONF.
[containers]
# the sandbox refuses the default RLIMIT_NOFILE/NPROC settings and has no pids cgroup controller
default_ulimits = []
pids_limit = 0

[engine]
# no systemd here
cgroup_manager = "cgroupfs"
events_logger = "file"
runtime = "runc"
CONFEOF
)
  if [ ! -f "$CONF" ] || [ "$(cat "$CONF")" != "$want" ]; then
    printf '%s\n' "$want" > "$CONF"
    log "wrote $CONF"
  fi
}
write_conf

# ---------------------------------------------------------------- 1b. loopback test registries
# The container provider's pull tests run Debian's docker-registry on loopback over plain HTTP, so
# Podman must call those registries insecure. The service reads registries.conf once, at its first
# pull, so the ports are fixed here (libs/testing/src/loopback-registry.ts picks a free one of them)
# and a service older than the drop-in is restarted below.
REGISTRY_PORTS="15000 15001 15002 15003 15004 15005 15006 15007"
REGISTRIES_DROPIN=/etc/containers/registries.conf.d/50-wrs-test-loopback.conf
write_registries() {
  local want port
  want="# Written by scripts/podman/setup.sh: loopback registries of the wrs tests (plain HTTP)."
  for port in $REGISTRY_PORTS; do
    want+=$'\n\n[[registry]]\n'"location = \"127.0.0.1:$port\""$'\ninsecure = true'
  done
  mkdir -p "$(dirname "$REGISTRIES_DROPIN")"
  if [ ! -f "$REGISTRIES_DROPIN" ] || [ "$(cat "$REGISTRIES_DROPIN")" != "$want" ]; then
    printf '%s\n' "$want" > "$REGISTRIES_DROPIN"
    log "wrote $REGISTRIES_DROPIN"
  fi
}
write_registries

# ---------------------------------------------------------------- 2. packages
install_packages() {
  local missing=()
  command -v podman >/dev/null || missing+=(podman)
  [ -x "$RUNC" ] || missing+=(runc)
  command -v debootstrap >/dev/null || missing+=(debootstrap)
  command -v curl >/dev/null || missing+=(curl)
  command -v setpriv >/dev/null || missing+=(util-linux)
  if [ ${#missing[@]} -eq 0 ]; then log "packages present: $(podman --version), runc $("$RUNC" --version | head -1 | awk '{print $3}')"; return; fi
  log "installing ${missing[*]}"
  apt-get update -qq
  apt-get install -y -qq -o Dpkg::Options::=--force-confold "${missing[@]}" >/dev/null
  log "installed: $(podman --version)"
}
timed "packages" install_packages

# ---------------------------------------------------------------- 3. API service
# The service and the pump are started `detached`: see detached.sh.
# shellcheck source=scripts/podman/detached.sh
. "$SCRIPT_DIR/detached.sh"
ping_ok() { [ "$(curl -fsS --max-time 2 --unix-socket "$SOCK" http://d/_ping 2>/dev/null)" = "OK" ]; }
start_service() {
  if ping_ok; then log "podman API already answering on $SOCK"; return; fi
  local pidfile=/run/podman/wrs-podman-service.pid
  mkdir -p "$(dirname "$SOCK")" /run/podman
  if [ -f "$pidfile" ] && kill -0 "$(cat "$pidfile")" 2>/dev/null \
     && grep -q 'system' "/proc/$(cat "$pidfile")/cmdline" 2>/dev/null; then
    # started by an earlier run but not answering (yet): give it a moment, else replace it
    for _ in $(seq 1 50); do ping_ok && { log "podman API answering (pid $(cat "$pidfile"))"; return; }; sleep 0.1; done
    log "podman service pid $(cat "$pidfile") not answering; restarting it"
    kill "$(cat "$pidfile")" 2>/dev/null || true; sleep 1
  fi
  rm -f "$SOCK"
  # setsid + nohup: the service must outlive this script (tests run after it) and CI's process group.
  # From /: conmon writes a container's `oom` marker in the service's working directory, not a checkout's.
  (cd / && CONTAINERS_CONF="$CONF" detached podman --runtime "$RUNC" system service --time=0 "unix://$SOCK") \
    >>"$SERVICE_LOG" 2>&1 </dev/null &
  echo $! > "$pidfile"
  for _ in $(seq 1 300); do
    if ping_ok; then log "podman API answering on $SOCK (pid $(cat "$pidfile"), log $SERVICE_LOG)"; return; fi
    if ! kill -0 "$(cat "$pidfile")" 2>/dev/null; then
      echo "setup.sh: podman system service exited; last log lines:" >&2; tail -20 "$SERVICE_LOG" >&2; exit 1
    fi
    sleep 0.1
  done
  echo "setup.sh: podman API did not answer on $SOCK within 30 s" >&2; tail -20 "$SERVICE_LOG" >&2; exit 1
}
# A service started before the drop-in was written does not know the loopback registries: restart it
# (only one this script started; its containers keep running under conmon).
restart_for_registries() {
  local pidfile=/run/podman/wrs-podman-service.pid pid
  ping_ok || return 0
  pid=$(cat "$pidfile" 2>/dev/null || true)
  if [ -n "$pid" ] && grep -q 'system' "/proc/$pid/cmdline" 2>/dev/null; then
    # /proc/<pid> is made when the process starts
    [ "$(stat -c %Y "/proc/$pid")" -lt "$(stat -c %Y "$REGISTRIES_DROPIN")" ] || return 0
    log "restarting the podman service (pid $(cat "$pidfile")) to read $REGISTRIES_DROPIN"
    kill "$(cat "$pidfile")"
    for _ in $(seq 1 50); do ping_ok || return 0; sleep 0.1; done
  else
    log "WARNING: a podman service not started by this script answers on $SOCK; if it is older than $REGISTRIES_DROPIN, restart it"
  fi
}
restart_for_registries
timed "podman service" start_service

# ---------------------------------------------------------------- 3b. health checks without systemd
start_pump() {
  local pidfile=/run/podman/wrs-healthcheck-pump.pid
  if [ "${WRS_HEALTHCHECK_PUMP:-1}" = 0 ]; then log "healthcheck pump disabled (WRS_HEALTHCHECK_PUMP=0)"; return; fi
  if [ -f "$pidfile" ] && kill -0 "$(cat "$pidfile")" 2>/dev/null \
     && grep -q healthcheck-pump "/proc/$(cat "$pidfile")/cmdline" 2>/dev/null; then
    log "healthcheck pump running (pid $(cat "$pidfile"))"; return
  fi
  (WRS_PODMAN_SOCK="$SOCK" detached bash "$SCRIPT_DIR/healthcheck-pump.sh") >/dev/null 2>&1 </dev/null &
  echo $! > "$pidfile"
  log "healthcheck pump started (pid $!)"
}
start_pump

# ---------------------------------------------------------------- 4. leaked test containers
# Ryuk is disabled, so containers of a crashed/killed test run are never reaped. Remove those
# labelled by Testcontainers that are older than WRS_STALE_MINUTES (default 120; 0 = all of them).
sweep_stale() {
  local max_age=$(( ${WRS_STALE_MINUTES:-120} * 60 )) now n=0 id created
  now=$(date +%s)
  while read -r id created; do
    [ -n "$id" ] || continue
    if [ $(( now - created )) -ge "$max_age" ]; then podman rm -f "$id" >/dev/null 2>&1 && n=$((n + 1)); fi
  done < <(podman ps -a --filter label=org.testcontainers=true --format '{{.ID}} {{.Created.Unix}}')
  [ "$n" -eq 0 ] || log "removed $n stale Testcontainers container(s)"
}
sweep_stale

# ---------------------------------------------------------------- 5. images
image_label() { # image label -> value or empty
  podman image inspect --format "{{ index .Labels \"$2\" }}" "$1" 2>/dev/null | sed 's/<no value>//' || true
}

base_key=$(printf '%s\n' "$SUITE" "$BASE_PKGS" "minbase-v1" | sha256sum | cut -c1-12)
BASE_TAR="$CACHE/$SUITE-minbase-$base_key.tar"

build_rootfs_tar() {
  mkdir -p "$CACHE"
  local dir; dir=$(mktemp -d /var/tmp/wrs-rootfs.XXXXXX)
  # shellcheck disable=SC2064
  trap "rm -rf '$dir'" RETURN
  log "debootstrap $SUITE ($BASE_PKGS) from $MIRROR ..."
  if ! debootstrap --variant=minbase --include="$BASE_PKGS" "$SUITE" "$dir" "$MIRROR" >"$CACHE/debootstrap.log" 2>&1; then
    echo "setup.sh: debootstrap failed; tail of $CACHE/debootstrap.log:" >&2; tail -30 "$CACHE/debootstrap.log" >&2; exit 1
  fi
  # slim down: package caches, docs, the cluster postgresql-common created at install time
  rm -rf "$dir"/var/cache/apt/archives/*.deb "$dir"/var/lib/apt/lists/* \
         "$dir"/usr/share/doc/* "$dir"/usr/share/man/* "$dir"/usr/share/info/* \
         "$dir"/var/lib/postgresql/15 "$dir"/etc/postgresql/15 "$dir"/var/log/*.log
  mkdir -p "$dir/data" "$dir/docker-entrypoint-initdb.d"
  chown redis:redis "$dir/data" 2>/dev/null || chroot "$dir" chown redis:redis /data
  tar -C "$dir" --numeric-owner -cf "$BASE_TAR.tmp" .
  mv "$BASE_TAR.tmp" "$BASE_TAR"
  log "cached rootfs $BASE_TAR ($(du -h "$BASE_TAR" | cut -f1))"
}

build_base() {
  if [ -z "${WRS_REBUILD_IMAGES:-}" ] && [ "$(image_label "$BASE_IMAGE" wrs.key)" = "$base_key" ]; then
    log "image $BASE_IMAGE present"; return
  fi
  [ -s "$BASE_TAR" ] || timed "debootstrap + tar" build_rootfs_tar
  log "importing $BASE_TAR as $BASE_IMAGE ..."
  podman import -q \
    --change "ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin" \
    --change "ENV LANG=C.UTF-8" \
    --change "LABEL wrs.key=$base_key" \
    --change 'CMD ["/bin/bash"]' \
    "$BASE_TAR" "$BASE_IMAGE" >/dev/null
}
timed "base image" build_base

build_image() { # NAME TAG
  local name=$1 image="localhost/wrs-test/$1:$2" ctx="$IMAGES_SRC/$1"
  local base_id key
  base_id=$(podman image inspect --format '{{.Id}}' "$BASE_IMAGE")
  key=$( (echo "$base_id"; cd "$ctx" && find . -type f | LC_ALL=C sort | xargs sha256sum) | sha256sum | cut -c1-12)
  if [ -z "${WRS_REBUILD_IMAGES:-}" ] && [ "$(image_label "$image" wrs.key)" = "$key" ]; then
    log "image $image present"; return
  fi
  # stage the context so entrypoints are executable whatever the checkout did with modes
  local stage; stage=$(mktemp -d /var/tmp/wrs-ctx.XXXXXX)
  cp -a "$ctx/." "$stage/"
  find "$stage" -name '*.sh' -exec chmod 0755 {} +
  podman build -q --pull=never --layers=false --format docker \
    --build-arg BASE="$BASE_IMAGE" --label "wrs.key=$key" \
    -t "$image" -f "$stage/Containerfile" "$stage" >/dev/null
  rm -rf "$stage"
  log "built $image"
}
timed "nats image" build_image nats 2.9
timed "postgres image" build_image postgres 15
timed "redis image" build_image redis 7
# drop dangling layers from earlier builds
podman image prune -f >/dev/null 2>&1 || true

log "setup complete in $(elapsed) s"
cat <<ENVEOF
# Testcontainers environment (also: . scripts/podman/env.sh)
export DOCKER_HOST=$DOCKER_HOST
export TESTCONTAINERS_RYUK_DISABLED=$TESTCONTAINERS_RYUK_DISABLED
export TESTCONTAINERS_HOST_OVERRIDE=$TESTCONTAINERS_HOST_OVERRIDE
export WRS_TEST_IMAGE_NATS=$WRS_TEST_IMAGE_NATS
export WRS_TEST_IMAGE_POSTGRES=$WRS_TEST_IMAGE_POSTGRES
export WRS_TEST_IMAGE_REDIS=$WRS_TEST_IMAGE_REDIS
ENVEOF
