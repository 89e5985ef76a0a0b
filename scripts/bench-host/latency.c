/* libpcp side of bench_fetch's "latency" mode (scripts/bench-host.sh):
 *   clatency SPEC N NAME...
 * N fetches (pmFetch + pmFreeResult), each timed; prints the total and
 * the 50th, 90th, 99th, 99.9th percentile and the longest fetch in
 * microseconds, in bench_fetch's format. On a loaded machine the total
 * is mostly the slow tail (the pmcd or PMDA waiting for a CPU); the
 * median is the client's and pmcd's own round trip. */
#include <pcp/pmapi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static int cmp(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

int main(int argc, char **argv) {
    if (argc < 4) { fprintf(stderr, "usage: clatency SPEC N NAME...\n"); return 1; }
    int n = atoi(argv[2]), k = argc - 3, s;
    pmID ids[16];
    if (n < 1 || k > 16) return 1;
    if ((s = pmNewContext(PM_CONTEXT_HOST, argv[1])) < 0) { fprintf(stderr, "pmNewContext: %s\n", pmErrStr(s)); return 1; }
    if ((s = pmLookupName(k, (const char **)(argv + 3), ids)) != k) { fprintf(stderr, "pmLookupName: %s\n", pmErrStr(s)); return 1; }
    double *took = malloc(n * sizeof(double)), total = 0;
    for (int i = 0; i < n; i++) {
        pmResult *r;
        double a = now();
        if ((s = pmFetch(k, ids, &r)) < 0) { fprintf(stderr, "pmFetch: %s\n", pmErrStr(s)); return 1; }
        pmFreeResult(r);
        took[i] = now() - a;
        total += took[i];
    }
    qsort(took, n, sizeof(double), cmp);
#define AT(q) took[(int)(n * (q)) < n ? (int)(n * (q)) : n - 1]
    printf("total %.3f s  p50 %.0f  p90 %.0f  p99 %.0f  p99.9 %.0f  max %.0f us\n",
           total / 1e6, AT(0.5), AT(0.9), AT(0.99), AT(0.999), took[n - 1]);
    return 0;
}
