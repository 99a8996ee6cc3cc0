#!/bin/sh
# Minimal stand-in for the official redis image's docker-entrypoint.sh (Debian redis-server 7.0).
set -e

# first arg is `-f` or `--some-option`, or a .conf file: run redis-server with it
if [ "${1#-}" != "$1" ] || [ "${1%.conf}" != "$1" ]; then
	set -- redis-server "$@"
fi

if [ "$1" = 'redis-server' ]; then
	shift
	if [ $# -gt 0 ] && [ "${1#-}" = "$1" ]; then
		# a config file must stay the first argument; it decides bind/protected-mode itself
		set -- redis-server "$@"
	else
		# The official image's binary defaults to protected-mode no and binding every interface;
		# Debian's does not, so say it here. Later arguments still override these.
		set -- redis-server --bind 0.0.0.0 --protected-mode no "$@"
	fi
	if [ "$(id -u)" = '0' ]; then
		find . \! -user redis -exec chown redis '{}' + 2>/dev/null || true
		um="$(umask)"
		if [ "$um" = '0022' ]; then umask 0077; fi
		exec setpriv --reuid=redis --regid=redis --init-groups "$@"
	fi
fi

exec "$@"
