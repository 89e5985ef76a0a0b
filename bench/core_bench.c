/*
 * The C side of scripts/bench.sh: time libpcp's pmUnitsStr, pmParseUnitsStr
 * and pmErrStr over the inputs of pcp-core's golden files, and print
 * nanoseconds per call.  The Rust side is crates/pcp-core/examples/core_bench.rs
 * with the same inputs and loop counts.
 */
#define _GNU_SOURCE
#include <pcp/pmapi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double
now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

static char **
read_col0(const char *path, int hexdecode, int *n)
{
    FILE *f = fopen(path, "r");
    char line[4096];
    char **v = NULL;
    int cap = 0;
    *n = 0;
    if (f == NULL) {
	perror(path);
	exit(1);
    }
    while (fgets(line, sizeof(line), f)) {
	char *tab = strchr(line, '\t');
	if (tab)
	    *tab = '\0';
	if (*n == cap) {
	    cap = cap ? 2 * cap : 1024;
	    v = realloc(v, cap * sizeof(*v));
	}
	if (hexdecode) {
	    size_t len = strlen(line), i;
	    char *s = calloc(1, len / 2 + 1);
	    if (strcmp(line, "-") != 0)
		for (i = 0; i + 1 < len; i += 2)
		    sscanf(line + i, "%2hhx", (unsigned char *)&s[i / 2]);
	    v[(*n)++] = s;
	}
	else
	    v[(*n)++] = strdup(line);
    }
    fclose(f);
    return v;
}

int
main(int argc, char **argv)
{
    const char *dir = argc > 1 ? argv[1] : "crates/pcp-core/tests/golden";
    int rounds = argc > 2 ? atoi(argv[2]) : 20;
    char path[1024];
    int nu, np, ne, r, i;
    char **units, **parse, **errs;
    double t0, t;
    size_t sink = 0;

    snprintf(path, sizeof(path), "%s/units.tsv", dir);
    units = read_col0(path, 0, &nu);
    snprintf(path, sizeof(path), "%s/parse.tsv", dir);
    parse = read_col0(path, 1, &np);
    snprintf(path, sizeof(path), "%s/err.tsv", dir);
    errs = read_col0(path, 0, &ne);

    t0 = now();
    for (r = 0; r < rounds; r++)
	for (i = 0; i < nu; i++) {
	    unsigned int x = (unsigned int)strtoul(units[i], NULL, 16);
	    pmUnits u;
	    char buf[64];
	    memcpy(&u, &x, 4);
	    sink += strlen(pmUnitsStr_r(&u, buf, sizeof(buf)));
	}
    t = now() - t0;
    printf("units_str %.1f\n", t * 1e9 / ((double)rounds * nu));

    t0 = now();
    for (r = 0; r < rounds; r++)
	for (i = 0; i < np; i++) {
	    pmUnits u;
	    double m;
	    char *e = NULL;
	    if (strcasestr(parse[i], "time-") != NULL)
		continue;	/* libpcp may abort on these */
	    sink += pmParseUnitsStr(parse[i], &u, &m, &e);
	    free(e);
	}
    t = now() - t0;
    printf("parse_units %.1f\n", t * 1e9 / ((double)rounds * np));

    t0 = now();
    for (r = 0; r < rounds; r++)
	for (i = 0; i < ne; i++) {
	    char buf[PM_MAXERRMSGLEN];
	    sink += strlen(pmErrStr_r(atoi(errs[i]), buf, sizeof(buf)));
	}
    t = now() - t0;
    printf("err_str %.1f\n", t * 1e9 / ((double)rounds * ne));
    fprintf(stderr, "sink %zu\n", sink);
    return 0;
}
