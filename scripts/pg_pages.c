/* The by-hand peer of the postgis engine's sorted pages (BENCHMARKS.md, "PostGIS engine"): the same
 * pages written by hand in SQL over the same table and indexes, from libpq with nothing of Nearby in
 * between.
 *
 *   cc -O2 -o pg_pages scripts/pg_pages.c -I$(pg_config --includedir) -lpq
 *   ./pg_pages 'postgresql://postgres@127.0.0.1:5432/db' pages.sql.tsv > pages.hand.tsv
 *
 * Input: a header line, then `qid<TAB>statement[<TAB>statement…]`, each statement one line of SQL (a
 * page, or a count and a page). A query's time is the wall time of running its statements one after
 * the other, every row fetched (text results). Output: `qid<TAB>microseconds<TAB>rows` per query. */
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

int main(int argc, char **argv) {
    if (argc < 3) { fprintf(stderr, "usage: pg_pages URL PAGES.tsv\n"); return 2; }
    PGconn *c = PQconnectdb(argv[1]);
    if (PQstatus(c) != CONNECTION_OK) { fprintf(stderr, "%s", PQerrorMessage(c)); return 1; }
    FILE *f = fopen(argv[2], "r");
    if (!f) { perror(argv[2]); return 1; }
    static char line[65536];
    int header = 1;
    printf("qid\tus\trows\n");
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\r\n")] = 0;
        if (header) { header = 0; continue; }
        if (!*line) continue;
        char *save = NULL;
        char *qid = strtok_r(line, "\t", &save);
        long rows = 0;
        double t0 = now_us();
        for (char *sql = strtok_r(NULL, "\t", &save); sql; sql = strtok_r(NULL, "\t", &save)) {
            PGresult *r = PQexec(c, sql);
            if (PQresultStatus(r) != PGRES_TUPLES_OK) {
                fprintf(stderr, "query %s: %s", qid, PQerrorMessage(c));
                return 1;
            }
            int n = PQntuples(r), m = PQnfields(r);
            for (int i = 0; i < n; i++)
                for (int j = 0; j < m; j++) (void)PQgetvalue(r, i, j);
            rows += n;
            PQclear(r);
        }
        printf("%s\t%.1f\t%ld\n", qid, now_us() - t0, rows);
    }
    PQfinish(c);
    return 0;
}
