#!/usr/bin/env bash
# Start a local PostgreSQL server for the store and digest tests.
#
# Source it to get PAPERBOT_TEST_POSTGRES_URL exported into the calling shell, or run it
# and read the URL from its last line of output. Idempotent: installs Debian's postgresql
# only when missing, starts the cluster only when down, and (re)creates the test role and
# database only when absent. Debian's server refuses to run as root, so the cluster is
# started and administered as the postgres user.

_paperbot_postgres_url() (
    set -euo pipefail
    # Only the URL may reach the caller's $(...): tools such as pg_ctlcluster print notes
    # ("Removed stale pid file.") on stdout, so everything else goes to stderr. The server
    # must not inherit fd 3, or $(...) would wait for it to exit.
    exec 3>&1 1>&2

    PAPERBOT_PG_USER="${PAPERBOT_PG_USER:-paperbot}"
    PAPERBOT_PG_PASSWORD="${PAPERBOT_PG_PASSWORD:-paperbot}"
    PAPERBOT_PG_DATABASE="${PAPERBOT_PG_DATABASE:-paperbot_test}"

    as_postgres() {
        if [ "$(id -u)" = 0 ]; then
            su postgres -s /bin/sh -c "$*" 3>&-
        else
            sudo -u postgres sh -c "$*" 3>&-
        fi
    }

    if ! command -v pg_ctlcluster >/dev/null 2>&1 || ! ls /usr/lib/postgresql/*/bin/postgres >/dev/null 2>&1; then
        echo "postgres.sh: installing Debian's postgresql package" >&2
        export DEBIAN_FRONTEND=noninteractive
        apt-get update -qq
        apt-get install -y -qq postgresql >/dev/null
    fi

    cluster="$(pg_lsclusters --no-header | head -n 1)"
    if [ -z "$cluster" ]; then
        version="$(ls /usr/lib/postgresql | sort -V | tail -n 1)"
        echo "postgres.sh: creating cluster $version/main" >&2
        pg_createcluster "$version" main >/dev/null
        cluster="$(pg_lsclusters --no-header | head -n 1)"
    fi
    read -r pg_version pg_cluster pg_port pg_status _ <<<"$cluster"

    if [ "$pg_status" != "online" ]; then
        echo "postgres.sh: starting cluster $pg_version/$pg_cluster on port $pg_port" >&2
        as_postgres "pg_ctlcluster $pg_version $pg_cluster start"
    fi

    for _ in $(seq 1 30); do
        if as_postgres "psql -p $pg_port -tAc 'SELECT 1'" >/dev/null 2>&1; then
            break
        fi
        sleep 1
    done

    if [ "$(as_postgres "psql -p $pg_port -tAc \"SELECT 1 FROM pg_roles WHERE rolname = '$PAPERBOT_PG_USER'\"")" != 1 ]; then
        as_postgres "psql -p $pg_port -q -c \"CREATE ROLE $PAPERBOT_PG_USER LOGIN PASSWORD '$PAPERBOT_PG_PASSWORD'\""
    fi
    if [ "$(as_postgres "psql -p $pg_port -tAc \"SELECT 1 FROM pg_database WHERE datname = '$PAPERBOT_PG_DATABASE'\"")" != 1 ]; then
        as_postgres "createdb -p $pg_port -O $PAPERBOT_PG_USER $PAPERBOT_PG_DATABASE"
    fi

    echo "postgresql+psycopg://$PAPERBOT_PG_USER:$PAPERBOT_PG_PASSWORD@127.0.0.1:$pg_port/$PAPERBOT_PG_DATABASE" >&3
)

PAPERBOT_TEST_POSTGRES_URL="$(_paperbot_postgres_url)" || return 1 2>/dev/null || exit 1
export PAPERBOT_TEST_POSTGRES_URL
echo "PAPERBOT_TEST_POSTGRES_URL=$PAPERBOT_TEST_POSTGRES_URL"
