/* The load generator of scripts/bench-http.sh for Redis and for HTTP alike, so that both servers are
 * timed by the same client: C connections (one thread each, keep-alive, one request at a time,
 * blocking reads and writes) cycle through a file of requests for a fixed time; prints q/s and
 * latency percentiles as one JSON line. -P resp (the default): Redis inline commands, replies read as
 * RESP, error replies counted. -P http: request targets sent as wrk.format("GET", target) sends them,
 * answers read to the end of their Content-Length or chunked body, any status but 200 counted;
 * -m METHOD sends another method than GET (a request without a body: PUT /v1/me/bookmarks/{id}) and
 * -H "Name: value" adds a header to every request (Authorization: Bearer TOKEN).
 * With -d FILE (resp) it instead sends every command once on one connection and writes each reply's
 * members (in Redis's order, comma-joined) one line per command, for checking the answers. wrk stays
 * the HTTP load generator at 2/16/64 connections (the server's q/s target is stated with it).
 *
 * usage: geoload [-P resp|http] -p PORT -f REQUESTS.txt [-c CONNECTIONS] [-t SECONDS] [-n MAX_REQUESTS] [-d OUT]
 *                [-m METHOD] [-H HEADER] (http)
 * REQUESTS.txt, one a line, as scripts/bench-http/workload.py writes them: a Redis inline command
 * ("GEOSEARCH places FROMLONLAT 127 37 BYRADIUS 500 m ASC WITHDIST") or a target ("/v1/places?lat=…"). */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static char **reqs; static size_t *req_len; static size_t nreqs; static int http;
static int port = 6379, conns = 1; static double seconds = 10; static long max_requests = 1000000;
static double *lat_us; static long nlat; static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static long next_req; static long errors;

static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + t.tv_nsec * 1e-9; }

typedef struct { int fd; char *buf; size_t cap, len, pos; } conn_t;

static int fill(conn_t *c) {
    if (c->pos > 0 && c->pos == c->len) { c->pos = c->len = 0; }
    if (c->len == c->cap) { c->cap *= 2; c->buf = realloc(c->buf, c->cap); }
    ssize_t n = read(c->fd, c->buf + c->len, c->cap - c->len);
    if (n <= 0) return -1;
    c->len += n; return 0;
}
/* Reads one line (without \r\n) starting at pos; returns its start index. */
static long line(conn_t *c) {
    for (;;) {
        char *p = memchr(c->buf + c->pos, '\n', c->len - c->pos);
        if (p) { long start = c->pos; c->pos = p - c->buf + 1; return start; }
        if (fill(c) < 0) return -1;
    }
}
/* Consumes n bytes. */
static int skip(conn_t *c, long n) {
    while (n > 0) {
        if (c->pos == c->len && fill(c) < 0) return -1;
        long k = (long)(c->len - c->pos) < n ? (long)(c->len - c->pos) : n;
        c->pos += k; n -= k;
    }
    return 0;
}
/* Reads one RESP value; bulk strings at depth 2 (GEOSEARCH WITHDIST's members) are appended to out (comma-joined). */
static int value(conn_t *c, int depth, FILE *out, int *first) {
    long s = line(c); if (s < 0) return -1;
    char type = c->buf[s]; long n = atol(c->buf + s + 1);
    if (type == '-') { errors++; return 0; }
    if (type == '*') {
        for (long i = 0; i < n; i++) {
            /* GEOSEARCH WITHDIST: an array of [member, distance]; the member is the first of each pair. */
            if (value(c, depth + 1, (out && (depth == 0 || i == 0)) ? out : NULL, first) < 0) return -1;
        }
        return 0;
    }
    if (type == '$' && n >= 0) {
        while ((long)(c->len - c->pos) < n + 2) { if (fill(c) < 0) return -1; }
        if (out && depth == 2) { if (!*first) fputc(',', out); fwrite(c->buf + c->pos, 1, n, out); *first = 0; }
        c->pos += n + 2;
    }
    return 0;
}
/* Reads one HTTP response: status line, headers, then a Content-Length or chunked body. */
static int response(conn_t *c) {
    long s = line(c); if (s < 0) return -1;
    int status = atoi(c->buf + s + 9);  /* "HTTP/1.1 200 OK" */
    long length = -1; int chunked = 0;
    for (;;) {
        s = line(c); if (s < 0) return -1;
        char *h = c->buf + s;
        if (c->pos - s <= 2) break;  /* the empty line */
        if (!strncasecmp(h, "content-length:", 15)) length = atol(h + 15);
        else if (!strncasecmp(h, "transfer-encoding:", 18) && strstr(h, "chunked")) chunked = 1;
    }
    if (chunked) {
        for (;;) {
            s = line(c); if (s < 0) return -1;
            long n = strtol(c->buf + s, NULL, 16);
            if (skip(c, n + 2) < 0) return -1;  /* the chunk and its \r\n; after the last, the trailer's end */
            if (n == 0) break;
        }
    } else if (length > 0 && skip(c, length) < 0) return -1;
    if (status != 200) errors++;
    return 0;
}
static int dial(void) {
    int fd = socket(AF_INET, SOCK_STREAM, 0), one = 1;
    struct sockaddr_in a = {0}; a.sin_family = AF_INET; a.sin_port = htons(port); a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (connect(fd, (struct sockaddr *)&a, sizeof a) < 0) { perror("connect"); exit(1); }
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    return fd;
}
static int send_all(int fd, const char *p, size_t n) {
    while (n) { ssize_t k = write(fd, p, n); if (k <= 0) return -1; p += k; n -= k; }
    return 0;
}
static int answer(conn_t *c) { int first = 1; return http ? response(c) : value(c, 0, NULL, &first); }
static void *worker(void *arg) {
    double end = *(double *)arg;
    conn_t c = { dial(), malloc(1 << 16), 1 << 16, 0, 0 };
    double *mine = malloc(sizeof(double) * (max_requests / conns + 1)); long n = 0;
    while (now() < end && n < max_requests / conns) {
        pthread_mutex_lock(&mu); long i = next_req++ % nreqs; pthread_mutex_unlock(&mu);
        double t0 = now();
        if (send_all(c.fd, reqs[i], req_len[i]) < 0 || answer(&c) < 0) { errors++; break; }
        mine[n++] = (now() - t0) * 1e6;
    }
    pthread_mutex_lock(&mu); memcpy(lat_us + nlat, mine, n * sizeof(double)); nlat += n; pthread_mutex_unlock(&mu);
    free(mine); free(c.buf); close(c.fd);
    return NULL;
}
static int cmp(const void *a, const void *b) { double x = *(double *)a, y = *(double *)b; return x < y ? -1 : x > y; }

int main(int argc, char **argv) {
    const char *file = NULL, *dump = NULL, *protocol = "resp", *method = "GET", *header = NULL;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "-P")) protocol = argv[i + 1];
        else if (!strcmp(argv[i], "-p")) port = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "-f")) file = argv[i + 1];
        else if (!strcmp(argv[i], "-c")) conns = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "-t")) seconds = atof(argv[i + 1]);
        else if (!strcmp(argv[i], "-n")) max_requests = atol(argv[i + 1]);
        else if (!strcmp(argv[i], "-d")) dump = argv[i + 1];
        else if (!strcmp(argv[i], "-m")) method = argv[i + 1];
        else if (!strcmp(argv[i], "-H")) header = argv[i + 1];
    }
    http = !strcmp(protocol, "http");
    if (!file || conns < 1 || (!http && strcmp(protocol, "resp")) || (http && dump)) {
        fprintf(stderr, "usage: geoload [-P resp|http] -p PORT -f REQUESTS.txt [-c N] [-t S] [-n MAX] [-d OUT (resp)] "
                        "[-m METHOD] [-H HEADER] (http)\n");
        return 2;
    }
    FILE *f = fopen(file, "r"); if (!f) { perror(file); return 1; }
    size_t cap = 1024; reqs = malloc(cap * sizeof *reqs); req_len = malloc(cap * sizeof *req_len);
    char *l = NULL; size_t lcap = 0; ssize_t k;
    while ((k = getline(&l, &lcap, f)) > 0) {
        if (nreqs == cap) { cap *= 2; reqs = realloc(reqs, cap * sizeof *reqs); req_len = realloc(req_len, cap * sizeof *req_len); }
        if (!http) {  /* an inline command, sent as is (with its newline) */
            reqs[nreqs] = malloc(k); memcpy(reqs[nreqs], l, k); req_len[nreqs++] = k;
            continue;
        }
        while (k > 0 && (l[k - 1] == '\n' || l[k - 1] == '\r')) l[--k] = 0;
        if (k == 0) continue;
        size_t n = (size_t)k + strlen(method) + (header ? strlen(header) : 0) + 64; reqs[nreqs] = malloc(n);
        req_len[nreqs] = (size_t)snprintf(reqs[nreqs], n, "%s %s HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n%s%s\r\n", method,
                                          l, port, header ? header : "", header ? "\r\n" : "");
        nreqs++;
    }
    if (!nreqs) { fprintf(stderr, "%s: no requests\n", file); return 1; }
    if (dump) {
        FILE *out = fopen(dump, "w"); conn_t c = { dial(), malloc(1 << 16), 1 << 16, 0, 0 };
        for (size_t i = 0; i < nreqs; i++) {
            int first = 1;
            if (send_all(c.fd, reqs[i], req_len[i]) < 0 || value(&c, 0, out, &first) < 0) { fprintf(stderr, "connection lost\n"); return 1; }
            fputc('\n', out);
        }
        fclose(out);
        return errors ? 1 : 0;
    }
    lat_us = malloc(sizeof(double) * (max_requests + conns));
    pthread_t *t = malloc(sizeof(pthread_t) * conns);
    double start = now(), end = start + seconds;
    for (int i = 0; i < conns; i++) pthread_create(&t[i], NULL, worker, &end);
    for (int i = 0; i < conns; i++) pthread_join(t[i], NULL);
    double took = now() - start;
    qsort(lat_us, nlat, sizeof(double), cmp);
#define P(q) (nlat ? lat_us[(long)((nlat - 1) * (q))] : 0)
    printf("{\"connections\":%d,\"requests\":%ld,\"errors\":%ld,\"seconds\":%.3f,\"qps\":%.1f,"
           "\"p50_us\":%.1f,\"p90_us\":%.1f,\"p99_us\":%.1f}\n",
           conns, nlat, errors, took, nlat / took, P(0.5), P(0.9), P(0.99));
    return errors ? 1 : 0;
}
