/*
 * pcp-rs derived-metric evaluation oracle: registers derived metrics with
 * the C libpcp (-lpcp), opens an archive context, fetches them record by
 * record (the context's initial mode: forward from the archive's start)
 * and prints what came back, for crates/pcp-derived/tests/eval_oracle.rs.
 *
 *   derived_eval_oracle ARCHIVE NAME=EXPR...
 *
 * Output lines:
 *   R  name  status                    pmRegisterDerivedMetric (0 or error)
 *   D  name  status                    pmLookupName/pmLookupDesc: 0 or error
 *   D  name  0  type  indom  sem  units    (indom, units word in hex)
 *   T  sec  usec                       one fetch's timestamp
 *   V  name  numval                    then one line per value:
 *   I  inst  value                     integers in decimal, float and
 *                                      double as the hex of their bits,
 *                                      strings as they are
 *   E  status                          the fetch that ended the run
 *
 * This is test tooling written for pcp-rs; it is not part of any build.
 */
#include <pcp/pmapi.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int
main(int argc, char **argv)
{
    int n = argc - 2;
    char **names;
    pmID *pmids;
    pmDesc *descs;
    int *ok;
    int i, j, k, sts, ctx, valid = 0;

    if (argc < 3) {
	fprintf(stderr, "usage: %s ARCHIVE NAME=EXPR...\n", argv[0]);
	return 2;
    }
    names = calloc(n, sizeof(char *));
    pmids = calloc(n, sizeof(pmID));
    descs = calloc(n, sizeof(pmDesc));
    ok = calloc(n, sizeof(int));
    for (i = 0; i < n; i++) {
	char *def = strdup(argv[i + 2]);
	char *eq = strchr(def, '=');
	char *err = NULL;
	if (eq == NULL)
	    return 2;
	*eq = '\0';
	names[i] = def;
	sts = pmRegisterDerivedMetric(def, eq + 1, &err);
	printf("R\t%s\t%d\n", def, sts);
	free(err);
    }
    if ((ctx = pmNewContext(PM_CONTEXT_ARCHIVE, argv[1])) < 0) {
	printf("C\t%d\n", ctx);
	return 0;
    }
    for (i = 0; i < n; i++) {
	sts = pmLookupName(1, (const char **)&names[i], &pmids[i]);
	if (sts >= 0)
	    sts = pmLookupDesc(pmids[i], &descs[i]);
	if (sts < 0) {
	    printf("D\t%s\t%d\n", names[i], sts);
	    continue;
	}
	printf("D\t%s\t0\t%d\t%08x\t%d\t%08x\n", names[i], descs[i].type, descs[i].indom, descs[i].sem,
	       *(unsigned int *)&descs[i].units);
	ok[i] = 1;
	valid++;
    }
    if (valid == 0)
	return 0;
    {
	pmID *list = calloc(valid, sizeof(pmID));
	int *which = calloc(valid, sizeof(int));
	for (i = k = 0; i < n; i++) {
	    if (ok[i]) {
		which[k] = i;
		list[k++] = pmids[i];
	    }
	}
	for (;;) {
	    pmResult *rp;
	    if ((sts = pmFetch(valid, list, &rp)) < 0) {
		printf("E\t%d\n", sts);
		break;
	    }
	    printf("T\t%ld\t%ld\n", (long)rp->timestamp.tv_sec, (long)rp->timestamp.tv_usec);
	    for (k = 0; k < rp->numpmid; k++) {
		pmValueSet *vs = rp->vset[k];
		pmDesc *d = &descs[which[k]];
		printf("V\t%s\t%d\n", names[which[k]], vs->numval);
		for (j = 0; j < vs->numval; j++) {
		    pmAtomValue a;
		    printf("I\t%d\t", vs->vlist[j].inst);
		    if ((sts = pmExtractValue(vs->valfmt, &vs->vlist[j], d->type, &a, d->type)) < 0) {
			printf("!%d\n", sts);
			continue;
		    }
		    switch (d->type) {
		    case PM_TYPE_32: printf("%d\n", a.l); break;
		    case PM_TYPE_U32: printf("%u\n", a.ul); break;
		    case PM_TYPE_64: printf("%" PRId64 "\n", a.ll); break;
		    case PM_TYPE_U64: printf("%" PRIu64 "\n", a.ull); break;
		    case PM_TYPE_FLOAT: { uint32_t b; memcpy(&b, &a.f, 4); printf("f%08x\n", b); break; }
		    case PM_TYPE_DOUBLE: { uint64_t b; memcpy(&b, &a.d, 8); printf("d%016" PRIx64 "\n", b); break; }
		    case PM_TYPE_STRING: printf("s%s\n", a.cp); free(a.cp); break;
		    default: printf("?\n"); break;
		    }
		}
	    }
	    pmFreeResult(rp);
	}
    }
    return 0;
}
