#include <pcp/pmapi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
int main(int argc, char **argv) {
    if (argc < 4) { fprintf(stderr, "usage: cfetch SPEC N NAME...\n"); return 1; }
    int n = atoi(argv[2]), k = argc - 3;
    pmID ids[16];
    if (k > 16) return 1;
    int c = pmNewContext(PM_CONTEXT_HOST, argv[1]);
    if (c < 0) { fprintf(stderr, "pmNewContext: %s\n", pmErrStr(c)); return 1; }
    int s = pmLookupName(k, (const char **)(argv + 3), ids);
    if (s != k) { fprintf(stderr, "pmLookupName: %s\n", pmErrStr(s)); return 1; }
    struct timespec a, b;
    long values = 0;
    clock_gettime(CLOCK_MONOTONIC, &a);
    for (int i = 0; i < n; i++) {
        pmResult *r;
        if ((s = pmFetch(k, ids, &r)) < 0) { fprintf(stderr, "pmFetch: %s\n", pmErrStr(s)); return 1; }
        values += r->numpmid;
        pmFreeResult(r);
    }
    clock_gettime(CLOCK_MONOTONIC, &b);
    if (values != (long)n * k) return 1;
    printf("%.6f\n", (b.tv_sec - a.tv_sec) + (b.tv_nsec - a.tv_nsec) / 1e9);
    return 0;
}
