#!/usr/bin/env bash
# Start the machine's PostgreSQL (127.0.0.1:5432) and Redis (127.0.0.1:6379)
# when they are not running. Idempotent and quiet: prints nothing when both
# are up; says what it started otherwise. Used by `make test`.
set -uo pipefail

port_open() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

wait_port() {  # port, what
    for _ in $(seq 1 100); do port_open "$1" && return 0; sleep 0.1; done
    echo "services.sh: $2 did not start listening on 127.0.0.1:$1." >&2
    return 1
}

status=0

if ! port_open 5432; then
    if command -v pg_ctlcluster >/dev/null 2>&1 && [ -d /etc/postgresql ]; then
        version=$(ls /etc/postgresql | sort -V | tail -1)
        echo "services.sh: starting PostgreSQL $version."
        pg_ctlcluster --skip-systemctl-redirect "$version" main start || status=1
        wait_port 5432 PostgreSQL || status=1
    else
        echo "services.sh: PostgreSQL is not running and not installed (apt-get install postgresql)." >&2
        status=1
    fi
fi

if ! port_open 6379; then
    if command -v redis-server >/dev/null 2>&1; then
        echo "services.sh: starting Redis."
        mkdir -p /var/lib/redis /var/log/redis
        redis-server --daemonize yes --bind 127.0.0.1 -::1 --port 6379 --save "" --appendonly no \
            --dir /var/lib/redis --logfile /var/log/redis/ci.log || status=1
        wait_port 6379 Redis || status=1
    else
        echo "services.sh: Redis is not running and not installed (apt-get install redis-server)." >&2
        status=1
    fi
fi

exit $status
