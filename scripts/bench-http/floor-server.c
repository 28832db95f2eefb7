/* The least an HTTP/1.1 server can do, for scripts/bench-http.sh: one thread a connection, blocking
 * reads, the same fixed 200 answer to every request (a request being anything up to an empty line).
 * What geoload -P http measures against it is this machine's round trip: the floor under any server's
 * q/s at one connection, Nearby's and Redis's alike (BENCHMARKS.md, "HTTP server").
 *
 * usage: floor-server PORT      (loopback only; runs until killed)                              */
#define _GNU_SOURCE
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
static const char answer[] = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 15\r\n\r\n{\"status\":\"ok\"}";
static void *serve(void *arg) {
    int fd = (int)(long)arg; char buf[65536]; size_t len = 0;
    for (;;) {
        ssize_t n = read(fd, buf + len, sizeof buf - len);
        if (n <= 0) break;
        len += n;
        char *end;
        while ((end = memmem(buf, len, "\r\n\r\n", 4))) {
            size_t used = end + 4 - buf;
            if (write(fd, answer, sizeof answer - 1) < 0) goto done;
            memmove(buf, buf + used, len - used); len -= used;
        }
    }
done:
    close(fd); return NULL;
}
int main(int argc, char **argv) {
    int port = argc > 1 ? atoi(argv[1]) : 8080, one = 1;
    int s = socket(AF_INET, SOCK_STREAM, 0);
    setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    struct sockaddr_in a = {0}; a.sin_family = AF_INET; a.sin_port = htons(port); a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (bind(s, (struct sockaddr *)&a, sizeof a) || listen(s, 128)) { perror("bind"); return 1; }
    for (;;) {
        int fd = accept(s, NULL, NULL); if (fd < 0) continue;
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        pthread_t t; pthread_create(&t, NULL, serve, (void *)(long)fd); pthread_detach(t);
    }
}
