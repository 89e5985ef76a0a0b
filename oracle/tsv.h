/*
 * Helpers the pcp-rs oracles share: a private PRNG (splitmix64, so a seed
 * always gives the same cases), the TSV escaping of text columns, and a
 * way back from a signal raised inside libpcp.
 *
 * Test tooling for pcp-rs; not part of any build.
 */
#ifndef PCP_RS_ORACLE_TSV_H
#define PCP_RS_ORACLE_TSV_H

#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>

static uint64_t rng_state;

static inline uint64_t
rnd(void)
{
    /* splitmix64 */
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* escape a C string for a TSV column: \\ \t \n and non-printables as \xHH */
static inline void
escout(const char *s)
{
    for (; *s; s++) {
	unsigned char c = (unsigned char)*s;
	if (c == '\\')
	    fputs("\\\\", stdout);
	else if (c == '\t')
	    fputs("\\t", stdout);
	else if (c == '\n')
	    fputs("\\n", stdout);
	else if (c < 0x20 || c >= 0x7f)
	    printf("\\x%02x", c);
	else
	    fputc(c, stdout);
    }
}

static sigjmp_buf crash_env;

static inline void
on_crash(int sig)
{
    siglongjmp(crash_env, sig);
}

#endif
