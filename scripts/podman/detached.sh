# shellcheck shell=bash
# Sourced by setup.sh. `detached CMD...`, run in a background subshell, execs CMD in its own session
# holding no file of the caller's but stdin, stdout and stderr: not setup.sh's lock (fd 9), and not a
# lock its caller holds on another fd either (`flock /tmp/x.lock bash setup.sh` passes its lock as fd 3).
# A Podman service that kept it held that lock for as long as it ran: the next `flock /tmp/x.lock ...`
# waited forever. The pid stays the subshell's ($!): a background subshell leads no process group, so
# setsid need not fork.
detached() {
  local fd
  for fd in /proc/"$BASHPID"/fd/*; do
    fd=${fd##*/}
    if [ "$fd" -gt 2 ]; then eval "exec $fd>&-"; fi
  done
  exec setsid nohup "$@"
}
