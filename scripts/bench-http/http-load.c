/* The HTTP twin of redis-geoload.c for scripts/bench-http.sh: the same client, line for line where the
 * protocols allow, so that Nearby and Redis are timed by the same kind of program. C connections (one
 * thread each, keep-alive, one request at a time, blocking reads and writes) cycle through a file of
 * request targets for a fixed time; prints q/s and latency percentiles as one JSON line, with the
 * count of answers that were not 200 as errors. wrk, with its event loop and a Lua call a request,
 * stays the load generator at 2/16/64 connections; this is the one-client measurement's counterpart
 * of Redis's.
 *
 * usage: http-load -p PORT -f PATHS.txt [-c CONNECTIONS] [-t SECONDS] [-n MAX_REQUESTS]
 * PATHS.txt: one request target a line ("/v1/places?lat=…"), as scripts/bench-http/workload.py writes them.
 * Answers: Content-Length or chunked bodies (Nearby streams answers over 2,000 rows).              */
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

static char **reqs; static size_t *req_len; static size_t nreqs;
static int port = 8080, conns = 1; static double seconds = 10; static long max_requests = 1000000;
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
/* Skips n bytes of body. */
static int skip(conn_t *c, long n) {
    while (n > 0) {
        if (c->pos == c->len && fill(c) < 0) return -1;
        long k = (long)(c->len - c->pos) < n ? (long)(c->len - c->pos) : n;
        c->pos += k; n -= k;
    }
    return 0;
}
/* Reads one response: status line, headers, then a Content-Length or chunked body. */
static int response(conn_t *c) {
    long s = line(c); if (s < 0) return -1;
    int status = atoi(c->buf + s + 9);  /* "HTTP/1.1 200 OK" */
    long length = -1; int chunked = 0;
    for (;;) {
        s = line(c); if (s < 0) return -1;
        char *h = c->buf + s; long n = c->pos - s;
        if (n <= 2) break;  /* the empty line */
        if (!strncasecmp(h, "content-length:", 15)) length = atol(h + 15);
        else if (!strncasecmp(h, "transfer-encoding:", 18) && strstr(h, "chunked")) chunked = 1;
    }
    if (chunked) {
        for (;;) {
            s = line(c); if (s < 0) return -1;
            long n = strtol(c->buf + s, NULL, 16);
            if (skip(c, n + 2) < 0) return -1;  /* the chunk and its \r\n; the last one's is the trailer's end */
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
static void *worker(void *arg) {
    double end = *(double *)arg;
    conn_t c = { dial(), malloc(1 << 16), 1 << 16, 0, 0 };
    double *mine = malloc(sizeof(double) * (max_requests / conns + 1)); long n = 0;
    while (now() < end && n < max_requests / conns) {
        pthread_mutex_lock(&mu); long i = next_req++ % nreqs; pthread_mutex_unlock(&mu);
        double t0 = now();
        if (send_all(c.fd, reqs[i], req_len[i]) < 0 || response(&c) < 0) { errors++; break; }
        mine[n++] = (now() - t0) * 1e6;
    }
    pthread_mutex_lock(&mu); memcpy(lat_us + nlat, mine, n * sizeof(double)); nlat += n; pthread_mutex_unlock(&mu);
    free(mine); free(c.buf); close(c.fd);
    return NULL;
}
static int cmp(const void *a, const void *b) { double x = *(double *)a, y = *(double *)b; return x < y ? -1 : x > y; }

int main(int argc, char **argv) {
    const char *file = NULL;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "-p")) port = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "-f")) file = argv[i + 1];
        else if (!strcmp(argv[i], "-c")) conns = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "-t")) seconds = atof(argv[i + 1]);
        else if (!strcmp(argv[i], "-n")) max_requests = atol(argv[i + 1]);
    }
    if (!file || conns < 1) { fprintf(stderr, "usage: http-load -p PORT -f PATHS.txt [-c N] [-t S] [-n MAX]\n"); return 2; }
    FILE *f = fopen(file, "r"); if (!f) { perror(file); return 1; }
    size_t cap = 1024; reqs = malloc(cap * sizeof *reqs); req_len = malloc(cap * sizeof *req_len);
    char *l = NULL; size_t lcap = 0; ssize_t k;
    while ((k = getline(&l, &lcap, f)) > 0) {  /* a target; the request as wrk.format("GET", target) writes it */
        while (k > 0 && (l[k - 1] == '\n' || l[k - 1] == '\r')) l[--k] = 0;
        if (k == 0) continue;
        if (nreqs == cap) { cap *= 2; reqs = realloc(reqs, cap * sizeof *reqs); req_len = realloc(req_len, cap * sizeof *req_len); }
        size_t n = (size_t)k + 64; reqs[nreqs] = malloc(n);
        req_len[nreqs] = (size_t)snprintf(reqs[nreqs], n, "GET %s HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n\r\n", l, port);
        nreqs++;
    }
    if (!nreqs) { fprintf(stderr, "%s: no request targets\n", file); return 1; }
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
