/* libpcp side of the many-hosts benchmark (scripts/bench-many-hosts.sh):
 *   chosts SPEC[,SPEC...] K T NAME...
 * opens K host contexts, context i to the (i mod list length)th SPEC, then
 * times five fetch rounds (pmUseContext + pmFetch + pmFreeResult for every
 * context; T > 1 splits the contexts over T threads, each calling
 * pmUseContext for its own share, as libpcp's per-thread current context
 * allows) and prints "open_seconds best_round_seconds cpu_seconds_per_round",
 * as crates/pcp/examples/bench_fetch.rs hosts does. */
#include <pcp/pmapi.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/resource.h>

static int *ctx, nids, failed;
static pmID ids[16];

struct part { int from, to; };

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec / 1e9;
}

static double cpu(void) {
    struct rusage u;
    getrusage(RUSAGE_SELF, &u);
    return u.ru_utime.tv_sec + u.ru_utime.tv_usec / 1e6 + u.ru_stime.tv_sec + u.ru_stime.tv_usec / 1e6;
}

static void *round_part(void *arg) {
    struct part *p = arg;
    for (int i = p->from; i < p->to; i++) {
        pmResult *r;
        int s;
        if ((s = pmUseContext(ctx[i])) < 0 || (s = pmFetch(nids, ids, &r)) < 0) {
            fprintf(stderr, "context %d: %s\n", i, pmErrStr(s));
            failed = 1;
            return NULL;
        }
        if (r->numpmid != nids)
            failed = 1;
        pmFreeResult(r);
    }
    return NULL;
}

int main(int argc, char **argv) {
    if (argc < 5) { fprintf(stderr, "usage: chosts SPEC[,SPEC...] K T NAME...\n"); return 1; }
    int k = atoi(argv[2]), t = atoi(argv[3]);
    nids = argc - 4;
    if (k < 1 || t < 1 || nids > 16) return 1;
    char *specs[256];
    int nspecs = 0;
    for (char *s = strtok(argv[1], ","); s && nspecs < 256; s = strtok(NULL, ","))
        specs[nspecs++] = s;
    ctx = calloc(k, sizeof(int));
    double start = now();
    for (int i = 0; i < k; i++) {
        if ((ctx[i] = pmNewContext(PM_CONTEXT_HOST, specs[i % nspecs])) < 0) {
            fprintf(stderr, "pmNewContext %d: %s\n", i, pmErrStr(ctx[i]));
            return 1;
        }
    }
    int s = pmLookupName(nids, (const char **)(argv + 4), ids);
    if (s != nids) { fprintf(stderr, "pmLookupName: %s\n", pmErrStr(s)); return 1; }
    double open = now() - start, best = 1e9;
    pthread_t th[256];
    struct part parts[256];
    if (t > 256) t = 256;
    int chunk = (k + t - 1) / t;
    double cpu0 = cpu();
    for (int round = 0; round < 5; round++) {
        double a = now();
        int n = 0;
        for (int i = 0; i < k; i += chunk, n++) {
            parts[n].from = i;
            parts[n].to = i + chunk < k ? i + chunk : k;
            if (t == 1)
                round_part(&parts[n]);
            else
                pthread_create(&th[n], NULL, round_part, &parts[n]);
        }
        if (t > 1)
            for (int j = 0; j < n; j++)
                pthread_join(th[j], NULL);
        if (failed) return 1;
        double w = now() - a;
        if (w < best) best = w;
    }
    printf("%.6f %.6f %.6f\n", open, best, (cpu() - cpu0) / 5);
    return 0;
}
