#!/usr/bin/env bash
# Podman runs container HEALTHCHECKs from systemd timers; this machine has no systemd, so a
# container's health stays "starting" forever ("unable to get systemd connection to add
# healthchecks" in the service log) and Testcontainers' Wait.forHealthCheck() (used by
# @testcontainers/postgresql's PostgreSqlContainer) times out. This loop stands in for the timers:
# every WRS_HEALTHCHECK_INTERVAL seconds (default 0.25) it runs the health check of each container
# whose health is still "starting", through the libpod API. Started in the background by setup.sh.
set -u
SOCK="${WRS_PODMAN_SOCK:-/run/podman/podman.sock}"
INTERVAL="${WRS_HEALTHCHECK_INTERVAL:-0.25}"
api() { curl -s --max-time "$1" --unix-socket "$SOCK" -g "http://d$2"; }
while :; do
  ids=$(api 5 '/v1.41/containers/json?filters={"health":["starting"]}' | grep -o '"Id":"[0-9a-f]*"' | cut -d'"' -f4)
  for id in $ids; do
    api 60 "/v4.0.0/libpod/containers/$id/healthcheck" >/dev/null &
  done
  wait
  sleep "$INTERVAL"
done
