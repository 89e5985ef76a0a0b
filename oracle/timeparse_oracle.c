/*
 * pcp-rs time parsing oracle: what libpcp (-lpcp) answers for intervals
 * (pmParseInterval, pmParseHighResInterval) and time windows
 * (pmParseHighResTimeWindow, pmParseTimeWindow) against fixed archive-like
 * bounds, in several time zones, for hand-picked and generated inputs.
 *
 *   timeparse_oracle SEED COUNT
 *
 * Rows (tab-separated; byte strings as lowercase hex, "-" for empty, "!"
 * for a NULL argument; messages escaped as oracle/README.md says):
 *
 *   I  spec  tv_sec.tv_usec  tv_sec.tv_nsec            (accepted)
 *   I  spec  err  message                              (rejected)
 *   W  zone  start_sec.nsec  end_sec.nsec  now  S  T  A  O  HR  TV
 *
 * where HR and TV are the results of the timespec and timeval variants:
 *   sts start_sec.nsec end_sec.nsec origin_sec.nsec message|-
 *   (usec instead of nsec for TV), or "err message", or "crash" when
 *   libpcp dies (SIGFPE) on the input.
 *
 * "now" is the current time libpcp sees: this program defines
 * clock_gettime, so libpcp's calls land here.  glibc's mktime remembers the
 * last UTC offset it found (its first guess next time); before every call
 * this program resets that memory to a fresh process's, with one mktime in
 * UTC.
 *
 * Test tooling for pcp-rs; not part of any build.
 */
#include <pcp/pmapi.h>
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "tsv.h"

static struct timespec fake_now;

int
clock_gettime(clockid_t id, struct timespec *ts)
{
    (void)id;
    *ts = fake_now;
    return 0;
}

static int
below(int n)
{
    return (int)(rnd() % (uint64_t)n);
}

static const char *
pick(const char *const *v, int n)
{
    return v[below(n)];
}
#define PICK(v) pick((v), (int)(sizeof(v) / sizeof((v)[0])))

static void
hexout(const char *s)
{
    if (s == NULL) {
	fputc('!', stdout);
	return;
    }
    if (*s == '\0') {
	fputc('-', stdout);
	return;
    }
    for (; *s; s++)
	printf("%02x", (unsigned char)*s);
}

static const char *zone;

/* glibc's mktime keeps its last offset in a static: make it a fresh
 * process's (0) by converting a time in UTC */
static void
reset_mktime(void)
{
    struct tm tm = { .tm_year = 100, .tm_mday = 1, .tm_isdst = -1 };
    setenv("TZ", "UTC", 1);
    tzset();
    mktime(&tm);
    setenv("TZ", zone, 1);
    tzset();
}

/* ------------------------------------------------------------ generators */

static char *
cat(char *p, const char *s)
{
    size_t n = strlen(s);
    memcpy(p, s, n + 1);
    return p + n;
}

static const char *const spaces[] = { "", "", "", " ", " ", "  ", "\t" };

/* set while generating -S/-T/-O times: numbers stay below 2^53, as
 * relative dates with larger counts reach instants localtime() cannot
 * convert, after which libpcp reads uninitialised memory */
static int modest;

static char *
number(char *p)
{
    switch (below(12)) {
    case 0: return p + sprintf(p, "%d", below(10));
    case 1: return p + sprintf(p, "%d", below(100));
    case 2: return p + sprintf(p, "%d", below(100000));
    case 3: return p + sprintf(p, "%d.%d", below(100), below(1000));
    case 4: return p + sprintf(p, ".%d", below(1000));
    case 5: return p + sprintf(p, "%de%d", 1 + below(9), below(12) - 3);
    case 6: return p + sprintf(p, "0x%x", below(4096));
    case 7:
	if (modest)
	    return cat(p, PICK(((const char *const[]){ "nan", "inf", "NaN", "-0", "1e400", "-5", "+5", "0x1p-3", "1.999999999999", "0.0000000005", "0.0000000015", "1e-30" })));
	return cat(p, PICK(((const char *const[]){ "nan", "inf", "NaN", "-0", "1e400", "-5", "+5", "0x1p-3", "9223372036854775807", "4611686018427387904", "1.999999999999", "0.0000000005", "0.0000000015", "1e-30", "18446744073709551616" })));
    case 8: return p + sprintf(p, "%d.%09d", below(1000), below(1000000000));
    case 9: return p + sprintf(p, "%u", (unsigned)rnd());
    default: return p + sprintf(p, "%d", 1 + below(60));
    }
}

static char *
randcase(char *p, const char *s)
{
    for (; *s; s++)
	*p++ = below(4) == 0 ? (char)(*s >= 'a' && *s <= 'z' ? *s - 32 : *s) : *s;
    *p = '\0';
    return p;
}

static const char *const scales[] = {
    "nanosecond", "microsecond", "millisecond", "second", "minute", "hour", "day",
    "msec", "usec", "nsec", "sec", "min", "hr", "s", "m", "h", "d",
    "nanoseconds", "seconds", "mins", "hrs", "hours", "days", "ms", "ss", "week", "weeks",
    "x", "ds", "secss", "millis", "dd",
};

static char *
interval(char *p)
{
    int n = 1 + below(3), i;
    p = cat(p, PICK(spaces));
    for (i = 0; i < n; i++) {
	p = number(p);
	p = cat(p, PICK(spaces));
	if (below(5))
	    p = randcase(p, PICK(scales));
	if (i + 1 < n)
	    p = cat(p, PICK(spaces));
    }
    if (below(20) == 0)
	p = cat(p, PICK(((const char *const[]){ ",", "x", "-", "!", " 5", "\n", "\xc3\xa9", ".", "s" })));
    return p;
}

static const char *const wdays[] = { "Sun", "Mon", "tue", "WED", "thu", "Fri", "sat", "Tuesday", "Xyz" };
static const char *const months[] = { "Jan", "feb", "MAR", "Apr", "may", "Jun", "jul", "Aug", "sep", "Oct", "nov", "Dec", "June", "Foo" };

static char *
ctime_like(char *p)
{
    p = cat(p, PICK(spaces));
    if (below(4) == 0) {
	p = cat(p, PICK(wdays));
	p = cat(p, " ");
    }
    if (below(2)) {
	p = cat(p, PICK(months));
	p = cat(p, PICK(((const char *const[]){ " ", " ", "", "  " })));
    }
    if (below(2))
	p += sprintf(p, "%d ", below(3) ? 1 + below(31) : below(40));
    if (below(4)) {
	int form = below(6);
	int h = below(5) ? below(24) : below(30);
	if (form == 0)
	    p += sprintf(p, "%d", h);
	else if (form == 1)
	    p += sprintf(p, "%d:%02d", h, below(5) ? below(60) : below(80));
	else if (form == 2)
	    p += sprintf(p, "%02d:%02d:%02d", h, below(60), below(5) ? below(60) : below(63));
	else if (form == 3)
	    p += sprintf(p, "%02d:%02d:%02d.%d", h, below(60), below(60), below(1000000));
	else if (form == 4)
	    p += sprintf(p, ":%d", below(60));
	else
	    p += sprintf(p, "%d:", h);
	if (below(4) == 0)
	    p = cat(p, PICK(((const char *const[]){ "am", "pm", " PM", " am", "a", "pmx" })));
    }
    if (below(2))
	p += sprintf(p, " %d", below(6) ? 1990 + below(50) : below(6) ? 1900 + below(8200) : below(20000));
    if (below(15) == 0)
	p = cat(p, PICK(((const char *const[]){ " x", ",", " 5", "!" })));
    return p;
}

static const char *const gd_items[] = {
    "2023-01-10", "2022-11-06", "2023-03-12", "2023-04-02", "1997-08-07", "1969-12-31", "2023-02-30",
    "1/10/2023", "3/12/23", "11/6", "2023/04/02", "10-jan-2023",
    "jan 10", "Jan 10, 2023", "10 jan 2023", "10 Jan", "march 12", "sept 3", "apr. 2", "20230110",
    "10:00", "02:30", "1:30", "01:30:00", "10:00:30", "3pm", "12am", "12 pm", "11:59 p.m.", "10:00 -0500", "10:00:00 +1100",
    "EST", "pdt", "z", "gmt", "e.s.t.", "ut", "AEST", "CET", "edt", "nzdt", "bst", "idle", "dst",
    "monday", "last friday", "2 tue", "next sunday", "Thursday,", "wednes", "thur",
    "2 days ago", "last week", "next month", "-3 hours", "+1 year", "yesterday", "tomorrow", "today",
    "now", "this", "3 fortnights", "90 min", "5 secs", "1 second", "a minute", "-2 months", "12 months ago",
    "1030", "7", "2359", "first", "third", "last", "ago", "(comment)", "(a(b)c)", "(", "bogus", ":", ",", "/",
    "- 4 days", "noon",
};

static char *
getdate_like(char *p)
{
    int n = 1 + below(4), i;
    p = cat(p, PICK(spaces));
    for (i = 0; i < n; i++) {
	/* always apart: glued digits make years of ten digits and more,
	 * where libpcp reads uninitialised memory (localtime fails) */
	if (i)
	    p = cat(p, PICK(((const char *const[]){ " ", " ", "  ", "\t" })));
	if (below(8) == 0)
	    p += sprintf(p, "%d %s", 1 + below(30), PICK(((const char *const[]){ "days", "hours", "weeks", "minutes", "secs", "months", "years" })));
	else
	    p = randcase(p, PICK(gd_items));
    }
    return p;
}

static void
time_spec(char *buf)
{
    char *p = buf;
    modest = 1;
    switch (below(10)) {
    case 0: case 1: case 2:
	p = cat(p, PICK(((const char *const[]){ "", "+", "-", " +", " -", "+ ", "@", "-@" })));
	interval(p);
	break;
    case 3: case 4: case 5:
	p = cat(p, PICK(((const char *const[]){ "@", "@", " @", "@ ", "@@", "" })));
	ctime_like(p);
	break;
    default:
	p = cat(p, PICK(((const char *const[]){ "", "", "", "@", "-", "+" })));
	getdate_like(p);
	break;
    }
    modest = 0;
}

/* ---------------------------------------------------------------- cases */

static void
interval_case(const char *spec)
{
    struct timeval tv;
    struct timespec ts;
    char *msg = NULL, *msg2 = NULL;
    int s1, s2;

    fputs("I\t", stdout);
    hexout(spec);
    s1 = pmParseInterval(spec, &tv, &msg);
    s2 = pmParseHighResInterval(spec, &ts, &msg2);
    if (s1 < 0 && s2 < 0 && msg && msg2 && strcmp(msg, msg2) == 0) {
	fputs("\terr\t", stdout);
	escout(msg);
    }
    else if (s1 >= 0 && s2 >= 0)
	printf("\t%lld.%ld\t%lld.%ld", (long long)tv.tv_sec, (long)tv.tv_usec, (long long)ts.tv_sec, ts.tv_nsec);
    else
	fputs("\tdisagree", stdout);
    putchar('\n');
    free(msg);
    free(msg2);
}

struct bounds {
    struct timespec start, end;
};

static void
window_result(int hr, const char *S, const char *T, const char *A, const char *O, const struct bounds *b)
{
    struct timespec rs, re, ro;
    char *msg = NULL;
    int sts, sig;

    reset_mktime();
    if ((sig = sigsetjmp(crash_env, 1)) != 0) {
	signal(SIGFPE, on_crash);
	fputs("\tcrash", stdout);
	return;
    }
    if (hr) {
	sts = pmParseHighResTimeWindow(S, T, A, O, &b->start, &b->end, &rs, &re, &ro, &msg);
    }
    else {
	struct timeval ls, le, s, e, o;
	ls.tv_sec = b->start.tv_sec;
	ls.tv_usec = b->start.tv_nsec / 1000;
	le.tv_sec = b->end.tv_sec;
	le.tv_usec = b->end.tv_nsec / 1000;
	sts = pmParseTimeWindow(S, T, A, O, &ls, &le, &s, &e, &o, &msg);
	rs.tv_sec = s.tv_sec; rs.tv_nsec = s.tv_usec;
	re.tv_sec = e.tv_sec; re.tv_nsec = e.tv_usec;
	ro.tv_sec = o.tv_sec; ro.tv_nsec = o.tv_usec;
    }
    if (sts < 0) {
	fputs("\terr ", stdout);
	escout(msg ? msg : "(null)");
    }
    else {
	printf("\t%d %lld.%ld %lld.%ld %lld.%ld ", sts, (long long)rs.tv_sec, rs.tv_nsec,
		(long long)re.tv_sec, re.tv_nsec, (long long)ro.tv_sec, ro.tv_nsec);
	if (msg)
	    escout(msg);
	else
	    fputc('-', stdout);
    }
    free(msg);
}

static void
window_case(const char *S, const char *T, const char *A, const char *O, const struct bounds *b)
{
    printf("W\t%s\t%lld.%ld\t%lld.%ld\t%lld\t", zone, (long long)b->start.tv_sec, b->start.tv_nsec,
	    (long long)b->end.tv_sec, b->end.tv_nsec, (long long)fake_now.tv_sec);
    hexout(S); putchar('\t');
    hexout(T); putchar('\t');
    hexout(A); putchar('\t');
    hexout(O);
    window_result(1, S, T, A, O, b);
    window_result(0, S, T, A, O, b);
    putchar('\n');
}

static const char *const hand_intervals[] = {
    "", " ", "30", "30sec", "1.5 hours", "1h30m", "2 days", "250 msec", "1 2", "1,2", "1ms", "10 weeks",
    "-1", "+1", "nan", "NaN sec", "inf", "1e400", "0x10", "0x1p-2 min", "9223372036854775807",
    "9223372036854775808", "4611686018427387904", "1e18 d", "0.9999999999999999", "0.0000005",
    "0.0000015 sec", "1.0000005", "59.9999995", "1 nanosecond", "1 nanoseconds", "3 NSEC", "4 usecs",
    "2 Microseconds", "7 milliseconds", "5 hr", "5 hrs", "1 d 1 h 1 m 1 s", "1d1h1m1s", "1 s s",
    "1ss", "1sec2", "junk", "10 sec junk", "\t5", "5\t", "5 \xc3\xa9", "1e", "1e+", ".", "..5",
    "1.5.5", "1 minute 30 seconds", "1 minutes", "2 hours", "3 days", "1 sss", "0", "0.0", "00:10",
};

static const char *const hand_times[] = {
    "+30sec", "-1h", "30", "@ Tue Jan 10 10:00:00 2023", "@Jan 10 10:00:00.5 2023", "@ 10:00",
    "@ 02:30", "@ 01:30", "@ 2023", "@ Jan 10", "@ 10", "@ Tue", "@ Tuesday", "@ 13pm", "@ 3pm",
    "@ 12:00 am", "@ 10:00:60", "@ 10:00:nan", "@ 10:00:61", "@ :30", "@ 25:00", "@ Jan 45",
    "@ Mar 12 02:30 2023", "@ Nov 6 01:30 2022", "@ Nov 5 01:30 2023", "@ Apr 2 02:30 2023",
    "@ Oct 2 02:30 2022", "@", "@ ", "", " ", "junk", "yesterday", "today", "tomorrow", "now",
    "2023-01-10 10:00", "2 days ago", "last week", "next month", "-3 hours", "-1 week", "+1 week",
    "1 week", "monday", "last friday", "10:00", "10:00 EST", "20230110", "1030", "-", "+", "@@",
    "-@ Jan 10", "-nan", "+nan", "-4611686018427387904", "+9223372036854775807", "+1e12", "-1e12",
    "@ Jan 10 10:00:00 1900", "@ Dec 31 23:59:59 9999", "2022-11-06 01:30", "2023-03-12 02:30",
    "Jan 10, 2023 10:00:00", "jan 10 10:00:00 2023", "(comment) 10:00", "10:00 (x", "- 4 days",
    "last 3 days", "chicago 1 day",
};

static const char *const hand_aligns[] = {
    "1h", "1 hour", "15 min", "1 day", "7 days", "0", "junk", "0.5", "1 nsec", "nan",
    "4611686018427387904", "9223372036854775807", "1e-10", "3 sec", "1000000 days",
};

static const char *const hand_pairs[][2] = {
    { "@ Nov 5 12:00 2022", "@ Nov 6 01:30 2022" },
    { "@ Dec 1 12:00 2022", "@ Nov 6 01:30 2022" },
    { "@ Mar 1 12:00 2023", "@ Mar 12 02:30 2023" },
    { "@ Apr 1 12:00 2023", "@ Apr 2 02:30 2023" },
    { "@ May 1 12:00 2023", "@ Apr 2 02:30 2023" },
    { "@ Sep 1 12:00 2022", "@ Oct 2 02:30 2022" },
    { "@ Nov 6 01:30 2022", "@ 01:30" },
    { "@ Apr 2 02:30 2023", "@ 02:30" },
    { "+1d", "@ 01:30" },
    { "-1d", "@ 02:30" },
};

int
main(int argc, char **argv)
{
    static const char *const zones[] = {
	"UTC", "AEDT-11", ":Australia/Melbourne", "EST5EDT", "America/New_York",
	"EST-11EST-10,89/2:00,299/2:00", "IST-5:30",
    };
    /* archive-like bounds; the last is a live source (now, no end) */
    static const struct bounds fixed[] = {
	{ { 1673319845, 123456789 }, { 1673579045, 623456789 } },	/* 2023-01-10 + 3 days */
	{ { 1678528800, 0 }, { 1678701600, 999999999 } },		/* US DST start 2023 */
	{ { 1667649600, 500000000 }, { 1667822400, 0 } },		/* US DST end 2022 */
	{ { 1680310800, 999999 }, { 1680483600, 1000 } },		/* AU DST end 2023 */
	{ { 1664632800, 1 }, { 1664805600, 999999998 } },		/* AU DST start 2022 */
	{ { 870947643, 79000 }, { 870947945, 0 } },			/* 1997-08-07, short */
    };
    static const time_t nows[] = { 1673400000, 1678600000, 1667700000, 1680400000, 1664700000, 870947700, 1700000000 };
    char S[256], T[256], A[256], O[256];
    int count = argc > 2 ? atoi(argv[2]) : 100;
    size_t zi;
    int i, j;

    rng_state = argc > 1 ? strtoull(argv[1], NULL, 10) : 1;
    signal(SIGFPE, on_crash);
    pmSetProgname("timeparse_oracle");

    /* intervals: hand-picked, then generated */
    zone = "UTC";
    for (i = 0; i < (int)(sizeof(hand_intervals) / sizeof(hand_intervals[0])); i++)
	interval_case(hand_intervals[i]);
    for (i = 0; i < count * 4; i++) {
	interval(S);
	interval_case(S);
    }

    for (zi = 0; zi < sizeof(zones) / sizeof(zones[0]); zi++) {
	zone = zones[zi];
	setenv("TZ", zone, 1);
	tzset();
	/* each hand-picked time as -S, -T and -O, against every bounds */
	for (j = 0; j < (int)(sizeof(fixed) / sizeof(fixed[0])) + 1; j++) {
	    struct bounds b;
	    fake_now.tv_sec = nows[j];
	    fake_now.tv_nsec = 250000000;
	    if (j < (int)(sizeof(fixed) / sizeof(fixed[0])))
		b = fixed[j];
	    else {
		b.start = fake_now;
		b.end.tv_sec = PM_MAX_TIME_T;
		b.end.tv_nsec = 0;
	    }
	    for (i = 0; i < (int)(sizeof(hand_times) / sizeof(hand_times[0])); i++) {
		const char *t = hand_times[i];
		switch (below(3)) {
		case 0: window_case(t, NULL, NULL, NULL, &b); break;
		case 1: window_case(NULL, t, NULL, NULL, &b); break;
		default: window_case(NULL, NULL, NULL, t, &b); break;
		}
	    }
	    for (i = 0; i < (int)(sizeof(hand_aligns) / sizeof(hand_aligns[0])); i++)
		window_case(NULL, NULL, hand_aligns[i], below(2) ? "+1h" : NULL, &b);
	    /* mktime's memory carries from -S to -T to -O: the first local
	     * time decides which side of a DST overlap the next one takes */
	    for (i = 0; i < (int)(sizeof(hand_pairs) / sizeof(hand_pairs[0])); i++) {
		window_case(hand_pairs[i][0], hand_pairs[i][1], NULL, NULL, &b);
		window_case(hand_pairs[i][0], NULL, NULL, hand_pairs[i][1], &b);
		window_case(NULL, hand_pairs[i][0], "1 min", hand_pairs[i][1], &b);
	    }
	}
	/* generated windows */
	for (i = 0; i < count; i++) {
	    int k = below(7);
	    struct bounds b;
	    fake_now.tv_sec = nows[below(7)] + below(200000) - 100000;
	    fake_now.tv_nsec = below(1000000000);
	    if (k < 6)
		b = fixed[k];
	    else {
		b.start = fake_now;
		b.end.tv_sec = PM_MAX_TIME_T;
		b.end.tv_nsec = 0;
	    }
	    time_spec(S);
	    time_spec(T);
	    time_spec(O);
	    interval(A);
	    window_case(below(2) ? S : NULL, below(2) ? T : NULL, below(5) == 0 ? A : NULL, below(3) == 0 ? O : NULL, &b);
	}
    }
    return 0;
}
