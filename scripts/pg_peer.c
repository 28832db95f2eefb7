/* The peer measurement for the postgis engine (BENCHMARKS.md, "PostGIS engine"): raw PostGIS answering the
 * workload's radius queries from a prepared libpq statement, with nothing of Nearby in between.
 *
 *   cc -O2 -o pg_peer scripts/pg_peer.c -I$(pg_config --includedir) -lpq
 *   ./pg_peer 'postgresql://postgres@127.0.0.1:5432/db' W.queries.tsv [FIRST_N]
 *
 * Table raw_places(id bigint, ..., geog geography(Point,4326)) with a GiST index on geog (made by
 * scripts/bench-postgis.sh). Each query: SELECT id FROM raw_places WHERE ST_DWithin(geog, q, r, false),
 * every matching id fetched as text. Prints one JSON line: queries, rows, p50/p90/p99 µs, q/s. */
#include <libpq-fe.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now_us(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

static int cmp(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv) {
    if (argc < 3) { fprintf(stderr, "usage: pg_peer URL QUERIES.tsv [FIRST_N]\n"); return 2; }
    long first = argc > 3 ? atol(argv[3]) : 0;
    PGconn *c = PQconnectdb(argv[1]);
    if (PQstatus(c) != CONNECTION_OK) { fprintf(stderr, "%s", PQerrorMessage(c)); return 1; }
    PGresult *p = PQprepare(c, "q",
        "SELECT id FROM raw_places WHERE ST_DWithin(geog, "
        "ST_SetSRID(ST_MakePoint($2, $1), 4326)::geography, $3, false)", 3, NULL);
    if (PQresultStatus(p) != PGRES_COMMAND_OK) { fprintf(stderr, "%s", PQerrorMessage(c)); return 1; }
    PQclear(p);
    FILE *f = fopen(argv[2], "r");
    if (!f) { perror(argv[2]); return 1; }
    char line[512], lat[64], lon[64], radius[64], qid[64];
    size_t n = 0, cap = 16384;
    double *us = malloc(cap * sizeof *us);
    long rows = 0;
    double start = now_us();
    fgets(line, sizeof line, f); /* header: qid lat lon radius_m limit */
    while (fgets(line, sizeof line, f) && (first == 0 || (long)n < first)) {
        if (sscanf(line, "%63s %63s %63s %63s", qid, lat, lon, radius) != 4) continue;
        const char *values[3] = {lat, lon, radius};
        double t0 = now_us();
        PGresult *r = PQexecPrepared(c, "q", 3, values, NULL, NULL, 0);
        if (PQresultStatus(r) != PGRES_TUPLES_OK) { fprintf(stderr, "%s", PQerrorMessage(c)); return 1; }
        for (int i = 0; i < PQntuples(r); i++) rows += PQgetvalue(r, i, 0)[0] != 0;
        PQclear(r);
        if (n == cap) us = realloc(us, (cap *= 2) * sizeof *us);
        us[n++] = now_us() - t0;
    }
    double seconds = (now_us() - start) / 1e6;
    qsort(us, n, sizeof *us, cmp);
    printf("{\"queries\":%zu,\"rows\":%ld,\"p50_us\":%.0f,\"p90_us\":%.0f,\"p99_us\":%.0f,\"qps\":%.1f}\n",
           n, rows, us[n / 2], us[n * 9 / 10], us[n * 99 / 100], n / seconds);
    PQfinish(c);
    return 0;
}
