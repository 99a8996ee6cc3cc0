#!/bin/bash
# Minimal stand-in for the official postgres image's docker-entrypoint.sh (Debian postgresql-15).
set -Eeo pipefail

if [ "${1:0:1}" = '-' ]; then
	set -- postgres "$@"
fi

if [ "$1" != 'postgres' ]; then
	exec "$@"
fi

: "${PGDATA:=/var/lib/postgresql/data}"
export PGDATA

if [ "$(id -u)" = '0' ]; then
	mkdir -p "$PGDATA" /var/run/postgresql
	chmod 00700 "$PGDATA" || :
	chmod 03775 /var/run/postgresql || :
	find "$PGDATA" /var/run/postgresql \! -user postgres -exec chown postgres:postgres '{}' +
	exec setpriv --reuid=postgres --regid=postgres --init-groups "${BASH_SOURCE[0]}" "$@"
fi

if [ ! -s "$PGDATA/PG_VERSION" ]; then
	: "${POSTGRES_USER:=postgres}"
	: "${POSTGRES_DB:=$POSTGRES_USER}"
	: "${POSTGRES_HOST_AUTH_METHOD:=scram-sha-256}"
	if [ -z "${POSTGRES_PASSWORD:-}" ] && [ "$POSTGRES_HOST_AUTH_METHOD" != 'trust' ]; then
		echo >&2 'Error: Database is uninitialized and superuser password is not specified.'
		echo >&2 '       Set POSTGRES_PASSWORD (or POSTGRES_HOST_AUTH_METHOD=trust).'
		exit 1
	fi

	# --no-sync: test image, nothing to keep
	eval 'initdb --username="$POSTGRES_USER" --pwfile=<(printf "%s\n" "${POSTGRES_PASSWORD:-}") --no-sync '"${POSTGRES_INITDB_ARGS:-}"

	cat >> "$PGDATA/postgresql.conf" <<-CONF

	# wrs-test image defaults (test speed, not durability)
	listen_addresses = '*'
	fsync = off
	synchronous_commit = off
	full_page_writes = off
	CONF
	printf '\nhost all all all %s\n' "$POSTGRES_HOST_AUTH_METHOD" >> "$PGDATA/pg_hba.conf"

	# temporary server on the unix socket only, like the official image
	PGUSER="$POSTGRES_USER" pg_ctl -D "$PGDATA" -o "-c listen_addresses='' -p ${PGPORT:-5432}" -w start

	psql=(psql -v ON_ERROR_STOP=1 --username "$POSTGRES_USER" --no-password --no-psqlrc)
	if [ "$POSTGRES_DB" != 'postgres' ]; then
		"${psql[@]}" --dbname postgres --set db="$POSTGRES_DB" <<-'SQL'
			CREATE DATABASE :"db" ;
		SQL
		echo
	fi
	psql+=(--dbname "$POSTGRES_DB")

	for f in /docker-entrypoint-initdb.d/*; do
		[ -e "$f" ] || continue
		case "$f" in
			*.sh)
				if [ -x "$f" ]; then echo "$0: running $f"; "$f"; else echo "$0: sourcing $f"; . "$f"; fi ;;
			*.sql)    echo "$0: running $f"; "${psql[@]}" -f "$f"; echo ;;
			*.sql.gz) echo "$0: running $f"; gunzip -c "$f" | "${psql[@]}"; echo ;;
			*)        echo "$0: ignoring $f" ;;
		esac
	done

	pg_ctl -D "$PGDATA" -m fast -w stop
	echo
	echo 'PostgreSQL init process complete; ready for start up.'
	echo
fi

exec "$@"
