/*
 * Archive replay oracle: runs a replay script against an archive with the
 * reference libpcp (pmSetModeHighRes, pmFetchHighRes,
 * pmFetchHighResArchive, instance profiles) and prints every result in a
 * canonical text form. pcp-archive's Replay runs the same scripts
 * (crates/pcp-archive/tests/replay_script.rs) and must print the same.
 *
 *   replay_oracle ARCHIVE SCRIPT
 *   replay_oracle tsub SEED COUNT      (timestamp differences, see below)
 *
 * Script lines (# starts a comment):
 *   pmids [all] HEX...            metrics to fetch (all: every PMID with a
 *                                 name in the archive outside domain 511,
 *                                 ascending), then these PMIDs
 *   mode forw|back|interp WHEN DELTA_NS
 *                                 WHEN: s+N, s-N (nanoseconds from the
 *                                 archive start), e+N, e-N (from its end)
 *   fetch N                       up to N pmFetchHighRes, stopping after an
 *                                 error
 *   archive N                     up to N pmFetchHighResArchive, likewise
 *   fetchq N                      fetch like "fetch", printing only how many
 *                                 results came and the last one's time
 *   exclude DOM.SERIAL INST...    pmDelProfile(these instances) (on a new
 *                                 indom, libpcp 6.0.3 then excludes all)
 *   include DOM.SERIAL [INST...]  pmAddProfile(these instances, or all)
 *   only DOM.SERIAL INST...       pmDelProfile of all, pmAddProfile of these
 *   autoprofile                   on the instance domain of the first metric
 *                                 (of "pmids all") that has one: include all,
 *                                 then exclude the instances with odd ids
 *   end                           pmGetHighResArchiveEnd
 *   reopen                        a fresh context on the archive (libpcp
 *                                 6.0.3 can crash on some sequences of
 *                                 interpolation modes in one context)
 *
 * Output: each command echoed after "> ", then for each result
 *   R SEC.NSEC NUMPMID
 *    PMID NUMVAL [VALFMT]         VALFMT 0 in place, 1 in a value block
 *     INST i LVAL                 a value in place
 *     INST b VTYPE HEX            a value block: type and bytes (host order)
 * and "E CODE" for an error.
 */
#include <pcp/pmapi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <inttypes.h>

static pmID *all;
static int nall, maxall;

static void
collect(const char *name)
{
    pmID id;
    char *n = (char *)name;
    if (pmLookupName(1, (const char **)&n, &id) != 1)
	return;
    /* derived metrics (domain 511) are the context's business, not replay's */
    if (pmID_domain(id) == 511)
	return;
    if (nall == maxall) {
	maxall = maxall ? 2 * maxall : 256;
	all = realloc(all, maxall * sizeof(pmID));
    }
    all[nall++] = id;
}

static int
cmp_pmid(const void *a, const void *b)
{
    pmID x = *(const pmID *)a, y = *(const pmID *)b;
    return x < y ? -1 : x > y;
}

static void
print_result(pmHighResResult *rp)
{
    int i, j, k;
    printf("R %lld.%09u %d\n", (long long)rp->timestamp.tv_sec, (unsigned)rp->timestamp.tv_nsec, rp->numpmid);
    for (i = 0; i < rp->numpmid; i++) {
	pmValueSet *vsp = rp->vset[i];
	printf(" %s %d", pmIDStr(vsp->pmid), vsp->numval);
	if (vsp->numval > 0)
	    printf(" %d", vsp->valfmt == PM_VAL_INSITU ? 0 : 1);
	putchar('\n');
	for (j = 0; j < vsp->numval; j++) {
	    pmValue *vp = &vsp->vlist[j];
	    if (vsp->valfmt == PM_VAL_INSITU)
		printf("  %d i %d\n", vp->inst, vp->value.lval);
	    else {
		pmValueBlock *bp = vp->value.pval;
		printf("  %d b %d ", vp->inst, bp->vtype);
		for (k = 0; k < (int)bp->vlen - PM_VAL_HDR_SIZE; k++)
		    printf("%02x", (unsigned char)bp->vbuf[k]);
		if (bp->vlen <= PM_VAL_HDR_SIZE)
		    putchar('-');
		putchar('\n');
	    }
	}
    }
}

static struct timespec
offset(struct timespec base, long long ns)
{
    long long s = base.tv_sec + ns / 1000000000LL;
    long long n = base.tv_nsec + ns % 1000000000LL;
    while (n < 0) { n += 1000000000LL; s--; }
    while (n >= 1000000000LL) { n -= 1000000000LL; s++; }
    base.tv_sec = s;
    base.tv_nsec = n;
    return base;
}

/* __pmTimestampSub's expression, as libpcp evaluates it */
static double
tsub(long long asec, int ansec, long long bsec, int bnsec)
{
    return (double)(asec - bsec + (long double)(ansec - bnsec) / (long double)1000000000);
}

static uint64_t rng = 88172645463325252ULL;
static uint64_t
next_rand(void)
{
    rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17;
    return rng;
}

static int
tsub_cases(long seed, long count)
{
    long i;
    rng ^= (uint64_t)seed * 0x9e3779b97f4a7c15ULL;
    for (i = 0; i < count; i++) {
	long long as, bs;
	int an, bn;
	double d;
	uint64_t r = next_rand();
	switch (r % 4) {
	case 0:	/* nearby times, as replay compares */
	    bs = 1500000000 + (long long)(next_rand() % 100000000);
	    as = bs + (long long)(next_rand() % 200000) - 100000;
	    break;
	case 1:	/* small offsets */
	    bs = 0;
	    as = (long long)(next_rand() % 10) - 5;
	    break;
	case 2:	/* anything */
	    as = (long long)(next_rand() >> 1) - (1LL << 62);
	    bs = (long long)(next_rand() >> 1) - (1LL << 62);
	    break;
	default:
	    bs = 1000000000;
	    as = bs + (long long)(next_rand() % 100000000);
	    break;
	}
	an = (int)(next_rand() % 1000000000);
	bn = (int)(next_rand() % 1000000000);
	if (r % 7 == 0) an = (int)(next_rand());	/* unnormalised */
	d = tsub(as, an, bs, bn);
	{
	    uint64_t bits;
	    memcpy(&bits, &d, sizeof(bits));
	    printf("%lld\t%d\t%lld\t%d\t%016" PRIx64 "\n", as, an, bs, bn, bits);
	}
    }
    return 0;
}

int
main(int argc, char **argv)
{
    FILE *f;
    char line[4096];
    pmID *list = NULL;
    int nlist = 0;
    int sts;
    pmHighResLogLabel label;
    struct timespec start, end;

    if (argc == 4 && strcmp(argv[1], "tsub") == 0)
	return tsub_cases(atol(argv[2]), atol(argv[3]));
    if (argc != 3) {
	fprintf(stderr, "usage: %s ARCHIVE SCRIPT\n", argv[0]);
	return 2;
    }
    if ((sts = pmNewContext(PM_CONTEXT_ARCHIVE, argv[1])) < 0) {
	printf("context E %d\n", sts);
	return 0;
    }
    if ((sts = pmGetHighResArchiveLabel(&label)) < 0) {
	printf("label E %d\n", sts);
	return 0;
    }
    start = label.start;
    pmTraversePMNS("", collect);
    if (nall > 0)
	qsort(all, nall, sizeof(pmID), cmp_pmid);
    {
	int i, j = 0;
	for (i = 0; i < nall; i++)
	    if (j == 0 || all[j-1] != all[i])
		all[j++] = all[i];
	nall = j;
    }
    if ((f = fopen(argv[2], "r")) == NULL) {
	perror(argv[2]);
	return 2;
    }
    while (fgets(line, sizeof(line), f) != NULL) {
	char *words[512];
	int n = 0, i;
	char *p = strtok(line, " \t\n");
	if (p == NULL || p[0] == '#')
	    continue;
	while (p != NULL && n < 512) {
	    words[n++] = p;
	    p = strtok(NULL, " \t\n");
	}
	printf(">");
	for (i = 0; i < n; i++)
	    printf(" %s", words[i]);
	putchar('\n');
	if (strcmp(words[0], "pmids") == 0) {
	    free(list);
	    /* "all" first means every archive PMID, then any given ones */
	    int first = (n > 1 && strcmp(words[1], "all") == 0) ? 2 : 1;
	    int base = first == 2 ? nall : 0;
	    nlist = base + n - first;
	    list = malloc((nlist ? nlist : 1) * sizeof(pmID));
	    if (base)
		memcpy(list, all, nall * sizeof(pmID));
	    for (i = first; i < n; i++)
		list[base + i - first] = (pmID)strtoul(words[i], NULL, 16);
	}
	else if (strcmp(words[0], "mode") == 0 && n == 4) {
	    int mode = strcmp(words[1], "forw") == 0 ? PM_MODE_FORW :
		       strcmp(words[1], "back") == 0 ? PM_MODE_BACK : PM_MODE_INTERP;
	    long long ns = strtoll(words[2] + 1, NULL, 10);
	    long long d = strtoll(words[3], NULL, 10);
	    struct timespec when, delta;
	    if (words[2][0] == 'e') {
		if ((sts = pmGetHighResArchiveEnd(&end)) < 0)
		    printf("E %d\n", sts);
		when = offset(end, ns);
	    }
	    else
		when = offset(start, ns);
	    delta.tv_sec = d / 1000000000LL;
	    delta.tv_nsec = d % 1000000000LL;
	    if ((sts = pmSetModeHighRes(mode, &when, &delta)) < 0)
		printf("E %d\n", sts);
	}
	else if ((strcmp(words[0], "fetch") == 0 || strcmp(words[0], "archive") == 0) && n == 2) {
	    long count = atol(words[1]);
	    int arch = words[0][0] == 'a';
	    for (i = 0; i < count; i++) {
		pmHighResResult *rp;
		sts = arch ? pmFetchHighResArchive(&rp) : pmFetchHighRes(nlist, list, &rp);
		if (sts < 0) {
		    printf("E %d\n", sts);
		    break;
		}
		print_result(rp);
		pmFreeHighResResult(rp);
	    }
	}
	else if (strcmp(words[0], "fetchq") == 0 && n == 2) {
	    long count = atol(words[1]), got = 0;
	    long long sec = 0;
	    unsigned nsec = 0;
	    for (i = 0; i < count; i++) {
		pmHighResResult *rp;
		if ((sts = pmFetchHighRes(nlist, list, &rp)) < 0)
		    break;
		got++;
		sec = (long long)rp->timestamp.tv_sec;
		nsec = (unsigned)rp->timestamp.tv_nsec;
		pmFreeHighResResult(rp);
	    }
	    printf("Q %ld %lld.%09u\n", got, sec, nsec);
	}
	else if ((strcmp(words[0], "exclude") == 0 || strcmp(words[0], "only") == 0 ||
		  strcmp(words[0], "include") == 0) && n >= 2) {
	    unsigned dom, serial;
	    int insts[512];
	    pmInDom indom;
	    sscanf(words[1], "%u.%u", &dom, &serial);
	    indom = pmInDom_build(dom, serial);
	    for (i = 2; i < n; i++)
		insts[i-2] = atoi(words[i]);
	    if (words[0][0] == 'o') {
		pmDelProfile(indom, 0, NULL);
		sts = pmAddProfile(indom, n - 2, insts);
	    }
	    else if (words[0][0] == 'i')
		sts = pmAddProfile(indom, n - 2, n > 2 ? insts : NULL);
	    else
		sts = pmDelProfile(indom, n - 2, insts);
	    if (sts < 0)
		printf("E %d\n", sts);
	}
	else if (strcmp(words[0], "autoprofile") == 0) {
	    for (i = 0; i < nall; i++) {
		pmDesc desc;
		if (pmLookupDesc(all[i], &desc) < 0 || desc.indom == PM_INDOM_NULL)
		    continue;
		int *ids = NULL, k, m = 0;
		char **names = NULL;
		int ni = pmGetInDomArchive(desc.indom, &ids, &names);
		int *odd = malloc((ni > 0 ? ni : 1) * sizeof(int));
		for (k = 0; k < ni; k++)
		    if (ids[k] & 1)
			odd[m++] = ids[k];
		printf("indom %s\n", pmInDomStr(desc.indom));
		pmAddProfile(desc.indom, 0, NULL);
		if (m > 0)
		    pmDelProfile(desc.indom, m, odd);
		free(odd);
		free(ids);
		free(names);
		break;
	    }
	}
	else if (strcmp(words[0], "reopen") == 0) {
	    pmDestroyContext(pmWhichContext());
	    if ((sts = pmNewContext(PM_CONTEXT_ARCHIVE, argv[1])) < 0) {
		printf("context E %d\n", sts);
		return 0;
	    }
	}
	else if (strcmp(words[0], "end") == 0) {
	    if ((sts = pmGetHighResArchiveEnd(&end)) < 0)
		printf("E %d\n", sts);
	    else
		printf("T %lld.%09ld\n", (long long)end.tv_sec, (long)end.tv_nsec);
	}
	else
	    printf("? bad command\n");
    }
    fclose(f);
    return 0;
}
