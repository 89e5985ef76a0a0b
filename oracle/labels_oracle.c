/*
 * pcp-rs label oracle: asks the C libpcp (-lpcp) how it parses and merges
 * label sets, and prints the answers as tab-separated golden lines.
 *
 *   labels_oracle SEED COUNT
 *
 * Hand-written cases come first, then COUNT random ones drawn from SEED
 * with a private PRNG (the same command always prints the same cases).
 * Inputs are random JSON-ish label texts: objects nested a few levels,
 * names from a small pool (so names repeat and collide), numbers of every
 * shape, strings with escapes and odd bytes, lists of scalars, random
 * white space, and now and then a byte deleted, inserted or the text cut
 * short. Lists never hold lists: libpcp measures such a list from a null
 * pointer, which no other implementation can reproduce.
 *
 * Line kinds (byte strings as lowercase hex, "-" when empty):
 *   merge   buflen  n  set...        status  output
 *           pmMergeLabels; a set is hex, or "null"
 *   sets    buflen  filter  n  set...  status  output
 *           pmMergeLabelSets over sets made by __pmParseLabelSet (a text
 *           it refuses stands as a null set); a set is FLAGS:hex, "null",
 *           or "err" (a set whose nlabels is -1);
 *           filter 0 none, 1 drop optional labels, 2 drop names that
 *           start with 'b', 3 drop all
 *   add     n  FLAGS:hex...  status  nlabels  json  labels
 *           __pmAddLabels of each text in turn onto one set
 *   parse   FLAGS:hex  status  nlabels  json  labels
 *           __pmParseLabelSet
 * labels: "name,namelen,flags,value,valuelen" joined by ";" ("-" none).
 *
 * This is test tooling written for pcp-rs; it is not part of any build.
 */
#include <pcp/pmapi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tsv.h"

/* libpcp internals the oracle calls (exported by libpcp.so.3) */
extern int __pmParseLabelSet(const char *, int, int, pmLabelSet **);
extern int __pmAddLabels(pmLabelSet **, const char *, int);

static int
below(int n)
{
    return (int)(rnd() % (uint64_t)n);
}

static void
hexout(const char *p, size_t n)
{
    size_t i;
    if (n == 0) {
	fputs("-", stdout);
	return;
    }
    for (i = 0; i < n; i++)
	printf("%02x", (unsigned char)p[i]);
}

/* ------------------------------------------------------------ generator */

#define TEXTMAX 4096

typedef struct {
    char	b[TEXTMAX];
    int		n;
} text_t;

static void
put(text_t *t, const char *s)
{
    while (*s && t->n < TEXTMAX - 1)
	t->b[t->n++] = *s++;
    t->b[t->n] = '\0';
}

static void
putc_(text_t *t, char c)
{
    char s[2] = { c, '\0' };
    put(t, s);
}

static void
ws(text_t *t)
{
    static const char *w[] = { " ", "\t", "\n", "\r", "  " };
    if (below(5) == 0)
	put(t, w[below(5)]);
}

static const char *names[] = {
    "a", "b", "c", "ab", "ba", "a_b", "b1", "hostname", "agent", "x", "A",
    "Zz", "a.b", "b.c", "1a", "", "a-b", "_a", "a b", "\\u0061", "userid",
};

/* wild texts draw from every pool and may be mutated; tame ones only from
 * the valid entries (the first of each pool), with names seldom repeated */
static int wild;

static void
name(text_t *t)
{
    int r = below(60);
    if (!wild) {
	static const char *tame[] = { "a", "b", "c", "ab", "ba", "a_b", "b1",
	    "hostname", "agent", "x", "A", "Zz", "cc", "d", "e9", "f_", "g",
	    "hh", "i", "jj", "k", "l", "m", "n" };
	put(t, tame[below(sizeof(tame) / sizeof(tame[0]))]);
	return;
    }
    if (r == 0) {
	/* a name near the 255-byte limit */
	int len = 250 + below(8), i;
	for (i = 0; i < len; i++)
	    putc_(t, "abc"[below(3)]);
    } else if (r < 4) {
	putc_(t, "abcxyz"[below(6)]);
	putc_(t, "abcxyz_0.9"[below(10)]);
	putc_(t, "abcxyz"[below(6)]);
    } else
	put(t, names[below(r < 50 ? 12 : (int)(sizeof(names) / sizeof(names[0])))]);
}

static const char *numbers[] = {
    "0", "1", "42", "-1", "-0", "-01", "1.5", "0.25", "1e5", "1E+5",
    "2e-3", "-3.5e2", "12345678901234567890", "-0.0", "9",
    /* refused */
    "01", "1.", "1e", "-", "1.2.3", "1e5e5", "00",
};

static const char *strings[] = {
    "\"\"", "\"x\"", "\"red\"", "\"a b\"", "\"\\\"q\\\"\"", "\"\\n\\t\"",
    "\"\\u00e9\"", "\"caf\xc3\xa9\"", "\"\x14\x1f\"",
    "\"slash\\/\"", "\"{}[],:\"", "\"long string value with words\"",
    /* refused */
    "\"\\x\"", "\"\x01\"",
};

static const char *literals[] = {
    "true", "false", "null", "tru", "nul", "falsey", "True", "nan",
};

#define NELEM(v) ((int)(sizeof(v) / sizeof(v[0])))

static void scalar(text_t *t)
{
    switch (below(3)) {
    case 0: put(t, numbers[below(wild ? NELEM(numbers) : 15)]); break;
    case 1: put(t, strings[below(wild ? NELEM(strings) : 12)]); break;
    default: put(t, literals[below(wild && below(3) == 0 ? NELEM(literals) : 3)]); break;
    }
}

static void object(text_t *t, int depth, int lists);

static void
list(text_t *t, int depth)
{
    int n = below(4), i;
    /*
     * no white space in a list: libpcp measures a list value in the input
     * but takes it from the compacted text, and enough white space moves
     * its start before the text (a read out of bounds)
     */
    putc_(t, '[');
    for (i = 0; i < n; i++) {
	if (i)
	    putc_(t, ',');
	if (depth < 3 && below(6) == 0)
	    object(t, depth + 1, 0);
	else
	    scalar(t);
    }
    putc_(t, ']');
}

static void
value(text_t *t, int depth, int lists)
{
    int r = below(10);
    if (r < 2 && depth < 4)
	object(t, depth + 1, lists);
    else if (r < 3 && lists)
	list(t, depth);
    else
	scalar(t);
}

static void
object(text_t *t, int depth, int lists)
{
    int n = below(depth ? 3 : 5) + (below(8) != 0), i;
    putc_(t, '{');
    for (i = 0; i < n; i++) {
	if (i) { ws(t); putc_(t, ','); }
	ws(t);
	putc_(t, '"');
	name(t);
	putc_(t, '"');
	ws(t);
	putc_(t, ':');
	ws(t);
	value(t, depth, lists);
    }
    ws(t);
    putc_(t, '}');
}

/* a random label text; never a list inside a list */
static void
gen(text_t *t)
{
    t->n = 0;
    t->b[0] = '\0';
    wild = below(4) == 0;
    if (!wild) {
	object(t, 0, 1);
	return;
    }
    switch (below(20)) {
    case 0: put(t, ""); return;
    case 1: put(t, "{}"); return;
    case 2: object(t, 0, 1); put(t, ","); object(t, 0, 1); return;
    case 3: scalar(t); return;
    default: object(t, 0, 1); break;
    }
    switch (below(8)) {
    case 0:	/* delete a byte, not a closing bracket */
	if (t->n > 0) {
	    int at = below(t->n);
	    if (t->b[at] != ']') {
		memmove(t->b + at, t->b + at + 1, t->n - at);
		t->n--;
	    }
	}
	break;
    case 1:	/* insert a byte, not an opening bracket */
	if (t->n > 0 && t->n < TEXTMAX - 2) {
	    static const char ins[] = "{}\",:x1 .\\-";
	    int at = below(t->n);
	    memmove(t->b + at + 1, t->b + at, t->n - at + 1);
	    t->b[at] = ins[below(sizeof(ins) - 1)];
	    t->n++;
	}
	break;
    case 2:	/* cut short */
	if (t->n > 0) {
	    t->n = below(t->n);
	    t->b[t->n] = '\0';
	}
	break;
    default:
	break;
    }
}

static const int flag_choices[] = {
    PM_LABEL_CONTEXT, PM_LABEL_DOMAIN, PM_LABEL_INDOM, PM_LABEL_CLUSTER,
    PM_LABEL_ITEM, PM_LABEL_INSTANCES, PM_LABEL_CONTEXT | PM_LABEL_OPTIONAL,
    PM_LABEL_COMPOUND, PM_LABEL_ITEM | PM_LABEL_COMPOUND, 0,
};

static int
gen_flags(void)
{
    return flag_choices[below(sizeof(flag_choices) / sizeof(flag_choices[0]))];
}

static int
gen_buflen(void)
{
    return below(5) ? PM_MAXLABELJSONLEN : 1 + below(120);
}

/* -------------------------------------------------------------- answers */

static void
labelsout(const pmLabelSet *s)
{
    int i;
    if (s == NULL || s->nlabels <= 0 || s->labels == NULL) {
	fputs("-", stdout);
	return;
    }
    for (i = 0; i < s->nlabels; i++)
	printf("%s%u,%u,%u,%u,%u", i ? ";" : "",
		s->labels[i].name, s->labels[i].namelen, s->labels[i].flags,
		s->labels[i].value, s->labels[i].valuelen);
}

static void
setout(const pmLabelSet *s)
{
    printf("%d\t", s->nlabels);
    hexout(s->json ? s->json : "", s->json ? strlen(s->json) : 0);
    putchar('\t');
    labelsout(s);
}

static void
merge_case(int n, char **sets, int buflen)
{
    static char buf[PM_MAXLABELJSONLEN + 200];
    int i, sts;

    printf("merge\t%d\t%d", buflen, n);
    for (i = 0; i < n; i++) {
	putchar('\t');
	if (sets[i] == NULL)
	    fputs("null", stdout);
	else
	    hexout(sets[i], strlen(sets[i]));
    }
    memset(buf, 0, sizeof(buf));
    sts = pmMergeLabels(sets, n, buf, buflen);
    printf("\t%d\t", sts);
    hexout(buf, sts > 0 ? (size_t)sts : 0);
    putchar('\n');
}

static int
filter_cb(const pmLabel *lp, const char *json, void *arg)
{
    int kind = *(int *)arg;
    if (kind == 1)
	return (lp->flags & PM_LABEL_OPTIONAL) == 0;
    if (kind == 2)
	return json[lp->name] != 'b';
    return 0;
}

static void
sets_case(int n, const char **texts, const int *fl, int filter, int buflen)
{
    static char buf[PM_MAXLABELJSONLEN + 200];
    pmLabelSet *sets[8] = {0};
    pmLabelSet errset;
    int i, sts;

    memset(&errset, 0, sizeof(errset));
    errset.inst = PM_IN_NULL;
    errset.nlabels = -1;
    for (i = 0; i < n; i++) {
	if (texts[i] == NULL)
	    continue;
	if (strcmp(texts[i], "err") == 0) {
	    sets[i] = &errset;
	    continue;
	}
	/* a text that does not parse stands as a null set */
	if (__pmParseLabelSet(texts[i], strlen(texts[i]), fl[i], &sets[i]) < 0)
	    sets[i] = NULL;
    }
    printf("sets\t%d\t%d\t%d", buflen, filter, n);
    for (i = 0; i < n; i++) {
	putchar('\t');
	if (texts[i] == NULL)
	    fputs("null", stdout);
	else if (strcmp(texts[i], "err") == 0)
	    fputs("err", stdout);
	else {
	    printf("%d:", fl[i]);
	    hexout(texts[i], strlen(texts[i]));
	}
    }
    memset(buf, 0, sizeof(buf));
    sts = pmMergeLabelSets(sets, n, buf, buflen, filter ? filter_cb : NULL, &filter);
    printf("\t%d\t", sts);
    hexout(buf, sts > 0 ? (size_t)sts : 0);
    putchar('\n');
    for (i = 0; i < n; i++)
	if (sets[i] && sets[i] != &errset)
	    pmFreeLabelSets(sets[i], 1);
}

static void
add_case(int n, const char **texts, const int *fl)
{
    pmLabelSet *set = NULL;
    int i, sts = 0;

    printf("add\t%d", n);
    for (i = 0; i < n; i++) {
	printf("\t%d:", fl[i]);
	hexout(texts[i], strlen(texts[i]));
    }
    for (i = 0; i < n; i++)
	if ((sts = __pmAddLabels(&set, texts[i], fl[i])) < 0)
	    break;
    printf("\t%d\t", sts);
    if (set == NULL)
	fputs("none\t-\t-", stdout);
    else
	setout(set);
    putchar('\n');
    if (set)
	pmFreeLabelSets(set, 1);
}

static void
parse_case(const char *text, int fl)
{
    pmLabelSet *set = NULL;
    int sts;

    printf("parse\t%d:", fl);
    hexout(text, strlen(text));
    sts = __pmParseLabelSet(text, strlen(text), fl, &set);
    printf("\t%d\t", sts);
    if (sts < 0 || set == NULL)
	fputs("none\t-\t-", stdout);
    else
	setout(set);
    putchar('\n');
    if (sts >= 0 && set)
	pmFreeLabelSets(set, 1);
}

static const char *fixed[] = {
    "{\"a\":1}", "{\"b\":1, \"a\":\"x\"}", "{\"a\":{\"b\":1,\"c\":[1, 2]}}",
    "{\"a\":{\"b\":{\"c\":1}}}", "{\"a\":{\"b\":{\"c\":1},\"d\":2}}",
    "{\"a\":{}}", "{\"a\":{\"b\":{}}}", "{\"x.y\":{\"c\":1}}",
    "{\"a\":1},{\"b\":2}", "{\"a\":-01}", "{\"a\":01}", "{\"a\":1,}",
    "{\"a\":1,\"a\":2}", "{\"x\":1,\"x\":{\"c\":2}}", "{\"a\":null}",
    "{\"hostname\":\"box\",\"agent\":\"linux\"}", "{\"a\":[{\"b\":1}]}",
    "{\"a\":\"x", "{\"1\":1}", "", "{}", "{\"a\" : true , \"b\" : false}",
    "{\"a.b\":{\"c\":{\"d\":1},\"e\":{\"f\":2}}}",
    "{\"a.b.c\":{\"x\":{\"y\":{\"z\":1}}},\"q\":1}",
};

/* big texts: deep nesting, many labels, long values */
static void
big_cases(void)
{
    static char a[70000], b[70000];
    const char *texts[2];
    char *sets[2];
    int fl[2] = { PM_LABEL_CONTEXT, PM_LABEL_ITEM };
    int depth, i, k, n;

    for (depth = 60; depth <= 300; depth += (depth < 70 ? 1 : 115)) {
	k = 0;
	k += sprintf(a + k, "{\"top\":1");
	for (i = 0; i < depth; i++)
	    k += sprintf(a + k, ",\"n%d\":{\"v\":%d", i % 3, i);
	for (i = 0; i < depth; i++)
	    k += sprintf(a + k, "}");
	sprintf(a + k, "}");
	sets[0] = a;
	merge_case(1, sets, PM_MAXLABELJSONLEN);
	parse_case(a, PM_LABEL_COMPOUND);
    }
    for (n = 250; n <= 1600; n += (n < 260 ? 2 : 670)) {
	k = sprintf(a, "{");
	for (i = 0; i < n; i++)
	    k += sprintf(a + k, "%s\"l%d\":%d", i ? "," : "", i, i);
	sprintf(a + k, "}");
	sets[0] = a;
	merge_case(1, sets, PM_MAXLABELJSONLEN);
	parse_case(a, PM_LABEL_ITEM);
	texts[0] = a;
	add_case(1, texts, fl);
    }
    /* two long values whose merge just fits (65531 bytes), or just does not */
    for (n = 0; n < 2; n++) {
	memset(a, 0, sizeof(a));
	memset(b, 0, sizeof(b));
	k = sprintf(a, "{\"a\":\"");
	memset(a + k, 'x', 30000);
	strcpy(a + k + 30000, "\"}");
	k = sprintf(b, "{\"b\":\"");
	memset(b + k, 'y', 35507 + n);
	strcpy(b + strlen(b), "\",\"c\":null}");
	sets[0] = a;
	sets[1] = b;
	merge_case(2, sets, PM_MAXLABELJSONLEN);
    }
    /* and one of them added to nothing */
    texts[0] = b;
    add_case(1, texts, fl);
    (void)texts;
}

int
main(int argc, char **argv)
{
    int count, i, j, n;
    text_t t[6];
    const char *texts[6];
    char *sets[6];
    int fl[6];

    if (argc != 3) {
	fprintf(stderr, "usage: labels_oracle SEED COUNT\n");
	return 1;
    }
    rng_state = strtoull(argv[1], NULL, 10);
    count = atoi(argv[2]);

    /* hand-written cases, alone and in pairs */
    n = sizeof(fixed) / sizeof(fixed[0]);
    for (i = 0; i < n; i++) {
	sets[0] = (char *)fixed[i];
	merge_case(1, sets, PM_MAXLABELJSONLEN);
	parse_case(fixed[i], PM_LABEL_COMPOUND);
	parse_case(fixed[i], PM_LABEL_ITEM);
	for (j = 0; j < n; j++) {
	    sets[1] = (char *)fixed[j];
	    merge_case(2, sets, PM_MAXLABELJSONLEN);
	}
    }
    sets[0] = "{\"a\":12345}"; sets[1] = "{\"a\":1}"; sets[2] = "{}";
    merge_case(3, sets, PM_MAXLABELJSONLEN);
    sets[0] = NULL; sets[1] = "{\"a\":1}"; sets[2] = NULL;
    merge_case(3, sets, PM_MAXLABELJSONLEN);
    merge_case(0, sets, PM_MAXLABELJSONLEN);
    big_cases();

    while (count-- > 0) {
	int kind = below(10);
	n = 1 + below(kind < 6 ? 4 : 3);
	for (i = 0; i < n; i++) {
	    gen(&t[i]);
	    texts[i] = t[i].b;
	    sets[i] = t[i].b;
	    fl[i] = gen_flags();
	    if (below(12) == 0)
		sets[i] = NULL;
	}
	if (kind < 4)
	    merge_case(n, sets, gen_buflen());
	else if (kind < 7) {
	    for (i = 0; i < n; i++) {
		if (below(10) == 0)
		    texts[i] = NULL;
		else if (below(15) == 0)
		    texts[i] = "err";
	    }
	    sets_case(n, texts, fl, below(3) ? 0 : 1 + below(3), gen_buflen());
	} else if (kind < 9)
	    add_case(n, texts, fl);
	else
	    parse_case(texts[0], fl[0]);
    }
    return 0;
}
