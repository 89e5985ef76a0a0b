/*
 * pcp-rs time zone oracle: what glibc's localtime_r says for archive time
 * zone strings (as PCP's pmNewZone sets TZ), at many instants.
 *
 *   tz_oracle SEED COUNT < zones     (one TZ string a line)
 *
 * Prints: zone \t seconds \t Y-M-D H:M:S wday yday isdst gmtoff abbrev \t ctime
 * For each zone: instants around every DST-ish boundary of 1970-2038 (each
 * twelfth hour around every month start, every fifth year) and COUNT random
 * ones from SEED.
 * Test tooling for pcp-rs; plain libc.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <time.h>

static uint64_t s;
static uint64_t rnd(void) { s ^= s << 13; s ^= s >> 7; s ^= s << 17; return s; }

static void
one(const char *zone, time_t t)
{
    struct tm tm;
    char buf[64];
    if (localtime_r(&t, &tm) == NULL)
	return;
    ctime_r(&t, buf);
    buf[strcspn(buf, "\n")] = '\0';
    printf("%s\t%lld\t%04d-%02d-%02d %02d:%02d:%02d %d %d %d %ld %s\t%s\n", zone, (long long)t,
	tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
	tm.tm_wday, tm.tm_yday, tm.tm_isdst, tm.tm_gmtoff, tm.tm_zone, buf);
}

int
main(int argc, char **argv)
{
    char zone[256];
    int count = argc > 2 ? atoi(argv[2]) : 200;
    s = argc > 1 ? strtoull(argv[1], NULL, 10) * 2654435761u + 1 : 1;
    while (fgets(zone, sizeof(zone), stdin)) {
	int y, m, h, i;
	zone[strcspn(zone, "\n")] = '\0';
	setenv("TZ", zone, 1);
	tzset();
	for (y = 1970; y < 2038; y += 5)
	    for (m = 0; m < 12; m++)
		for (h = -30; h < 30; h += 12) {
		    struct tm base = { .tm_year = y - 1900, .tm_mon = m, .tm_mday = 1 };
		    time_t t = timegm(&base) + (time_t)h * 3600 + (time_t)(rnd() % 3600);
		    one(zone, t);
		}
	for (i = 0; i < count; i++)
	    one(zone, (time_t)(rnd() % 4102444800u));
    }
    return 0;
}
