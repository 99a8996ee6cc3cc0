# shellcheck shell=bash
# Source this (after scripts/podman/setup.sh has run) to point Testcontainers at the local
# Podman Docker-API socket and at the locally built test images:
#   . scripts/podman/env.sh
: "${WRS_PODMAN_SOCK:=/run/podman/podman.sock}"
export WRS_PODMAN_SOCK
export CONTAINERS_CONF="${CONTAINERS_CONF:-/etc/wrs-test/containers.conf}"
export DOCKER_HOST="unix://${WRS_PODMAN_SOCK}"
# Ryuk (the reaper) is an image pulled from Docker Hub: unreachable here.
export TESTCONTAINERS_RYUK_DISABLED=true
# Podman publishes ports on the host; reach them on loopback.
export TESTCONTAINERS_HOST_OVERRIDE=127.0.0.1
export WRS_TEST_IMAGE_NATS=localhost/wrs-test/nats:2.9
export WRS_TEST_IMAGE_POSTGRES=localhost/wrs-test/postgres:15
export WRS_TEST_IMAGE_REDIS=localhost/wrs-test/redis:7
