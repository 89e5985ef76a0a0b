/*
 * pcp-rs differential oracle: asks the C libpcp (-lpcp) for the answers that
 * pcp-core must reproduce, and prints them as tab-separated golden lines.
 *
 *   oracle KIND SEED COUNT
 *
 * KIND is one of: units parse conv extract err atom ids printvalue number
 * Every case is generated from SEED with a private PRNG, so the same
 * command always prints the same cases (the answers come from libpcp).
 * Cases a kind always includes (every type pair, every error code, every
 * dimension combination) come first; COUNT more random cases follow.
 *
 * Columns are documented per kind in oracle/README.md.  Byte strings are
 * written as lowercase hex; "-" stands for an empty hex string.  When libpcp
 * itself dies on an input (an assert or SIGFPE inside libpcp), the result
 * column reads "crash": pcp-rs must return an error there instead.
 *
 * This is test tooling written for pcp-rs; it is not part of any build.
 */
#include <pcp/pmapi.h>
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <inttypes.h>
#include <math.h>
#include "tsv.h"

static int
below(int n)
{
    return (int)(rnd() % (uint64_t)n);
}

static void
hexout(const unsigned char *p, size_t n)
{
    size_t i;
    if (n == 0) {
	fputc('-', stdout);
	return;
    }
    for (i = 0; i < n; i++)
	printf("%02x", p[i]);
}

static void
arm_crash_handlers(void)
{
    signal(SIGFPE, on_crash);
    signal(SIGABRT, on_crash);
}

static uint32_t
units_bits(pmUnits u)
{
    uint32_t x;
    memcpy(&x, &u, sizeof(x));
    return x;
}

static pmUnits
bits_units(uint32_t x)
{
    pmUnits u;
    memcpy(&u, &x, sizeof(u));
    return u;
}

static uint32_t
make_units(int ds, int dt, int dc, int ss, int st, int sc)
{
    return ((uint32_t)(ds & 0xf) << 28) | ((uint32_t)(dt & 0xf) << 24) |
	((uint32_t)(dc & 0xf) << 20) | ((uint32_t)(ss & 0xf) << 16) |
	((uint32_t)(st & 0xf) << 12) | ((uint32_t)(sc & 0xf) << 8);
}

/* ---------------------------------------------------------------- units */

static void
units_case(uint32_t x)
{
    printf("%08x\t", x);
    pmUnits u = bits_units(x);
    escout(pmUnitsStr(&u));
    putchar('\n');
}

static void
kind_units(int count)
{
    int a, b, c, s;
    /* every dimension combination, canonical scales */
    for (a = -8; a < 8; a++)
	for (b = -8; b < 8; b++)
	    for (c = -8; c < 8; c++)
		units_case(make_units(a, b, c, 0, 0, 0));
    /* every scale for each single dimension power */
    for (a = -8; a < 8; a++)
	for (s = 0; s < 16; s++) {
	    units_case(make_units(a, 0, 0, s, 0, 0));
	    units_case(make_units(0, a, 0, 0, s, 0));
	    units_case(make_units(0, 0, a, 0, 0, s));
	    units_case(make_units(0, 0, 0, s, s, s));
	}
    while (count-- > 0) {
	uint32_t x = (uint32_t)rnd();
	if (below(2))
	    x &= 0xffffff00;	/* pad is usually zero */
	units_case(x);
    }
}

/* ---------------------------------------------------------------- parse */

static const char *space_words[] = {
    "bytes", "byte", "KB", "KiB", "Kbytes", "Kbyte", "Kibibytes", "Kibibyte",
    "Kilobytes", "Kilobyte", "MB", "MiB", "Mbytes", "Mbyte", "Mebibytes",
    "Megabyte", "GB", "GiB", "Gbyte", "Gigabytes", "TB", "Tbyte",
    "Terabytes", "PB", "Pbyte", "Petabyte", "EB", "Ebyte", "Exbibytes",
    "ZB", "Zbyte", "Zettabytes", "YB", "Ybyte", "Yobibyte", "space-0",
    "space-1", "space-9", "space-15", "space-16",
};
static const char *time_words[] = {
    "nanoseconds", "nanosecond", "nanosec", "ns", "microseconds", "microsec",
    "us", "milliseconds", "millisec", "ms", "seconds", "second", "sec", "s",
    "minutes", "minute", "min", "hours", "hour", "hr", "h", "time-0",
    "time-1", "time-5", "time-6", "time-15",
};
static const char *count_words[] = {
    "count", "counts", "count x 10", "count x 10^2", "count x 10^-3",
    "count x 10^7", "count x 10^-8", "count x 10^8", "count x 10^6",
};
static const char *exp_words[] = {
    "^2", "^-1", "^-2", "^0", "^1", "^3", "^7", "^8", "^15", "^16", "^-8",
    "^-9", "^", "^x",
};
static const char *num_words[] = {
    "2", "10", "1.5", "-1", "-0.5", ".5", "5.", "1e3", "1E-3", "0x10",
    "-0x1p4", "-inf", "-nan", "1e999", "1e-400", "-", ".", "0", "1e",
    "3.14159", "1024", "0.001", "-.25e2", "4.9e-324",
};
static const char *junk_words[] = {
    "x", "foo", "10^6", "x 10^6", "/", "//", "^", "\t", "  ", "Byte",
    "SEC", "kb", "mS", "COUNT", "bytesx", "secs", "-sec", "count x  10",
};

static const char *
pick(const char **v, int n)
{
    return v[below(n)];
}
#define PICK(v) pick(v, (int)(sizeof(v) / sizeof(v[0])))

static void
random_case_word(char *dst, const char *w)
{
    /* flip the case of some letters: the keywords match case-insensitively */
    size_t i;
    strcpy(dst, w);
    if (below(4) == 0)
	for (i = 0; dst[i]; i++)
	    if (below(3) == 0 && ((dst[i] >= 'a' && dst[i] <= 'z') || (dst[i] >= 'A' && dst[i] <= 'Z')))
		dst[i] ^= 0x20;
}

static void
gen_units_text(char *buf, size_t len)
{
    int n = 1 + below(5), i;
    char w[64];
    buf[0] = '\0';
    if (below(3) == 0) {
	/* start from libpcp's own rendering of a random pmUnits */
	pmUnits u = bits_units(make_units(below(16) - 8, below(16) - 8, below(16) - 8,
		below(10), below(7), below(16) - 8));
	strncat(buf, pmUnitsStr(&u), len - 1);
	if (below(2))
	    return;
    }
    for (i = 0; i < n; i++) {
	const char *sep = below(8) == 0 ? "" : (below(6) == 0 ? "  " : " ");
	int k = below(20);
	if (k < 5)
	    random_case_word(w, PICK(space_words));
	else if (k < 10)
	    random_case_word(w, PICK(time_words));
	else if (k < 13)
	    random_case_word(w, PICK(count_words));
	else if (k < 16)
	    strcpy(w, PICK(num_words));
	else if (k < 18)
	    strcpy(w, "/");
	else
	    strcpy(w, PICK(junk_words));
	if (k < 13 && below(3) == 0)
	    strcat(w, PICK(exp_words));
	if (strlen(buf) + strlen(sep) + strlen(w) + 1 < len) {
	    if (i > 0)
		strcat(buf, sep);
	    strcat(buf, w);
	}
    }
    if (below(10) == 0 && strlen(buf) + 2 < len)
	strcat(buf, below(2) ? " " : "\t");
}

static void
parse_case(const char *s)
{
    pmUnits u;
    double mult = 0;
    char *err = NULL;
    int sts, sig;
    uint64_t mb;

    hexout((const unsigned char *)s, strlen(s));
    putchar('\t');
    fflush(stdout);
    if ((sig = sigsetjmp(crash_env, 1)) != 0) {
	arm_crash_handlers();
	printf("crash\n");
	return;
    }
    sts = pmParseUnitsStr(s, &u, &mult, &err);
    memcpy(&mb, &mult, sizeof(mb));
    printf("%d\t%08x\t%016" PRIx64 "\t", sts, units_bits(u), mb);
    escout(err ? err : "");
    putchar('\n');
    free(err);
}

static void
kind_parse(int count)
{
    static const char *fixed[] = {
	"", " ", "byte", "Kbyte / sec", "count x 10^6", "millisec / count",
	"/ sec", "sec / sec", "Mbyte^2 / sec^2", "10 Kbyte / 2 sec",
	"byte / Kbyte", "count / count x 10^3", "hour / min", "x 10^6",
	"space-9 / space-10", "time-5 / time-3", "time-6", "sec^8",
	"/ sec^8", "/ sec^9", "byte^7 / byte^-1", "count x 10^-8 / count x 10^7",
	"-1 / -1", "nanosec microsec", "sec sec", "sec^0 min",
	"byte^-8 / byte", "count x 10^2^3", "1e999 byte", "0x10 byte",
	"-inf / sec", "-nan", "Byte / SEC", "KB/s", "bytes/s", "1/s",
    };
    size_t i;
    char buf[200];
    for (i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++)
	parse_case(fixed[i]);
    while (count-- > 0) {
	gen_units_text(buf, sizeof(buf));
	parse_case(buf);
    }
}

/* ---------------------------------------------------------------- values */

static const int all_types[] = {
    PM_TYPE_NOSUPPORT, PM_TYPE_32, PM_TYPE_U32, PM_TYPE_64, PM_TYPE_U64,
    PM_TYPE_FLOAT, PM_TYPE_DOUBLE, PM_TYPE_STRING, PM_TYPE_AGGREGATE,
    PM_TYPE_AGGREGATE_STATIC, PM_TYPE_EVENT, PM_TYPE_HIGHRES_EVENT,
    PM_TYPE_UNKNOWN, 11, 42,
};
#define NTYPES ((int)(sizeof(all_types) / sizeof(all_types[0])))

/* an "interesting" 64-bit pattern for a value of the given numeric type */
static uint64_t
interesting_bits(int type)
{
    static const int64_t ints[] = {
	0, 1, -1, 2, 127, 128, 255, 1000, -1000, 0x7fffffff, 0x80000000LL,
	-0x7fffffffLL, -0x80000000LL, -0x80000001LL, 0xffffffffLL,
	0x100000000LL, 0x7fffffffffffffffLL, INT64_MIN, INT64_MIN + 1,
	1000000007, 123456789012345LL, 1LL << 53, (1LL << 53) + 1, 16777217,
    };
    static const double dbls[] = {
	0.0, -0.0, 0.5, 1.0, -1.0, 1.5, -1.5, 2147483647.0, 2147483646.9,
	2147483648.0, -2147483648.0, -2147483649.0, 4294967295.0,
	4294967294.5, 4294967296.0, 9223372036854775807.0,
	9.2233720368547748e18, 1.8446744073709552e19, 1.8446744073709550e19,
	-9.2233720368547758e18, 1e30, -1e30, 1e300, 1e-300, 4.9e-324,
	0.1, 123.456, -0.999, 3.4028234663852886e38, 3.5e38,
	INFINITY, -INFINITY, NAN, -NAN,
    };
    uint64_t b;
    int k = below(3);
    if (k == 0)
	return rnd() >> below(64);
    if (type == PM_TYPE_FLOAT) {
	float f = (float)dbls[below((int)(sizeof(dbls) / sizeof(dbls[0])))];
	uint32_t fb;
	if (k == 1)
	    f = (float)ints[below((int)(sizeof(ints) / sizeof(ints[0])))];
	memcpy(&fb, &f, 4);
	return fb;
    }
    if (type == PM_TYPE_DOUBLE) {
	double d = dbls[below((int)(sizeof(dbls) / sizeof(dbls[0])))];
	if (k == 1)
	    d = (double)ints[below((int)(sizeof(ints) / sizeof(ints[0])))];
	memcpy(&b, &d, 8);
	return b;
    }
    return (uint64_t)ints[below((int)(sizeof(ints) / sizeof(ints[0])))];
}

static int
natural_len(int type)
{
    switch (type) {
    case PM_TYPE_32: case PM_TYPE_U32: case PM_TYPE_FLOAT:
	return 4;
    case PM_TYPE_64: case PM_TYPE_U64: case PM_TYPE_DOUBLE:
	return 8;
    default:
	return below(20);
    }
}

/*
 * extract: valfmt itype vtype payload-hex otype -> sts result-hex
 * For INSITU the payload is the 4 bytes of lval (little-endian, as in memory).
 * The result is the 8 bytes of the pmAtomValue for numeric types, the
 * string bytes for STRING, the whole value block for AGGREGATE.
 */
static void
extract_case(int valfmt, int itype, int vtype, const unsigned char *payload, int plen, int otype)
{
    pmValue v;
    pmAtomValue a;
    pmValueBlock *vb = NULL;
    int sts;

    memset(&a, 0, sizeof(a));
    printf("%d\t%d\t%d\t", valfmt, itype, vtype);
    hexout(payload, (size_t)plen);
    printf("\t%d\t", otype);
    if (valfmt == PM_VAL_INSITU) {
	memcpy(&v.value.lval, payload, 4);
    }
    else {
	vb = calloc(1, PM_VAL_HDR_SIZE + plen + 8);
	vb->vtype = vtype;
	vb->vlen = PM_VAL_HDR_SIZE + plen;
	memcpy(vb->vbuf, payload, plen);
	v.value.pval = vb;
    }
    v.inst = 0;
    sts = pmExtractValue(valfmt, &v, itype, &a, otype);
    printf("%d\t", sts);
    if (sts < 0)
	printf("-");
    else if (otype == PM_TYPE_STRING) {
	hexout((unsigned char *)a.cp, strlen(a.cp));
	free(a.cp);
    }
    else if (otype == PM_TYPE_AGGREGATE) {
	hexout((unsigned char *)a.vbp, a.vbp->vlen);
	free(a.vbp);
    }
    else
	hexout((unsigned char *)&a.ll, 8);
    putchar('\n');
    free(vb);
}

static void
random_extract(int itype, int otype)
{
    unsigned char payload[64];
    int valfmt = below(4) == 0 ? PM_VAL_INSITU : PM_VAL_DPTR;
    int vtype = itype & 0xff;
    int plen, i;
    uint64_t bits;

    if (itype == PM_TYPE_32 || itype == PM_TYPE_U32 || itype == PM_TYPE_FLOAT || itype == PM_TYPE_UNKNOWN) {
	if (below(5) != 0)
	    valfmt = PM_VAL_INSITU;
    }
    if (below(8) == 0)
	vtype = 0;
    else if (below(12) == 0)
	vtype = all_types[below(NTYPES)] & 0xff;
    plen = natural_len(itype);
    if (below(10) == 0)
	plen = below(12);
    if (valfmt == PM_VAL_INSITU)
	plen = 4;
    bits = interesting_bits(itype);
    memset(payload, 0, sizeof(payload));
    memcpy(payload, &bits, plen < 8 ? (size_t)plen : 8);
    for (i = 8; i < plen; i++)
	payload[i] = (unsigned char)rnd();
    if ((itype == PM_TYPE_STRING || itype == PM_TYPE_AGGREGATE) && below(2))
	for (i = 0; i < plen; i++)
	    payload[i] = (unsigned char)(0x20 + below(95));
    extract_case(valfmt, itype, vtype, payload, plen, otype);
}

static void
kind_extract(int count)
{
    int i, o, r;
    /* every (itype, otype) pair, several values each */
    for (i = 0; i < NTYPES; i++)
	for (o = 0; o < NTYPES; o++)
	    for (r = 0; r < 24; r++)
		random_extract(all_types[i], all_types[o]);
    while (count-- > 0)
	random_extract(all_types[below(NTYPES)], all_types[below(NTYPES)]);
}

/* ---------------------------------------------------------------- conv */

static void
conv_case(int type, uint64_t bits, uint32_t iu, uint32_t ou)
{
    pmAtomValue in, out;
    pmUnits iunit = bits_units(iu), ounit = bits_units(ou);
    int sts, sig;

    memset(&in, 0, sizeof(in));
    memset(&out, 0, sizeof(out));
    memcpy(&in.ll, &bits, 8);
    printf("%d\t%016" PRIx64 "\t%08x\t%08x\t", type, bits, iu, ou);
    fflush(stdout);
    if ((sig = sigsetjmp(crash_env, 1)) != 0) {
	arm_crash_handlers();
	printf("crash\n");
	return;
    }
    sts = pmConvScale(type, &in, &iunit, &out, &ounit);
    printf("%d\t", sts);
    if (sts < 0)
	printf("-\n");
    else {
	uint64_t ob;
	memcpy(&ob, &out.ll, 8);
	printf("%016" PRIx64 "\n", ob);
    }
}

static uint64_t
conv_value(int type)
{
    uint64_t b = interesting_bits(type);
    if (below(3) == 0) {
	/* modest magnitudes, so that scaling is visible */
	int64_t v = (int64_t)(rnd() % 2000001) - 1000000;
	if (type == PM_TYPE_U32 || type == PM_TYPE_U64)
	    v = v < 0 ? -v : v;
	if (type == PM_TYPE_FLOAT) {
	    float f = (float)v / 8;
	    uint32_t fb;
	    memcpy(&fb, &f, 4);
	    return fb;
	}
	if (type == PM_TYPE_DOUBLE) {
	    double d = (double)v / 8;
	    memcpy(&b, &d, 8);
	    return b;
	}
	return (uint64_t)v;
    }
    if (type == PM_TYPE_32 || type == PM_TYPE_U32)
	b &= 0xffffffff;
    return b;
}

static void
kind_conv(int count)
{
    static const int types[] = {
	PM_TYPE_32, PM_TYPE_U32, PM_TYPE_64, PM_TYPE_U64, PM_TYPE_FLOAT,
	PM_TYPE_DOUBLE, PM_TYPE_STRING, PM_TYPE_AGGREGATE, PM_TYPE_NOSUPPORT,
    };
    int t, s1, s2, d;
    /* every space, time and count scale pair, for every numeric type */
    for (t = 0; t < 6; t++)
	for (s1 = 0; s1 < 10; s1++)
	    for (s2 = 0; s2 < 10; s2++) {
		conv_case(types[t], conv_value(types[t]), make_units(1, 0, 0, s1, 0, 0), make_units(1, 0, 0, s2, 0, 0));
		conv_case(types[t], conv_value(types[t]), make_units(0, 1, 0, 0, s1, 0), make_units(0, 1, 0, 0, s2, 0));
		conv_case(types[t], conv_value(types[t]), make_units(0, 0, 1, 0, 0, s1 - 5), make_units(0, 0, 1, 0, 0, s2 - 5));
		conv_case(types[t], conv_value(types[t]), make_units(1, -1, 0, s1, s2 % 7, 0), make_units(1, -1, 0, s2, s1 % 7, 0));
	    }
    while (count-- > 0) {
	int type = types[below(below(10) == 0 ? 9 : 6)];
	int ds = below(5) - 2, dt = below(5) - 2, dc = below(5) - 2;
	uint32_t iu, ou;
	if (below(20) == 0) {
	    ds = below(16) - 8;
	    dt = below(16) - 8;
	    dc = below(16) - 8;
	}
	iu = make_units(ds, dt, dc, below(10), below(7), below(16) - 8);
	d = below(12);
	if (d == 0)		/* mismatched dimensions */
	    ou = make_units(ds + 1, dt, dc, below(10), below(7), below(16) - 8);
	else if (d == 1)	/* dimensionless output */
	    ou = make_units(0, 0, 0, below(10), below(7), below(16) - 8);
	else
	    ou = make_units(ds, dt, dc, below(10), below(7), below(16) - 8);
	conv_case(type, conv_value(type), iu, ou);
    }
}

/* ---------------------------------------------------------------- err */

static void
err_case(int code)
{
    printf("%d\t", code);
    escout(pmErrStr(code));
    putchar('\n');
}

static void
kind_err(int count)
{
    int c;
    for (c = -200; c <= 10; c++)
	err_case(c);
    for (c = -PM_ERR_BASE + 200; c >= -PM_ERR_BASE - 1100; c--)
	err_case(c);
    for (c = PM_ERR_NYI + 5; c >= PM_ERR_NYI - 1010; c--)
	err_case(c);
    err_case(INT32_MIN);
    err_case(INT32_MAX);
    while (count-- > 0)
	err_case((int)(uint32_t)rnd() >> below(32));
}

/* ---------------------------------------------------------------- atom */

static void
atom_case(int type, const unsigned char *payload, int plen, int vtype)
{
    pmAtomValue a;
    pmValueBlock *vb = NULL;
    char *s = NULL;
    memset(&a, 0, sizeof(a));
    printf("%d\t%d\t", type, vtype);
    hexout(payload, (size_t)plen);
    putchar('\t');
    switch (type) {
    case PM_TYPE_STRING:
	if (plen == 1 && payload[0] == 0xff)
	    a.cp = NULL;	/* marker: null pointer */
	else {
	    s = calloc(1, plen + 1);
	    memcpy(s, payload, plen);
	    a.cp = s;
	}
	break;
    case PM_TYPE_AGGREGATE:
    case PM_TYPE_AGGREGATE_STATIC:
    case PM_TYPE_EVENT:
    case PM_TYPE_HIGHRES_EVENT:
	if (plen == 1 && payload[0] == 0xff && type <= PM_TYPE_AGGREGATE_STATIC) {
	    a.vbp = NULL;
	    break;
	}
	vb = calloc(1, PM_VAL_HDR_SIZE + plen + 64);
	vb->vtype = vtype;
	vb->vlen = PM_VAL_HDR_SIZE + plen;
	memcpy(vb->vbuf, payload, plen);
	a.vbp = vb;
	break;
    default:
	memcpy(&a.ll, payload, plen < 8 ? plen : 8);
	break;
    }
    escout(pmAtomStr(&a, type));
    putchar('\n');
    free(s);
    free(vb);
}

static void
kind_atom(int count)
{
    unsigned char payload[80];
    int i;
    while (count-- > 0) {
	int type = all_types[below(NTYPES)];
	int plen = 8, vtype = 0;
	uint64_t bits = interesting_bits(type);
	memset(payload, 0, sizeof(payload));
	memcpy(payload, &bits, 8);
	if (type == PM_TYPE_STRING) {
	    plen = below(50);
	    for (i = 0; i < plen; i++)
		payload[i] = (unsigned char)(0x20 + below(95));
	    if (below(20) == 0) {
		plen = 1;
		payload[0] = 0xff;
	    }
	}
	else if (type == PM_TYPE_AGGREGATE || type == PM_TYPE_AGGREGATE_STATIC) {
	    plen = below(20);
	    for (i = 0; i < plen; i++)
		payload[i] = (unsigned char)rnd();
	    vtype = all_types[below(NTYPES)] & 0xff;
	    if (below(20) == 0) {
		plen = 1;
		payload[0] = 0xff;
	    }
	}
	else if (type == PM_TYPE_EVENT || type == PM_TYPE_HIGHRES_EVENT) {
	    /* the record count is the first int after the header */
	    int32_t n = below(3) == 0 ? 1 : (int32_t)(rnd() % 100);
	    plen = 16;
	    memset(payload, 0, 16);
	    memcpy(payload, &n, 4);
	    vtype = type;
	}
	else if (type == PM_TYPE_FLOAT && below(2)) {
	    float f = (float)((int64_t)(rnd() % 2000000) - 1000000) / (float)(1 << below(20));
	    memset(payload, 0, 8);
	    memcpy(payload, &f, 4);
	}
	atom_case(type, payload, plen, vtype);
    }
}

/* ---------------------------------------------------------------- ids */

static void
kind_ids(int count)
{
    int t;
    uint32_t x;
    printf("pmid\t%08x\t%s\n", PM_ID_NULL, pmIDStr(PM_ID_NULL));
    printf("indom\t%08x\t%s\n", PM_INDOM_NULL, pmInDomStr(PM_INDOM_NULL));
    for (t = -10; t < 300; t++) {
	printf("type\t%d\t%s\n", t, pmTypeStr(t));
	printf("sem\t%d\t%s\n", t, pmSemStr(t));
    }
    printf("type\t%d\t%s\n", INT32_MIN, pmTypeStr(INT32_MIN));
    for (t = 0; t < 512; t++) {
	x = pmID_build(511, t, 0);
	printf("pmid\t%08x\t%s\n", x, pmIDStr(x));
	x = pmID_build(t, 0, 0);
	printf("pmid\t%08x\t%s\n", x, pmIDStr(x));
    }
    while (count-- > 0) {
	x = (uint32_t)rnd();
	if (below(4) == 0)
	    x = pmID_build(511, below(4096), below(2));
	printf("pmid\t%08x\t%s\n", x, pmIDStr(x));
	printf("pmid-parts\t%08x\t%u.%u.%u\n", x, pmID_domain(x), pmID_cluster(x), pmID_item(x));
	x = (uint32_t)rnd();
	printf("indom\t%08x\t%s\n", x, pmInDomStr(x));
	printf("indom-parts\t%08x\t%u.%u\n", x, pmInDom_domain(x), pmInDom_serial(x));
    }
}

/* ---------------------------------------------------------------- printvalue */

static void
printvalue_case(int valfmt, int type, int vtype, const unsigned char *payload, int plen, int minwidth)
{
    pmValue v;
    pmValueBlock *vb = NULL;
    char *buf = NULL;
    size_t blen = 0;
    FILE *f = open_memstream(&buf, &blen);

    printf("%d\t%d\t%d\t", valfmt, type, vtype);
    hexout(payload, (size_t)plen);
    printf("\t%d\t", minwidth);
    if (valfmt == PM_VAL_INSITU)
	memcpy(&v.value.lval, payload, 4);
    else {
	vb = calloc(1, PM_VAL_HDR_SIZE + plen + 8);
	vb->vtype = vtype;
	vb->vlen = PM_VAL_HDR_SIZE + plen;
	memcpy(vb->vbuf, payload, plen);
	v.value.pval = vb;
    }
    v.inst = 0;
    pmPrintValue(f, valfmt, type, &v, minwidth);
    fclose(f);
    escout(buf);
    putchar('\n');
    free(buf);
    free(vb);
}

static void
kind_printvalue(int count)
{
    static const int types[] = {
	PM_TYPE_32, PM_TYPE_U32, PM_TYPE_64, PM_TYPE_U64, PM_TYPE_FLOAT,
	PM_TYPE_DOUBLE, PM_TYPE_STRING, PM_TYPE_AGGREGATE, PM_TYPE_UNKNOWN,
	PM_TYPE_AGGREGATE_STATIC, PM_TYPE_NOSUPPORT, 42, PM_TYPE_EVENT,
	PM_TYPE_HIGHRES_EVENT,
    };
    unsigned char payload[64];
    int i;
    while (count-- > 0) {
	int type = types[below((int)(sizeof(types) / sizeof(types[0])))];
	int valfmt = PM_VAL_DPTR, vtype = type & 0xff, plen = natural_len(type);
	int minwidth = below(3) == 0 ? below(30) : (below(2) ? 1 : 0);
	uint64_t bits = interesting_bits(type);
	if (type == PM_TYPE_32 || type == PM_TYPE_U32 || type == PM_TYPE_EVENT || type == PM_TYPE_HIGHRES_EVENT || (type == PM_TYPE_UNKNOWN && below(2)) || (type == PM_TYPE_FLOAT && below(3) == 0))
	    valfmt = PM_VAL_INSITU;
	if (type == PM_TYPE_UNKNOWN && valfmt != PM_VAL_INSITU)
	    plen = below(3) == 0 ? (below(2) ? 4 : 8) : below(20);
	if (valfmt == PM_VAL_INSITU)
	    plen = 4;
	memset(payload, 0, sizeof(payload));
	memcpy(payload, &bits, plen < 8 ? (size_t)plen : 8);
	if (type == PM_TYPE_STRING || type == PM_TYPE_AGGREGATE || (type == PM_TYPE_UNKNOWN && plen > 8) || type == PM_TYPE_AGGREGATE_STATIC) {
	    int printable = below(2);
	    for (i = 0; i < plen; i++)
		payload[i] = printable ? (unsigned char)(0x20 + below(95)) : (unsigned char)rnd();
	    if (type == PM_TYPE_STRING)
		for (i = 0; i < plen; i++)
		    if (payload[i] == 0)
			payload[i] = 'z';
	}
	if (below(15) == 0)
	    vtype = 0;
	printvalue_case(valfmt, type, vtype, payload, plen, minwidth);
    }
}

/* ---------------------------------------------------------------- desc */

static void
kind_desc(int count)
{
    while (count-- > 0) {
	pmDesc d;
	char *buf = NULL;
	size_t blen = 0;
	FILE *f = open_memstream(&buf, &blen);
	d.pmid = (pmID)rnd();
	d.type = below(8) == 0 ? (int)(rnd() % 300) - 5 : all_types[below(NTYPES)];
	d.indom = below(3) == 0 ? PM_INDOM_NULL : (pmInDom)rnd();
	d.sem = below(8) == 0 ? below(10) - 2 : (int[]){1, 3, 4}[below(3)];
	d.units = bits_units(below(3) == 0 ? 0 : make_units(below(5) - 2, below(5) - 2, below(5) - 2, below(10), below(7), below(16) - 8));
	pmPrintDesc(f, &d);
	fclose(f);
	printf("%08x\t%d\t%08x\t%d\t%08x\t", d.pmid, d.type, d.indom, d.sem, units_bits(d.units));
	escout(buf);
	putchar('\n');
	free(buf);
    }
}

/* ---------------------------------------------------------------- number */

static void
kind_number(int count)
{
    static const double fixed[] = {
	0, -0.0, 0.004999, 0.005, -0.005, 999.995, 999.994999, 999995.0,
	999994.9, 999995000.0, 999995000000.0, 999995000000000.0,
	-99.995, -99995.0, -99995000.0, -99995000000.0, -99995000000000.0,
	1e300, -1e300, INFINITY, -INFINITY, NAN, 1.0, 12.345, 123456.0,
    };
    size_t i;
    for (i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++) {
	uint64_t b;
	memcpy(&b, &fixed[i], 8);
	printf("%016" PRIx64 "\t%s\n", b, pmNumberStr(fixed[i]));
    }
    while (count-- > 0) {
	double d = (double)(rnd() % 100000000) / 1000.0 * pow(10.0, below(30) - 12);
	uint64_t b;
	if (below(2))
	    d = -d;
	memcpy(&b, &d, 8);
	printf("%016" PRIx64 "\t%s\n", b, pmNumberStr(d));
    }
}

int
main(int argc, char **argv)
{
    const char *kind;
    int count;

    if (argc != 4) {
	fprintf(stderr, "usage: oracle KIND SEED COUNT\n");
	return 2;
    }
    kind = argv[1];
    rng_state = strtoull(argv[2], NULL, 10);
    count = atoi(argv[3]);
    arm_crash_handlers();

    if (strcmp(kind, "units") == 0)
	kind_units(count);
    else if (strcmp(kind, "parse") == 0)
	kind_parse(count);
    else if (strcmp(kind, "conv") == 0)
	kind_conv(count);
    else if (strcmp(kind, "extract") == 0)
	kind_extract(count);
    else if (strcmp(kind, "err") == 0)
	kind_err(count);
    else if (strcmp(kind, "atom") == 0)
	kind_atom(count);
    else if (strcmp(kind, "ids") == 0)
	kind_ids(count);
    else if (strcmp(kind, "printvalue") == 0)
	kind_printvalue(count);
    else if (strcmp(kind, "desc") == 0)
	kind_desc(count);
    else if (strcmp(kind, "number") == 0)
	kind_number(count);
    else {
	fprintf(stderr, "oracle: unknown kind %s\n", kind);
	return 2;
    }
    return 0;
}
