/*
 * pcp-rs printf oracle: asks the C library's snprintf how it formats doubles
 * with %e %E %f %F %g %G, so that pcp-core's cfmt module can be checked
 * against it byte for byte.  Plain libc; no libpcp needed.
 *
 *   printf_oracle SEED COUNT
 *
 * Prints COUNT lines (fixed cases first, then random ones), each
 *
 *   FORMAT <tab> STARS <tab> BITS <tab> OUTPUT
 *
 * FORMAT is the whole format string (literal text around one conversion is
 * allowed), STARS the int arguments for its `*`s, comma-separated, or "-"
 * when there are none, BITS the double's IEEE bits as 16 lowercase hex
 * digits, and OUTPUT what snprintf wrote.  FORMAT and OUTPUT escape
 * backslash, tab and newline as \\ \t \n.  Cases come from a private PRNG
 * (xorshift64*), so a seed always gives the same cases.
 *
 * This is test tooling written for pcp-rs; it is not part of any build.
 */
#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t rng_state;

static uint64_t
rnd(void)
{
    /* xorshift64* */
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return rng_state * 0x2545F4914F6CDD1DULL;
}

/* uniform in [0, n) */
static int
below(int n)
{
    return (int)(rnd() % (uint64_t)n);
}

static double
from_bits(uint64_t b)
{
    double d;
    memcpy(&d, &b, sizeof d);
    return d;
}

static uint64_t
to_bits(double d)
{
    uint64_t b;
    memcpy(&b, &d, sizeof b);
    return b;
}

static void
escaped(const char *s)
{
    for (; *s; s++) {
	if (*s == '\\')
	    fputs("\\\\", stdout);
	else if (*s == '\t')
	    fputs("\\t", stdout);
	else if (*s == '\n')
	    fputs("\\n", stdout);
	else
	    fputc(*s, stdout);
    }
}

/* Format v with fmt (which has nstar `*`s taking star[]) and print a line. */
static void
emit(const char *fmt, int nstar, const int *star, double v)
{
    char buf[4096];
    int n;

    switch (nstar) {
    case 0:
	n = snprintf(buf, sizeof buf, fmt, v);
	break;
    case 1:
	n = snprintf(buf, sizeof buf, fmt, star[0], v);
	break;
    default:
	n = snprintf(buf, sizeof buf, fmt, star[0], star[1], v);
	break;
    }
    if (n < 0 || (size_t)n >= sizeof buf) {
	fprintf(stderr, "printf_oracle: snprintf(\"%s\") failed or overflowed\n", fmt);
	exit(1);
    }
    escaped(fmt);
    putchar('\t');
    if (nstar == 0)
	putchar('-');
    else if (nstar == 1)
	printf("%d", star[0]);
    else
	printf("%d,%d", star[0], star[1]);
    printf("\t%016" PRIx64 "\t", to_bits(v));
    escaped(buf);
    putchar('\n');
}

/* The formats PCP's tools and libpcp use; `*` counts follow each. */
static const struct {
    const char *fmt;
    int nstar;
} pcp_formats[] = {
    {"%e", 0}, {"%.8g", 0}, {"%*.8g", 1}, {"%.16g", 0}, {"%*.16g", 1},
    {"%6.2f", 0}, {"%*.3E", 1}, {"%*.4f", 1}, {"%*.3f ", 1}, {"%*.2f  ", 1},
    {"%*.1f   ", 1}, {"%*.0f.    ", 1}, {"%*.0f.0   ", 1}, {"%*.*f", 2},
    {"%.17g", 0}, {"%g", 0}, {"%f", 0}, {"%.3f", 0}, {"%.2f", 0},
    {"%6.2fK", 0}, {"%lf", 0}, {"%.0f%%", 0},
};
#define NPCP (sizeof pcp_formats / sizeof pcp_formats[0])

/* Star arguments for a PCP format: a plausible column width, a precision. */
static int
pcp_star(int nstar, int *star)
{
    star[0] = below(4) == 0 ? below(121) - 60 : below(25);
    star[1] = below(10) == 0 ? below(8) - 4 : below(41);
    return nstar;
}

/*
 * A random conversion: any flags, a width and precision written out, given
 * as `*`, or left off; sometimes with literal text (and %%) around it.
 */
static int
random_format(char *fmt, int *star)
{
    static const char convs[] = "eEfFgG";
    static const char flagchars[] = "-+ #0";
    char *p = fmt;
    int nstar = 0, i, nflags;

    if (below(8) == 0)
	p += sprintf(p, "%s", below(2) ? "<" : "%%");
    *p++ = '%';
    nflags = below(3) == 0 ? 0 : below(5);
    for (i = 0; i < nflags; i++)
	*p++ = flagchars[below(5)];
    switch (below(4)) {
    case 0:
	break;
    case 1:
	star[nstar++] = below(5) == 0 ? below(121) - 60 : below(61);
	*p++ = '*';
	break;
    default:
	p += sprintf(p, "%d", 1 + below(60));
	break;
    }
    switch (below(5)) {
    case 0:
	break;
    case 1:
	star[nstar++] = below(6) == 0 ? below(10) - 5 : below(41);
	p += sprintf(p, ".*");
	break;
    case 2:
	*p++ = '.';		/* "." alone: precision 0 */
	break;
    default:
	p += sprintf(p, ".%d", below(3) == 0 ? below(4) : below(41));
	break;
    }
    *p++ = convs[below(6)];
    *p = '\0';
    if (below(8) == 0)
	strcat(fmt, below(2) ? " >" : "%%");
    return nstar;
}

/* 10^n as the nearest double (strtod rounds correctly) */
static double
pow10d(int n)
{
    char s[32];
    snprintf(s, sizeof s, "1e%d", n);
    return strtod(s, NULL);
}

/* A value worth formatting: all kinds of doubles, tilted towards hard ones. */
static double
random_value(void)
{
    char s[64];
    double v;
    int k;

    switch (below(12)) {
    case 0:
    case 1:
	/* any bit pattern: normal, subnormal, inf, NaN with any payload */
	v = from_bits(rnd());
	break;
    case 2:
	/* a short decimal k * 10^n, the nearest double to it */
	snprintf(s, sizeof s, "%" PRIu64 "e%d",
		 rnd() % (uint64_t)pow10d(1 + below(17)), below(60) - 35);
	v = strtod(s, NULL);
	break;
    case 3:
	/* a decimal ending in 5: a tie, or the nearest double to one */
	snprintf(s, sizeof s, "%" PRIu64 "5e%d",
		 rnd() % (uint64_t)pow10d(below(16)), below(40) - 25);
	v = strtod(s, NULL);
	break;
    case 4:
	/* exact binary fractions m / 2^j: decimal expansions that end */
	v = ldexp((double)(rnd() >> below(64)), -below(70));
	break;
    case 5:
	/* integers, small and up to 2^64, many of them ending in 5 or 0 */
	v = (double)(rnd() >> below(64));
	if (below(2))
	    v = floor(v / 10) * 10 + 5;
	break;
    case 6:
	/* at and next to powers of ten, and at the 9.5 boundaries */
	k = below(640) - 330;
	v = pow10d(k);
	switch (below(5)) {
	case 0:
	    v = nextafter(v, INFINITY);
	    break;
	case 1:
	    v = nextafter(v, 0.0);
	    break;
	case 2:
	    v *= 0.95;
	    break;
	case 3:
	    snprintf(s, sizeof s, "%.*s5e%d", 1 + below(17), "99999999999999999", k - 1);
	    v = strtod(s, NULL);
	    if (below(2))
		v = nextafter(v, below(2) ? INFINITY : 0.0);
	    break;
	}
	break;
    case 7:
	/* subnormals */
	v = from_bits(rnd() >> (12 + below(52)));
	break;
    case 8:
	/* zeros, infinities, NaNs, extremes */
	switch (below(8)) {
	case 0: v = 0.0; break;
	case 1: v = INFINITY; break;
	case 2: v = NAN; break;
	case 3: v = from_bits(1); break;
	case 4: v = from_bits(0x000fffffffffffffULL); break;
	case 5: v = from_bits(0x0010000000000000ULL); break;
	case 6: v = from_bits(0x7fefffffffffffffULL); break;
	default: v = from_bits(0x7ff0000000000000ULL | (rnd() >> 12) | 1); break;
	}
	break;
    case 9:
	/* ordinary magnitudes */
	v = (double)rnd() / 18446744073709551616.0 * pow10d(below(14) - 4);
	break;
    case 10:
	/* small ties: halves, quarters, eighths... of small integers */
	v = ldexp((double)(2 * below(100000) + 1), -(1 + below(12)));
	break;
    default:
	/* values with few significant digits */
	snprintf(s, sizeof s, "%de%d", below(1000), below(30) - 15);
	v = strtod(s, NULL);
	break;
    }
    if (below(2))
	v = -v;			/* also flips NaN's sign bit */
    return v;
}

/*
 * A value just at, above or below a point where rounding carries into a new
 * power of ten (9.95, 999.5, 99999.96e-7...), with a precision near its
 * digit count and often with `#`: where %g changes style after rounding.
 */
static int
boundary_case(char *fmt, int *star, double *v)
{
    static const char convs[] = "eEfFgG";
    char s[64];
    int nines = below(17), prec = nines + below(5) - 2;

    snprintf(s, sizeof s, "%s%.*s%de%d", below(2) ? "-" : "", nines,
	     "99999999999999999", 4 + below(3), below(40) - 20);
    *v = strtod(s, NULL);
    if (below(3) == 0)
	*v = nextafter(*v, below(2) ? INFINITY : 0.0);
    if (prec < 0)
	prec = 0;
    star[0] = prec;
    sprintf(fmt, "%%%s.*%c", below(3) ? "#" : "", convs[below(6)]);
    return 1;
}

static const double fixed_values[] = {
    0.0, 0.5, 1.5, 2.5, 0.125, 0.375, 1e23, 1e22, 5e-324, 1.0, 9.5, 99.5,
    999999.5, 9999995.0, 0.0001, 0.00001, 9.99995e-5, 123456789.0, 0.1,
    1e300, 1e-300, 1.7976931348623157e308, 2.2250738585072014e-308,
    4.9406564584124654e-324, 3.4028234663852886e38, 1e21, 1e-7, 100000.0,
    1000000.0,
};
#define NFIXED (sizeof fixed_values / sizeof fixed_values[0])

int
main(int argc, char **argv)
{
    char fmt[64];
    int star[2], nstar;
    long count, i;
    size_t f, x;

    if (argc != 3) {
	fprintf(stderr, "usage: printf_oracle SEED COUNT\n");
	return 2;
    }
    rng_state = strtoull(argv[1], NULL, 0) * 0x9e3779b97f4a7c15ULL + 1;
    count = strtol(argv[2], NULL, 0);

    /* every PCP format with the fixed values (both signs), inf and NaN */
    for (f = 0; f < NPCP; f++) {
	for (x = 0; x < NFIXED + 2; x++) {
	    double v = x < NFIXED ? fixed_values[x] : x == NFIXED ? INFINITY : NAN;
	    int s;
	    for (s = 0; s < 2 && count > 0; s++, count--) {
		nstar = pcp_star(pcp_formats[f].nstar, star);
		emit(pcp_formats[f].fmt, nstar, star, s ? -v : v);
	    }
	}
    }
    /* then random cases: rounding boundaries, PCP's formats, any format */
    for (i = 0; i < count; i++) {
	double v = random_value();
	if (below(8) == 0) {
	    nstar = boundary_case(fmt, star, &v);
	    emit(fmt, nstar, star, v);
	} else if (below(2)) {
	    f = (size_t)below(NPCP);
	    nstar = pcp_star(pcp_formats[f].nstar, star);
	    emit(pcp_formats[f].fmt, nstar, star, v);
	} else {
	    nstar = random_format(fmt, star);
	    emit(fmt, nstar, star, v);
	}
    }
    return 0;
}
