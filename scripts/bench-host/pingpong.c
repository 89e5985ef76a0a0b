/* Loopback round-trip floor: a client sends REQ bytes, a forked server
   answers with RESP bytes, N times, over TCP (127.0.0.1, TCP_NODELAY) or a
   Unix stream socket. Prints seconds for the N round trips. */
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <arpa/inet.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
static int full(int fd, char *buf, int len, int rd) {
    for (int got = 0; got < len;) {
        int s = rd ? read(fd, buf + got, len - got) : write(fd, buf + got, len - got);
        if (s <= 0) return -1;
        got += s;
    }
    return 0;
}
int main(int argc, char **argv) {
    if (argc != 6) { fprintf(stderr, "usage: pingpong tcp|unix PATH N REQ RESP\n"); return 1; }
    int unix_ = strcmp(argv[1], "unix") == 0, n = atoi(argv[3]), req = atoi(argv[4]), resp = atoi(argv[5]);
    char buf[65536] = {0};
    struct sockaddr_in in = {0};
    struct sockaddr_un un = {0};
    struct sockaddr *sa;
    socklen_t len;
    int one = 1, l = socket(unix_ ? AF_UNIX : AF_INET, SOCK_STREAM, 0);
    if (unix_) {
        un.sun_family = AF_UNIX;
        strncpy(un.sun_path, argv[2], sizeof un.sun_path - 1);
        unlink(un.sun_path);
        sa = (struct sockaddr *)&un; len = sizeof un;
    } else {
        in.sin_family = AF_INET;
        in.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        sa = (struct sockaddr *)&in; len = sizeof in;
    }
    if (bind(l, sa, len) < 0 || listen(l, 1) < 0) { perror("bind"); return 1; }
    getsockname(l, sa, &len);
    pid_t pid = fork();
    if (pid == 0) {
        int c = accept(l, NULL, NULL);
        if (!unix_) setsockopt(c, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        while (full(c, buf, req, 1) == 0 && full(c, buf, resp, 0) == 0) {}
        _exit(0);
    }
    int c = socket(unix_ ? AF_UNIX : AF_INET, SOCK_STREAM, 0);
    if (connect(c, sa, len) < 0) { perror("connect"); return 1; }
    if (!unix_) setsockopt(c, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    for (int i = 0; i < n; i++)
        if (full(c, buf, req, 0) < 0 || full(c, buf, resp, 1) < 0) { perror("pingpong"); return 1; }
    clock_gettime(CLOCK_MONOTONIC, &b);
    close(c);
    waitpid(pid, NULL, 0);
    if (unix_) unlink(un.sun_path);
    printf("%.6f\n", (b.tv_sec - a.tv_sec) + (b.tv_nsec - a.tv_nsec) / 1e9);
    return 0;
}
