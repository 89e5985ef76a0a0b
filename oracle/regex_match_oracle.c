/*
 * pcp-rs matchinst() oracle: glibc's regexec (REG_EXTENDED, C locale, as
 * libpcp compiles matchinst() patterns) on a set of subjects.
 *
 *   regex_match_oracle SUBJECTS < PATTERNS
 *
 * SUBJECTS is a comma-separated list of hex strings; PATTERNS one hex
 * string a line. Prints the subjects line first ("S\tSUBJECTS"), then
 * per pattern "M\tHEX\tBITS" with one 0/1 per subject (1: matches), or
 * "M\tHEX\t!" when regcomp refuses it.
 *
 * This is test tooling written for pcp-rs; it is not part of any build.
 */
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *
unhex(const char *s, size_t n)
{
    char *out = malloc(n / 2 + 1);
    size_t i;
    for (i = 0; i + 1 < n; i += 2) {
	unsigned int c;
	sscanf(s + i, "%2x", &c);
	out[i / 2] = (char)c;
    }
    out[n / 2] = '\0';
    return out;
}

int
main(int argc, char **argv)
{
    char *subj[256];
    int nsubj = 0;
    char line[65536];
    char *list, *tok;

    if (argc != 2)
	return 2;
    printf("S\t%s\n", argv[1]);
    list = strdup(argv[1]);
    for (tok = strtok(list, ","); tok != NULL && nsubj < 256; tok = strtok(NULL, ","))
	subj[nsubj++] = unhex(tok, strlen(tok));
    while (fgets(line, sizeof(line), stdin) != NULL) {
	size_t n = strcspn(line, "\n");
	char *pat;
	regex_t re;
	int i;
	line[n] = '\0';
	pat = unhex(line, n);
	printf("M\t%s\t", line);
	if (regcomp(&re, pat, REG_EXTENDED | REG_NOSUB) != 0) {
	    printf("!\n");
	    free(pat);
	    continue;
	}
	for (i = 0; i < nsubj; i++)
	    putchar(regexec(&re, subj[i], 0, NULL, 0) == 0 ? '1' : '0');
	putchar('\n');
	regfree(&re);
	free(pat);
    }
    return 0;
}
