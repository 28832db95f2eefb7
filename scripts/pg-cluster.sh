# Throwaway PostgreSQL clusters for the scripts (sourced, not run): initdb into a folder, postgres
# on a loopback port, stopped by PID. As root (CI, this machine) the server runs as the postgres
# user, which PostgreSQL requires. Needs PostgreSQL 15 + PostGIS 3 (scripts/install-deps.sh).
PG_BIN=${NEARBY_PG_BIN:-$(pg_config --bindir 2>/dev/null || echo /usr/lib/postgresql/15/bin)}

# as_pg CMD ARGS…: runs a PostgreSQL tool as the server's user.
as_pg() {
    if [ "$(id -u)" -eq 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

# pg_free_port: a loopback port nothing listens on.
pg_free_port() {
    python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# pg_init DIR: a new cluster in DIR/data (DIR is created, owned by the server's user).
pg_init() {
    mkdir -p "$1"
    [ "$(id -u)" -ne 0 ] || chown postgres: "$1"
    as_pg "$PG_BIN/initdb" -D "$1/data" -U postgres --auth=trust -E UTF8 --locale=C.UTF-8 >"$1/initdb.log"
}

# pg_start DIR PORT [postgres -c settings…]: starts the cluster in DIR on PORT, waits until it answers.
pg_start() {
    local dir=$1 port=$2; shift 2
    local settings=()
    for s in "$@"; do settings+=(-c "$s"); done
    as_pg "$PG_BIN/postgres" -D "$dir/data" -p "$port" -k "$dir" -c listen_addresses=127.0.0.1 \
        "${settings[@]}" >"$dir/server.log" 2>&1 &
    for _ in $(seq 1 200); do
        "$PG_BIN/pg_isready" -q -h 127.0.0.1 -p "$port" && return 0
        sleep 0.1
    done
    echo "PostgreSQL did not start on port $port:" >&2; tail -20 "$dir/server.log" >&2; return 1
}

# pg_stop DIR: fast shutdown by the PID in postmaster.pid; waits for it to go.
pg_stop() {
    local pid
    pid=$(head -1 "$1/data/postmaster.pid" 2>/dev/null) || return 0
    kill -INT "$pid" 2>/dev/null || return 0
    while kill -0 "$pid" 2>/dev/null; do sleep 0.1; done
}
