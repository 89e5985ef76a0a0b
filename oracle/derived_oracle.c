/*
 * pcp-rs derived-metric oracle: asks the C libpcp (-lpcp) how it parses
 * derived metric expressions and prints the answers as tab-separated
 * golden lines.
 *
 *   derived_oracle regex SEED COUNT    glibc regcomp(REG_EXTENDED) verdicts
 *   derived_oracle expr SEED COUNT     pmRegisterDerivedMetric
 *   derived_oracle config SEED COUNT   pmLoadDerivedConfig on generated files,
 *                                      and $PCP_DERIVED_CONFIG cases
 *   derived_oracle files 0 PATH...     pmLoadDerivedConfig on existing files
 *   derived_oracle sem SEED COUNT      semantic checks in a context on the
 *                                      local pmcd (sample and linux PMDAs)
 *
 * Hand-written cases come first, then COUNT random ones drawn from SEED
 * with a private PRNG (the same command always prints the same cases).
 * Every expression case runs in a child process of its own, so each starts
 * from libpcp's initial state; "seq" cases run several registrations in one
 * child, to show what one parse leaves to the next.
 *
 * Line kinds (text columns escaped as in tsv.h, "-" when empty or absent):
 *   R  regex  verdict                 verdict: "ok" or regerror's text
 *   E  name  expr  rc  errmsg  tokens  tree
 *   S  seq#  name  expr  rc  errmsg
 *   C  case#  text  rc  report  metrics...
 *   P  case#  env  loadpath  files  rc  report  metrics...
 * C: pmLoadDerivedConfig("case.conf") with the file holding text and
 * $PCP_DERIVED_CONFIG empty. P: files made in an empty directory (the
 * current one), $PCP_DERIVED_CONFIG set to env ("unset": unset, with
 * $PCP_VAR_DIR=var), then pmLoadDerivedConfig(loadpath). files lists
 * them, ";"-separated: F:path:hexcontent, D:path:child,child (children in
 * the order readdir gave them), O:path (a FIFO). rc is what
 * pmLoadDerivedConfig returned, report what libpcp wrote to stderr, and
 * metrics the global derived metrics then defined, three columns each:
 * name, one-line help, long help (PM_TEXT_HELP), a text as "=text" or
 * "-" for none.
 *   D  name  pmid  type  indom  sem  units    (or: D name err status)
 *   K  expr  status  type  indom  sem  units  report
 * sem: D gives the descriptors of the metrics the expressions use; K is
 * "d.m" defined as expr, then pmLookupDesc in a new context: its status
 * (and descriptor), and what libpcp wrote to stderr (the semantic error
 * report, if any). Numbers are decimal, pmid, indom and units word hex.
 * rc is pmRegisterDerivedMetric's return, errmsg the message it returns.
 * tokens is libpcp's lexer trace (PCP_DERIVED_DEBUG_SYNTAX): one
 * TYPE"text" per token read, separated by spaces, with " and space
 * inside text written as \x22 and \x20. tree is the expression tree of a
 * successful parse rebuilt from libpcp's dump of it, as an S-expression:
 * (TYPE "value" child...), a pattern as (PATTERN kind "text") with kind
 * "exact", "regex" or "!regex". "crash" in tokens means the traced run
 * died (rc and errmsg then come from an untraced run).
 *
 * This is test tooling written for pcp-rs; it is not part of any build.
 */
#include <pcp/pmapi.h>
#include <regex.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "tsv.h"

static int
below(int n)
{
    return (int)(rnd() % (uint64_t)n);
}

static void
col(const char *s)
{
    putchar('\t');
    if (s == NULL || *s == '\0')
	putchar('-');
    else if (strcmp(s, "-") == 0)
	fputs("\\x2d", stdout);	/* not the "empty" mark */
    else
	escout(s);
}

/* escaped text where " and space are escaped too (for token and tree text) */
static void
textout(FILE *f, const char *s, size_t n)
{
    size_t i;
    for (i = 0; i < n; i++) {
	unsigned char c = (unsigned char)s[i];
	if (c == '\\')
	    fputs("\\\\", f);
	else if (c == '\t')
	    fputs("\\t", f);
	else if (c == '\n')
	    fputs("\\n", f);
	else if (c == '"' || c == ' ' || c < 0x20 || c >= 0x7f)
	    fprintf(f, "\\x%02x", c);
	else
	    fputc(c, f);
    }
}

/* ------------------------------------------------------------ regex */

static void
regex_case(const char *re)
{
    regex_t	r;
    int		sts;
    char	buf[256];

    fputs("R", stdout);
    col(re);
    sts = regcomp(&r, re, REG_EXTENDED | REG_NOSUB);
    if (sts == 0) {
	col("ok");
	regfree(&r);
    }
    else {
	regerror(sts, &r, buf, sizeof(buf));
	col(buf);
    }
    putchar('\n');
}

static const char *re_atoms[] = {
    "a", "b", "x", "0", "9", ".", "*", "+", "?", "|", "(", ")", "[", "]", "^", "$",
    "{", "}", ",", "-", "\\", ":", "=", "[:", ":]", "[.", ".]", "[=", "=]", "alpha",
    "digit", "1", "2", "3", "{2}", "{1,3}", "{,2}", "\\1", "\\(", "\\w", "\\<", "a-z",
    "z-a", "[^", "\xe9", " ", "\\.", "{3,1}", "32767", "32768", "[[:alpha:]]", "[a-]",
};

static void
random_regex(char *buf, int max)
{
    int n = below(8);
    buf[0] = '\0';
    while (n-- > 0) {
	const char *a = re_atoms[below(sizeof(re_atoms) / sizeof(re_atoms[0]))];
	if ((int)(strlen(buf) + strlen(a)) < max - 1)
	    strcat(buf, a);
    }
}

static const char *re_hand[] = {
    "", "a", "^(lo)|(vbir)", "a**", "a+?", "a{2}{3}", "a{,}", "a{,2}", "a{}", "a{", "a{1", "a{1,",
    "a{1,2", "a{x}", "a{1,x}", "a{2,1}", "a{32767}", "a{32768}", "a{99999999999}", "{1}", "*a", "+a",
    "?a", "a|*b", "(*a)", "^*", "a^*", "$*", "\\<*", "()", "()*", "(a)\\1", "\\1", "(a\\1)", "(a)|\\1",
    "(", ")", "a)", "(a", "((a)", "[", "[a", "[]", "[]a]", "[^]a]", "[^", "[^]", "[a-", "[a-]",
    "[-a]", "[a-z]", "[z-a]", "[a-z-9]", "[--a]", "[[:alpha:]]", "[[:foo:]]", "[[:alpha:]",
    "[[:alpha", "[[:", "[[.a.]]", "[[.ab.]]", "[[..]]", "[[=a=]]", "[[=ab=]]", "[[.a.]-z]",
    "[a-[.z.]]", "[[.z.]-a]", "[a-[:alpha:]]", "[[:alpha:]-z]", "[a-[:foo:]]", "[[=a=]-z]",
    "[\\]", "\\", "a\\", "\\\\", "\\w+", "\\b", "x{2}{3}*", "|", "||", "a|", "|a", "(|a)", "(a|)",
    "[\x80-\xff]", "[\xff-\x80]", "[a-\xe9]", "[[:abcdefghijklmnopqrstuvwxyz01234:]]",
    "[[:abcdefghijklmnopqrstuvwxyz0123:]]", "[[.abcdefghijklmnopqrstuvwxyz01234.]]",
    "a{1}{2}{3}", "a{0}", "(a){0}", "a{0,0}", "\\{", "\\}", "a\\{1", "}", "a}", "{", "{a",
    "a{,", "a{,}b", "[[:alpha:][:digit:]]", "[[:upper:]-]", "[a-a]", "[%--]", "[--]",
};

static void
regex_mode(int count)
{
    size_t	i;
    char	buf[128];
    for (i = 0; i < sizeof(re_hand) / sizeof(re_hand[0]); i++)
	regex_case(re_hand[i]);
    while (count-- > 0) {
	random_regex(buf, sizeof(buf));
	regex_case(buf);
    }
}

/* ------------------------------------------------------------ expressions */

/*
 * Rebuilds the tree from the dump libpcp writes with
 * PCP_DERIVED_DEBUG_SYNTAX, and the token list from its lexer trace.
 */
static const char	*dump;		/* the captured stderr */
static const char	*dump_end;

static int
starts(const char *p, const char *s)
{
    return (size_t)(dump_end - p) >= strlen(s) && strncmp(p, s, strlen(s)) == 0;
}

/* the next occurrence of s at or after p, or NULL */
static const char *
find(const char *p, const char *s)
{
    size_t n = strlen(s);
    for (; p + n <= dump_end; p++)
	if (memcmp(p, s, n) == 0)
	    return p;
    return NULL;
}

static const char *
skip_ptr(const char *p, int *isnull)
{
    if (starts(p, "(nil)")) {
	*isnull = 1;
	return p + 5;
    }
    *isnull = 0;
    while (p < dump_end && (p[0] == 'x' || (p[0] >= '0' && p[0] <= '9') || (p[0] >= 'a' && p[0] <= 'f')))
	p++;
    return p;
}

/* one node line and its subtrees; returns the position after them */
static const char *
node(FILE *out, const char *p)
{
    const char	*q;
    int		lnull, rnull;
    char	type[32];
    int		n = 0;

    if ((q = find(p, "expr node ")) != p)
	return NULL;
    p = strstr(p, " type=");
    if (p == NULL)
	return NULL;
    p += 6;
    while (p < dump_end && *p != ' ' && *p != '\n' && n < 31)
	type[n++] = *p++;
    type[n] = '\0';
    if (strcmp(type, "PATTERN") == 0) {
	/* " pattern: TEXT type: KIND...\n" */
	const char *text = p + strlen(" pattern: ");
	const char *next = find(text, "\nexpr node ");
	const char *t, *last = NULL;
	const char *kind;
	if (next == NULL)
	    next = dump_end;
	for (t = text; (t = find(t, " type: ")) != NULL && t < next; t++)
	    last = t;
	if (last == NULL)
	    return NULL;
	kind = last + strlen(" type: ");
	fputs("(PATTERN ", out);
	if (strncmp(kind, "exact", 5) == 0)
	    fputs("exact", out);
	else if (strncmp(kind, "inverted", 8) == 0)
	    fputs("!regex", out);
	else
	    fputs("regex", out);
	fputs(" \"", out);
	textout(out, text, last - text);
	fputs("\")", out);
	return next < dump_end ? next + 1 : next;
    }
    fprintf(out, "(%s", type);
    if ((p = find(p, " left=")) == NULL)
	return NULL;
    p = skip_ptr(p + 6, &lnull);
    if (!starts(p, " right="))
	return NULL;
    p = skip_ptr(p + 7, &rnull);
    p = strchr(p, '\n');
    if (p == NULL)
	return NULL;
    /* the value: " [VALUE] primary=N" or " [UNITS]" after save_last=N */
    q = memchr(q, '[', p - q);
    if (q != NULL) {
	const char *e = p;
	if (strcmp(type, "SCALE") != 0) {
	    e = find(q, "] primary=");
	    if (e == NULL || e > p)
		return NULL;
	}
	else
	    e = p - 1;
	fputs(" \"", out);
	textout(out, q + 1, e - q - 1);
	fputc('"', out);
    }
    p++;
    if (!lnull) {
	fputc(' ', out);
	if ((p = node(out, p)) == NULL)
	    return NULL;
    }
    if (!rnull) {
	fputc(' ', out);
	if ((p = node(out, p)) == NULL)
	    return NULL;
    }
    fputc(')', out);
    return p;
}

/* tokens from the lexer trace, then the tree; both into out */
static void
parse_trace(FILE *out, const char *name, const char *expr)
{
    const char	*p = dump;
    const char	*tree = NULL;
    int		first = 1;
    char	head[4096];

    /* the "pmRegisterDerived: name=... expr=..." line comes first */
    snprintf(head, sizeof(head), "pmRegisterDerived: name=\"%s\" expr=\"%s\"\n", name, expr);
    if (starts(p, head))
	p += strlen(head);
    while (starts(p, "derive_lex() -> type=L_")) {
	const char *t = p + strlen("derive_lex() -> type=L_");
	const char *sp = strchr(t, ' ');
	const char *q, *end;
	if (sp == NULL)
	    break;
	q = sp + 2;	/* after ' "' */
	/* the text ends at the '"\n' before the next trace line or the end */
	end = NULL;
	for (const char *c = q; (c = find(c, "\"\n")) != NULL; c++) {
	    if (c + 2 == dump_end || starts(c + 2, "derive_lex() -> ") || starts(c + 2, "pmRegisterDerived: ")) {
		end = c;
		break;
	    }
	}
	if (end == NULL)
	    break;
	if (!first)
	    fputc(' ', out);
	first = 0;
	fwrite(t, 1, sp - t, out);
	fputc('"', out);
	textout(out, q, end - q);
	fputc('"', out);
	p = end + 2;
    }
    if (first)
	fputc('-', out);
    fputc('\t', out);
    tree = find(p, "Derived metric expr dump from ");
    if (tree != NULL && (tree = strchr(tree, '\n')) != NULL && node(out, tree + 1) != NULL)
	return;
    fputc('-', out);
}

/* one registration in a child; prints the E line (or its tail for S) */
static void
register_child(const char *name, const char *expr, int traced)
{
    char	*errmsg = NULL;
    int		sts;
    FILE	*cap = NULL;
    char	*text = NULL;
    size_t	len = 0;

    if (traced) {
	fflush(stderr);
	cap = tmpfile();
	if (cap == NULL || dup2(fileno(cap), 2) < 0)
	    exit(3);
	pmSetDerivedControl(PCP_DERIVED_DEBUG_SYNTAX, 1);
    }
    sts = pmRegisterDerivedMetric(name, expr, &errmsg);
    printf("%d", sts);
    col(errmsg);
    if (traced) {
	FILE *mem = open_memstream(&text, &len);
	fflush(stderr);
	rewind(cap);
	{
	    char	buf[4096];
	    size_t	n;
	    while ((n = fread(buf, 1, sizeof(buf), cap)) > 0)
		fwrite(buf, 1, n, mem);
	}
	fclose(mem);
	dump = text;
	dump_end = text + len;
	{
	    char	*res = NULL;
	    size_t	rlen = 0;
	    FILE	*r = open_memstream(&res, &rlen);
	    parse_trace(r, name, expr);
	    fclose(r);
	    putchar('\t');
	    fwrite(res, 1, rlen, stdout);
	}
    }
    putchar('\n');
    fflush(stdout);
}

/*
 * register_child in a child process; its output into buf (NUL-terminated),
 * its length returned, or -1 if the child died
 */
static ssize_t
run_child(const char *name, const char *expr, int traced, char *buf, size_t size)
{
    pid_t	pid;
    int		status;
    int		fd[2];
    ssize_t	n, got = 0;

    if (pipe(fd) < 0)
	exit(1);
    fflush(stdout);
    if ((pid = fork()) == 0) {
	close(fd[0]);
	dup2(fd[1], 1);
	register_child(name, expr, traced);
	_exit(0);
    }
    close(fd[1]);
    while ((n = read(fd[0], buf + got, size - 1 - got)) > 0)
	got += n;
    close(fd[0]);
    buf[got] = '\0';
    waitpid(pid, &status, 0);
    return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? got : -1;
}

/* one case: a traced run, and an untraced one if that dies */
static void
expr_case(const char *name, const char *expr)
{
    char	buf[65536];
    ssize_t	got;

    got = run_child(name, expr, 1, buf, sizeof(buf));
    fputs("E", stdout);
    col(name);
    col(expr);
    putchar('\t');
    if (got > 0 && buf[got - 1] == '\n') {
	fwrite(buf, 1, got, stdout);
	return;
    }
    /* traced run died: rc and errmsg untraced */
    got = run_child(name, expr, 0, buf, sizeof(buf));
    if (got > 0 && buf[got - 1] == '\n')
	fwrite(buf, 1, got - 1, stdout);
    else
	fputs("crash\t-", stdout);
    fputs("\tcrash\t-\n", stdout);
}

/* several registrations in one process */
static void
seq_case(int seq, const char **names, const char **exprs, int n)
{
    pid_t	pid;
    int		status;
    int		i;

    fflush(stdout);
    if ((pid = fork()) == 0) {
	for (i = 0; i < n; i++) {
	    printf("S\t%d", seq);
	    col(names[i]);
	    col(exprs[i]);
	    putchar('\t');
	    register_child(names[i], exprs[i], 0);
	}
	_exit(0);
    }
    waitpid(pid, &status, 0);
}

static const char *hand[] = {
    /* the manual page's examples */
    "delta(disk.dev.total_bytes) / delta(disk.dev.total)",
    "a+b*c", "a-b>c+d", "a>b!=c", "a>b*c&&d<=e+f", "a>=b||b>c&&d!=e||f>g", "!a>b||c<d", "!a<b+c",
    "-3*some.metric", "4rat(disk.dev.read)",
    "network.interface.in.bytes[eth1] + network.interface.out.bytes[eth1]",
    "(network.interface.in.bytes + network.interface.out.bytes)[eth1]",
    "mem.util.free > mkconst(10485760, units=Kbyte)",
    "delta(disk.dev.total) == 0 ? mkconst(1.0, semantics=instant, units=\"kbyte / count\") : delta(disk.dev.total_bytes) / delta(disk.dev.total)",
    "rescale(network.interface.total.bytes, \"Mbytes/hour\")",
    "matchinst(!/^(lo)|(vbir)/, network.interface.in.bytes)",
    "scalar(network.interface.in.bytes[eth0]) + scalar(network.interface.in.bytes[eth1])",
    "matchinst(/some\\\\*text\\/other\\\\[text]/, x)",
    "network.interface.speed - delta(network.interface.in.bytes) / delta(sample.milliseconds)",
    "defined(new.metric) ? new.metric : old.metric",
    "defined(abc.def) ? count(abc.def) : novalue()",
    "!defined(a) || !defined(b) ? novalue() : a + b",
    "novalue(type=float, semantics=instant, units=\"Kbytes/sec\")",
    /* precedence and associativity */
    "a-b-c", "a/b/c", "a-b+c", "a*b/c", "-a*b", "-a+b", "-a<b", "--a", "-!a", "!-a", "!!a", "!a&&b",
    "!a||b", "a&&b||c", "a||b&&c", "a?b:c?d:e", "a?b?c:d:e", "a?b:c+d", "a+b?c:d", "a&&b?c:d", "!a?b:c",
    "-a?b:c", "a<b<c", "a==b==c", "(a)", "((a))", "(a+b)*c", "a*(b+c)", "a[x]+b[y]", "(a+b)[x]*2",
    /* functions */
    "avg(a)", "count(a)", "max(a)", "min(a)", "sum(a)", "rate(a)", "instant(a)", "delta(a)", "defined(a)",
    "scalar(a)", "scalar(a+b)", "scalar((a))", "anon(PM_TYPE_32)", "anon(PM_TYPE_U32)", "anon(PM_TYPE_64)",
    "anon(PM_TYPE_U64)", "anon(PM_TYPE_FLOAT)", "anon(PM_TYPE_DOUBLE)", "rescale(a, \"\")",
    "rescale(a+b, \"count\")", "rescale(a, \"furlongs\")", "rescale(a, units)", "rescale(a, 3)",
    "rescale(a)", "rescale(a,", "rescale(", "rescale()", "matchinst(/a/, b)", "matchinst(!/a/, b)",
    "matchinst(/a/, b)/2", "matchinst(/a/, b/2)", "matchinst(/(/, b)", "matchinst(/[/, b)",
    "matchinst(/a/ b)", "matchinst(/a/,)", "matchinst(a, b)", "matchinst(", "matchinst()",
    "matchinst(!a, b)", "matchinst(/a", "matchinst(/a/, matchinst(/b/, c))", "matchinst(/a\\/b/, c)",
    "avg(a+b)", "avg(1)", "avg()", "avg(", "count(", "max(", "min(", "sum(", "rate(", "instant(",
    "delta(", "defined(", "anon(", "scalar(", "scalar()", "avg(a", "avg(a b)", "avg (a)",
    "defined()", "defined(1)", "count(a[x])", "delta(a+b)", "rate(a*2)", "instant(-a)", "delta(1)",
    /* mkconst */
    "mkconst(1, type=u32)", "mkconst(1, type=\"64\")", "mkconst(1, type=32)", "mkconst(1, type=DOUBLE)",
    "mkconst(1.5, type=float)", "mkconst(1.5, type=u32)", "mkconst(1.5, type=64)", "mkconst(1, type=foo)",
    "mkconst(1, semantics=counter)", "mkconst(1, semantics=Instant)", "mkconst(1, semantics=DISCRETE)",
    "mkconst(1, semantics=rate)", "mkconst(1, units=Kbyte)", "mkconst(1, units=\"Kbyte/sec\")",
    "mkconst(1, units=\"sec^-1\")", "mkconst(1, units=\"furlong\")", "mkconst(1, units=1)",
    "mkconst(1, units=count, type=64, semantics=counter)", "mkconst(1, type=u32, type=64)",
    "mkconst(1)", "mkconst(1,)", "mkconst(1, )", "mkconst(a, type=u32)", "mkconst(-1, type=32)",
    "mkconst(1 type=u32)", "mkconst(1, type)", "mkconst(1, type=)", "mkconst(1, type u32)",
    "mkconst(1, foo=u32)", "mkconst(1, type=u32", "mkconst(", "mkconst()", "mkconst (1, type=u32)",
    "mkconst(1, meta=a)", "mkconst(1, type=\"\")", "mkconst(1, units=\"\")", "mkconst(.5, type=float)",
    "mkconst(1., units=byte)", "mkconst(4294967295, type=u32)", "mkconst(4294967296, type=u32)",
    "mkconst(1, units=\"byte/sec/sec\")",
    /* numbers */
    "0", "1", "007", "4294967295", "4294967296", "99999999999999999999999", "1.5", ".5", "1.", ".", "1.2.3",
    "1e5", "1.5e3", "0x10", "12abc", "a.b.c", "a..b", "a.", "a_b", "_a", "a1", "1a",
    /* operators and errors */
    "a+", "a*", "a/", "a(", "a)", "a<", "a<=", "a==", "a>=", "a>", "a!=", "a&&", "a||", "a-", "a?", "a?b",
    "a?b:", "a:b", "a!", "a=b", "a = b", "a&b", "a|b", "a & b", "a | b", "+a", "*a", "/a", "(a", ")a",
    "<a", "<=a", "==a", ">=a", ">a", "!=a", "&&a", "||a", "?a", ":a", "-", "!", "", " ", "\t", "a b",
    "a 1", "1 a", "a (b)", "(a) b", "(a)(b)", "a[b", "a[b]c", "a[]", "a[b\\]c]", "a[b\\\\]", "a[b\\",
    "(a)[b]", "(a)[", "[b]", "a[b][c]", "a @ b", "a # b", "a $ b", "a ~ b", "a ' b", "a ; b", "a { b",
    "a\\b", "\"a\"", "a + \"b\"", "a + \"b", "a,b", "a, b", "type", "units", "semantics", "meta",
    "a + type", "type=u32", "a.type", "a(b)", "foo(a)", "(", ")", "()", "(())", "a+b)", "(a+b",
    "a++b", "a+-b", "a*-b", "a--b", "a+!b", "a<-b", "a<!b", "a&&!b", "a?-b:-c", "a?!b:!c",
    "a?b:c:d", "a?:b", "a??b:c", "a<=>b", "a=>b", "a=<b", "a!==b", "a===b", "a&&&b", "a|||b",
    "novalue()", "novalue", "novalue + 1", "meta + 1", "a ? novalue() : b", "a ? b : novalue()",
    "a ? novalue() : novalue()", "novalue(type=u32)", "a ? novalue(type=u32) : b",
    "delta(a+)", "rate(a b)", "instant(a", "a ? novalue(", "a ? novalue(type", "a ? novalue(type=) : b",
    "a ? novalue( : b", "a ? novalue() b", "mkconst(1, meta=)", "mkconst(1, meta=\"a\")",
    "a ? novalue(meta=x) : b",
    /* odd bytes */
    "a \xff b", "a\xff", "\xff", "ab\xff" "cd", "a + \xff", "a \x80 b", "\xc3\xa9", "a[\xe9]",
    "a\r\n+\rb", "a\v+\fb",
};

static const char *names_pool[] = {
    "a", "b", "c", "x", "y.z", "disk.dev.read", "kernel.all.load", "sample.long.one", "m_1.n2", "network.interface.in.bytes",
};

static const char *pieces[64];
static int npieces;
static char piecebuf[8192];
static int piecelen;

static void
piece(const char *s)
{
    int n = strlen(s);
    if (npieces >= 64 || piecelen + n + 1 > (int)sizeof(piecebuf))
	return;
    memcpy(piecebuf + piecelen, s, n + 1);
    pieces[npieces++] = piecebuf + piecelen;
    piecelen += n + 1;
}

static const char *
sp(void)
{
    static const char *s[] = { "", "", "", " ", " ", "  ", "\t" };
    return s[below(7)];
}

static void
gen_name(void)
{
    piece(names_pool[below(sizeof(names_pool) / sizeof(names_pool[0]))]);
}

static void
gen_number(void)
{
    static const char *n[] = { "0", "1", "2", "42", "007", "4294967295", "4294967296", "1.5", ".5", "3.", "100", "0.25" };
    piece(n[below(sizeof(n) / sizeof(n[0]))]);
}

static void gen_expr(int depth);

static void
gen_regex_piece(void)
{
    char re[64], out[160];
    int i, j = 0;
    random_regex(re, 24);
    out[j++] = '/';
    for (i = 0; re[i] && j < 150; i++) {
	if (re[i] == '/' || re[i] == '\\')
	    out[j++] = '\\';
	out[j++] = re[i];
    }
    out[j++] = '/';
    out[j] = '\0';
    piece(out);
}

static void
gen_spec(void)
{
    static const char *types[] = { "u32", "U32", "32", "64", "u64", "float", "double", "\"DOUBLE\"", "bogus" };
    static const char *sems[] = { "counter", "instant", "discrete", "\"Counter\"", "rate" };
    static const char *units[] = { "byte", "Kbyte", "\"Kbyte/sec\"", "count", "\"sec^-1\"", "\"msec\"", "\"furlong\"", "\"\"" };
    switch (below(3)) {
    case 0: piece("type"); piece("="); piece(types[below(9)]); break;
    case 1: piece("semantics"); piece("="); piece(sems[below(5)]); break;
    default: piece("units"); piece("="); piece(units[below(8)]); break;
    }
}

static void
gen_expr(int depth)
{
    static const char *binops[] = { "+", "-", "*", "/", "<", "<=", "==", ">=", ">", "!=", "&&", "||" };
    static const char *aggr[] = { "avg(", "count(", "max(", "min(", "sum(", "defined(" };
    static const char *insts[] = { "[eth0]", "[a b]", "[x\\]y]", "[]", "[1 minute]" };
    int k = depth > 4 ? below(3) : below(16);
    switch (k) {
    case 0: gen_name(); break;
    case 1: gen_number(); break;
    case 2: gen_name(); piece(insts[below(5)]); break;
    case 3: case 4: case 5:
	gen_expr(depth + 1); piece(binops[below(12)]); gen_expr(depth + 1); break;
    case 6: piece(below(2) ? "-" : "!"); gen_expr(depth + 1); break;
    case 7: gen_expr(depth + 1); piece("?"); gen_expr(depth + 1); piece(":"); gen_expr(depth + 1); break;
    case 8: piece("("); gen_expr(depth + 1); piece(")"); break;
    case 9: piece("("); gen_expr(depth + 1); piece(")"); piece(insts[below(5)]); break;
    case 10: piece(aggr[below(6)]); gen_name(); piece(")"); break;
    case 11: piece("scalar("); gen_expr(depth + 1); piece(")"); break;
    case 12: piece("rescale("); gen_expr(depth + 1); piece(","); piece(below(2) ? "\"Kbyte/sec\"" : "\"count x 10^3\""); piece(")"); break;
    case 13: piece("matchinst("); if (below(3) == 0) piece("!"); gen_regex_piece(); piece(","); gen_expr(depth + 1); piece(")"); break;
    case 14: {
	int n = 1 + below(3);
	piece("mkconst("); piece(below(2) ? "1" : "2.5"); piece(",");
	while (n-- > 0) { gen_spec(); if (n) piece(","); }
	piece(")");
	break;
    }
    default: piece("anon("); piece(below(2) ? "PM_TYPE_U32" : "PM_TYPE_DOUBLE"); piece(")"); break;
    }
}

static const char *junk[] = {
    "+", "-", "*", "/", "(", ")", "<", "<=", "==", ">=", ">", "!=", "&&", "||", "!", "?", ":", ",",
    "=", "a", "1", "2.5", "[x]", "\"s\"", "/r/", "type", "units", "avg(", "mkconst(", "matchinst(",
    "rescale(", "scalar(", "@", "&", "|", "]", "[", "\"", "\\", "\xff",
};

static void
random_case(char *out, int max)
{
    int i, m;
    npieces = 0;
    piecelen = 0;
    gen_expr(0);
    /* mutate sometimes */
    m = below(4);
    while (m-- > 0 && npieces > 0) {
	int at = below(npieces);
	switch (below(5)) {
	case 0: /* delete */
	    memmove(&pieces[at], &pieces[at + 1], (npieces - at - 1) * sizeof(pieces[0]));
	    npieces--;
	    break;
	case 1: /* insert */
	    if (npieces < 63) {
		memmove(&pieces[at + 1], &pieces[at], (npieces - at) * sizeof(pieces[0]));
		pieces[at] = junk[below(sizeof(junk) / sizeof(junk[0]))];
		npieces++;
	    }
	    break;
	case 2: /* replace */
	    pieces[at] = junk[below(sizeof(junk) / sizeof(junk[0]))];
	    break;
	case 3: /* cut */
	    npieces = at;
	    break;
	default: /* swap */
	    {
		int b = below(npieces);
		const char *t = pieces[at];
		pieces[at] = pieces[b];
		pieces[b] = t;
	    }
	}
    }
    out[0] = '\0';
    for (i = 0; i < npieces; i++) {
	if ((int)(strlen(out) + strlen(pieces[i]) + 3) >= max)
	    break;
	strcat(out, sp());
	strcat(out, pieces[i]);
    }
    strcat(out, sp());
}

/*
 * libpcp 6.0.3 frees the tree of anon(WORD) for an unknown WORD and goes
 * on using it; random cases keep to the six known words.
 */
static int
anon_ok(const char *s)
{
    static const char *types[] = { "PM_TYPE_32", "PM_TYPE_U32", "PM_TYPE_64", "PM_TYPE_U64", "PM_TYPE_FLOAT", "PM_TYPE_DOUBLE" };
    while ((s = strstr(s, "anon(")) != NULL) {
	size_t i, n;
	int ok = 0;
	s += 5;
	while (*s == ' ' || *s == '\t')
	    s++;
	for (i = 0; i < 6; i++) {
	    n = strlen(types[i]);
	    if (strncmp(s, types[i], n) == 0) {
		const char *t = s + n;
		while (*t == ' ' || *t == '\t')
		    t++;
		if (*t == ')')
		    ok = 1;
	    }
	}
	if (!ok)
	    return 0;
    }
    return 1;
}

static void
expr_mode(int count)
{
    size_t	i;
    char	buf[4096];
    char	e[512];

    for (i = 0; i < sizeof(hand) / sizeof(hand[0]); i++)
	expr_case("d.m", hand[i]);
    /* names are not checked */
    expr_case("", "a");
    expr_case("a b", "a +");
    expr_case("a.very.long.name.with.more.parts", "a + (");
    /* messages are truncated at 255 bytes */
    memset(buf, 'x', 300);
    buf[300] = '\0';
    {
	snprintf(e, sizeof(e), "mkconst(1, type=%.300s)", buf);
	expr_case("d.m", e);
	snprintf(e, sizeof(e), "mkconst(1, units=\"%.300s\")", buf);
	expr_case("d.m", e);
	snprintf(e, sizeof(e), "matchinst(/[[:%.300s:]]/, a)", buf);
	expr_case("d.m", e);
    }
    {
	/* a left-open matchinst( turns the next expression's / into a pattern */
	const char *n1[] = { "s.a", "s.b", "s.c" };
	const char *e1[] = { "matchinst(/a/ b)", "a / b", "a / b" };
	const char *e2[] = { "matchinst(/(/, b)", "x/y/", "x/y/ + 1" };
	const char *e3[] = { "matchinst(/a/, b", "matchinst(/a/, b)", "c/d" };
	const char *e4[] = { "a", "a", "b" };	/* duplicates */
	const char *e5[] = { "matchinst(", "/x/", "a/b" };
	seq_case(1, n1, e1, 3);
	seq_case(2, n1, e2, 3);
	seq_case(3, n1, e3, 3);
	{
	    const char *same[] = { "s.a", "s.a", "s.b" };
	    seq_case(4, same, e4, 3);
	}
	seq_case(5, n1, e5, 3);
    }
    while (count-- > 0) {
	do
	    random_case(buf, sizeof(buf));
	while (!anon_ok(buf));
	expr_case("d.m", buf);
    }
}

/* ------------------------------------------------------------ config files */

static void
textcol(const char *s)
{
    putchar('\t');
    if (s == NULL)
	putchar('-');
    else {
	putchar('=');
	escout(s);
    }
}

/* in a child: stderr captured, pmLoadDerivedConfig(path), then the metrics */
static void
load_child(const char *path)
{
    FILE	*cap = tmpfile();
    int		sts, item;
    char	buf[4096];
    size_t	n;

    if (cap == NULL || dup2(fileno(cap), 2) < 0)
	exit(3);
    sts = pmLoadDerivedConfig(path);
    fflush(stderr);
    printf("\t%d\t", sts);
    rewind(cap);
    {
	char	*text = NULL;
	size_t	len = 0;
	FILE	*mem = open_memstream(&text, &len);
	while ((n = fread(buf, 1, sizeof(buf), cap)) > 0)
	    fwrite(buf, 1, n, mem);
	fclose(mem);
	if (len == 0)
	    putchar('-');
	else
	    escout(text);
    }
    for (item = 1; item < 1024; item++) {
	pmID	pmid = pmID_build(511, 0, item);
	char	*name = NULL, *one = NULL, *help = NULL;
	if (pmNameID(pmid, &name) < 0)
	    break;
	col(name);
	if (pmLookupText(pmid, PM_TEXT_ONELINE, &one) < 0)
	    one = NULL;
	if (pmLookupText(pmid, PM_TEXT_HELP, &help) < 0)
	    help = NULL;
	textcol(one);
	textcol(help);
    }
    putchar('\n');
    fflush(stdout);
}

static char	casedir[] = "/tmp/pcp-rs-derived-XXXXXX";

static void
write_file(const char *path, const char *text, size_t len)
{
    FILE *f = fopen(path, "w");
    if (f == NULL)
	exit(4);
    fwrite(text, 1, len, f);
    fclose(f);
}

/* runs a C case in a child, in a scratch directory */
static void
config_case(int id, const char *text, size_t len)
{
    pid_t	pid;
    int		status;

    fflush(stdout);
    if ((pid = fork()) == 0) {
	char dir[64];
	snprintf(dir, sizeof(dir), "%s/c%d", casedir, id);
	mkdir(dir, 0755);
	if (chdir(dir) < 0)
	    exit(5);
	write_file("case.conf", text, len);
	setenv("PCP_DERIVED_CONFIG", "", 1);
	printf("C\t%d\t", id);
	/* the text as a column: escaped, a NUL as \x00 */
	if (len == 0)
	    putchar('-');
	else {
	    size_t i;
	    for (i = 0; i < len; i++) {
		char one[2] = { text[i], 0 };
		if (text[i] == '\0')
		    fputs("\\x00", stdout);
		else
		    escout(one);
	    }
	}
	load_child("case.conf");
	_exit(0);
    }
    waitpid(pid, &status, 0);
}

/* a P case: files made from a spec, then an environment and a load path */
typedef struct {
    const char	*env;		/* NULL: unset */
    const char	*load;
    const char	*files[12];	/* "F:path:text", "D:path", "O:path" */
} pcase_t;

static const pcase_t pcases[] = {
    { "d", "", { "D:d", "F:d/one.conf:a.one = 1\nbad = +\n", "F:d/two.conf:a.two = 2\n", "F:d/three.conf:a.three = 3\n" } },
    { "nosuch:f1:f2", "", { "F:f1:x = 1\n", "F:f2:y = (\nz = 2\n" } },
    { "", "f1:nosuch:f2", { "F:f1:x = 1\n", "F:f2:y = 2\n" } },
    { "", "f1::f2", { "F:f1:x = 1\n", "F:f2:y = 2\n" } },
    { "", "f1:", { "F:f1:x = 1\n" } },
    { "", ":f1", { "F:f1:x = 1\n" } },
    { "", "d", { "D:d", "D:d/sub", "F:d/sub/deep.conf:deep = 1\n", "F:d/top.conf:top = 2\n", "O:d/fifo" } },
    { "", "d:f1", { "D:d", "F:d/a.conf:dup = 1\n", "F:f1:dup = 2\nother = 3\n" } },
    { NULL, "", { "D:var", "D:var/config", "D:var/config/derived", "F:var/config/derived/x.conf:from.var = 1\n" } },
    { NULL, "f1", { "D:var", "F:f1:f = 1\n" } },
    { "f1", "f1", { "F:f1:twice = 1\n" } },
    { "f1", "", { "F:f1:event.flags = 1\nevent.flags(oneline) = mine\n" } },
    { "", "nosuch", { "F:f1:x = 1\n" } },
    { "", "d", { "D:d" } },
};

static void
pcase_child(int id, const pcase_t *c)
{
    char	dir[64];
    int		i;
    snprintf(dir, sizeof(dir), "%s/p%d", casedir, id);
    mkdir(dir, 0755);
    if (chdir(dir) < 0)
	exit(5);
    for (i = 0; i < 12 && c->files[i] != NULL; i++) {
	const char *f = c->files[i];
	if (f[0] == 'D')
	    mkdir(f + 2, 0755);
	else if (f[0] == 'O')
	    mkfifo(f + 2, 0644);
	else {
	    const char *colon = strchr(f + 2, ':');
	    char path[256];
	    snprintf(path, sizeof(path), "%.*s", (int)(colon - f - 2), f + 2);
	    write_file(path, colon + 1, strlen(colon + 1));
	}
    }
    if (c->env == NULL) {
	unsetenv("PCP_DERIVED_CONFIG");
	setenv("PCP_VAR_DIR", "var", 1);
    }
    else
	setenv("PCP_DERIVED_CONFIG", c->env, 1);
    printf("P\t%d", id);
    col(c->env == NULL ? "unset" : c->env);
    col(c->load);
    putchar('\t');
    /* the files, directories with their children in readdir order */
    for (i = 0; i < 12 && c->files[i] != NULL; i++) {
	const char *f = c->files[i];
	if (i > 0)
	    putchar(';');
	if (f[0] == 'D') {
	    DIR *d = opendir(f + 2);
	    struct dirent *e;
	    int first = 1;
	    printf("D:%s:", f + 2);
	    while (d != NULL && (e = readdir(d)) != NULL) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
		    continue;
		printf("%s%s", first ? "" : ",", e->d_name);
		first = 0;
	    }
	    if (d != NULL)
		closedir(d);
	}
	else if (f[0] == 'O')
	    printf("O:%s", f + 2);
	else {
	    const char *colon = strchr(f + 2, ':');
	    const char *t;
	    printf("F:%.*s:", (int)(colon - f - 2), f + 2);
	    for (t = colon + 1; *t; t++)
		printf("%02x", (unsigned char)*t);
	}
    }
    load_child(c->load);
}

static const char *cf_names[] = {
    "m0", "m1", "m2", "m3", "a.b", "x_1", " m1 ", "\tm2", "1bad", "a..b", "a.", "a-b", "", "  ", "event.flags", "m1.",
};
static const char *cf_exprs[] = {
    "1", "m0 + 1", "a +", "(", "mkconst(1, type=u32)", "sample.long.one", "  2 * 3  ", "\t4", "", "  ", "@",
    "matchinst(/a/, b", "a / b", "\"s\"", "x[y]", "1 ? 2 : 3", "avg(", "4294967296",
};
static const char *cf_attrs[] = { "oneline", "helptext", "foo", "", " oneline ", "ONELINE", "help text" };
static const char *cf_values[] = {
    "text", "two words  ", "\"quoted\"", "'single'", "\"multi\nline\"", "\"esc \\\" quote\"", "\"trail\" extra",
    "\"unterminated", "\"", "", "\"x\"y", "\"x\"\tyz", "\"multi\nline\" junk", "\"multi\nline\"j", "\"multi\nline\"  jk",
    "\"three\nlines\nhere\"", "'a \"b\" c'", "\"\"", "\"tab\\tx\"", "  \"lead\"", "\"x\\y\"",
};

static void
cf_line(char *out, size_t max)
{
    const char *n = cf_names[below(sizeof(cf_names) / sizeof(cf_names[0]))];
    const char *a = cf_attrs[below(sizeof(cf_attrs) / sizeof(cf_attrs[0]))];
    const char *v = cf_values[below(sizeof(cf_values) / sizeof(cf_values[0]))];
    const char *e = cf_exprs[below(sizeof(cf_exprs) / sizeof(cf_exprs[0]))];
    const char *eqs[] = { "=", " = ", "\t=", "=  " };
    const char *q = eqs[below(4)];
    switch (below(14)) {
    case 0: case 1: case 2: case 3:
	snprintf(out, max, "%s%s%s", n, q, e); break;
    case 4: case 5: case 6: case 7:
	snprintf(out, max, "%s(%s)%s%s", n, a, q, v); break;
    case 8: snprintf(out, max, "# a comment = (x)"); break;
    case 9: snprintf(out, max, "%s", below(2) ? "" : "   "); break;
    case 10: snprintf(out, max, " # not a comment"); break;
    case 11: snprintf(out, max, "%s no equals", n); break;
    case 12: snprintf(out, max, "%s(%s%s%s", n, a, q, v); break;
    default: snprintf(out, max, "%s%s)%s%s", n, a, q, v); break;
    }
}

static void
config_mode(int count)
{
    size_t	i;
    int		id = 0;
    char	text[8192];
    static const char *hand_cf[] = {
	"a = 1\n", "a = 1", "a = 1\nb = 2", "\n\n", "#only\n", "a = 1\r\nb = 2\r\n",
	"a.b = x + y\na.b(oneline) = short help\na.b(helptext) = \"long\nhelp\"\nc = 1\nd = +\n",
	"a = 1\na(oneline) = one\na(oneline) = two\na(helptext) = 'h'\na(helptext) = 'h2'\n",
	"a(oneline) = before definition\na = 1\n",
	"a = 1\na(helptext) = \"one\ntwo\nthree\" tail\nb = (\n",
	"a = 1\na(helptext) = \"one\ntwo\"x\nb = (\n",
	"a = 1\na(helptext) = \"one\ntwo\" xy z\nb = (\n",
	"a = 1\na(helptext) = \"never closed\nb = 2\n",
	"a = 1\na(oneline) = \"\nb = (\n",
	"a = 1\na(helptext) = \"esc\\\"aped\\\\ and \\n\"\n",
	"a = 1\na ( helptext ) = 'single \"inner\" quotes'\n",
	"a = 1 +\tb @\n", "a =\t(\t\n", "a = \t\n", "= 1\n", " = 1\n", "a b = 1\n", "a.b.c. = 1\n",
	"a = 1\na(one line) = x\n", "a = 1\na() = x\n", "a = 1\na(  ) = x\n", "a(oneline = x\n",
	"aoneline) = x\n", "a)(oneline = x\n", "a = 1\na(oneline)(helptext) = x\n",
	"a = b = c\n", "a = matchinst(/x/, y\nb = c / d\n", "a = 1\na = 2\n", "event.flags = 1\n",
	"event.flags(oneline) = x\nevent.missed(helptext) = y\n", "x = 1\nx(oneline) = \"\"\n",
	"a = 1\na(helptext) = \"multi\nline\"\nb = +\nc = (\n",
	"a = 1\na(helptext) = \"m\n\n\nn\"\nb = +\n",
	"a = \xff\n", "a = 1 \xff junk\n", "\xe9 = 1\n",
    };
    /* texts holding a NUL */
    static const struct { const char *t; size_t len; } nul_cf[] = {
	{ "a\0b = 1\nc = 2\n", 14 }, { "a = 1\0junk\nc = 2\n", 17 }, { "a = 1\nb(oneline) = \"x\0y\"\n", 25 },
    };
    if (mkdtemp(casedir) == NULL)
	exit(2);
    for (i = 0; i < sizeof(hand_cf) / sizeof(hand_cf[0]); i++)
	config_case(id++, hand_cf[i], strlen(hand_cf[i]));
    for (i = 0; i < sizeof(nul_cf) / sizeof(nul_cf[0]); i++)
	config_case(id++, nul_cf[i].t, nul_cf[i].len);
    for (i = 0; i < sizeof(pcases) / sizeof(pcases[0]); i++) {
	pid_t pid;
	int status;
	fflush(stdout);
	if ((pid = fork()) == 0) {
	    pcase_child((int)i, &pcases[i]);
	    _exit(0);
	}
	waitpid(pid, &status, 0);
    }
    while (count-- > 0) {
	int lines = 1 + below(8);
	text[0] = '\0';
	while (lines-- > 0) {
	    char line[512];
	    cf_line(line, sizeof(line));
	    if (strlen(text) + strlen(line) + 2 >= sizeof(text))
		break;
	    strcat(text, line);
	    if (lines > 0 || below(6) != 0)
		strcat(text, below(10) ? "\n" : "\r\n");
	}
	config_case(id++, text, strlen(text));
    }
    {
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", casedir);
	if (system(cmd) != 0)
	    exit(6);
    }
}

static void
files_mode(int argc, char **argv)
{
    int i;
    if (mkdtemp(casedir) == NULL)
	exit(2);
    for (i = 0; i < argc; i++) {
	FILE *f = fopen(argv[i], "r");
	char *text = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&text, &len);
	int c;
	if (f == NULL)
	    continue;
	while ((c = fgetc(f)) != EOF)
	    fputc(c, m);
	fclose(f);
	fclose(m);
	config_case(1000 + i, text, len);
	free(text);
    }
    {
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", casedir);
	if (system(cmd) != 0)
	    exit(6);
    }
}

/* ------------------------------------------------------------ semantics */

static const char *sem_pool[] = {
    "sample.long.one", "sample.ulong.ten", "sample.longlong.one", "sample.ulonglong.hundred",
    "sample.float.one", "sample.double.ten", "sample.string.hullo", "sample.aggregate.hullo",
    "sample.seconds", "sample.milliseconds", "sample.byte_ctr", "sample.kbyte_ctr", "sample.kbyte_rate",
    "sample.bin", "sample.bucket", "sample.colour", "sample.event.records", "sample.step_counter",
    "sample.mirage", "sample.scale_step.bytes_up", "sample.scale_step.time_up_secs",
    "sample.scale_step.count_up", "sample.recv_pdu", "sample.lights", "sample.magnitude",
    "sample.ulong.count.base", "sample.ulong.count.mega", "sample.ulonglong.bin_ctr",
    "kernel.all.cpu.user", "disk.dev.read", "disk.dev.total_bytes", "network.interface.in.bytes",
    "mem.util.free", "kernel.all.load", "no.such.metric",
};

/* pmUnits as the 32-bit word pcp-rs reads (its in-memory layout) */
static unsigned int
units_word(const pmUnits *u)
{
    unsigned int w;
    memcpy(&w, u, sizeof(w));
    return w;
}

static void
sem_descs(void)
{
    size_t i;
    for (i = 0; i < sizeof(sem_pool) / sizeof(sem_pool[0]); i++) {
	pmID pmid;
	pmDesc d;
	const char *n = sem_pool[i];
	int sts = pmLookupName(1, &n, &pmid);
	if (sts >= 0)
	    sts = pmLookupDesc(pmid, &d);
	if (sts < 0)
	    printf("D\t%s\terr\t%d\n", n, sts);
	else
	    printf("D\t%s\t%08x\t%d\t%08x\t%d\t%08x\n", n, pmid, d.type, d.indom, d.sem, units_word(&d.units));
    }
}

static void
sem_case(const char *expr)
{
    pid_t	pid;
    int		status;

    fflush(stdout);
    if ((pid = fork()) == 0) {
	char	*errmsg = NULL;
	FILE	*cap = tmpfile();
	pmID	pmid;
	pmDesc	d;
	const char *n = "d.m";
	int	sts;
	char	buf[4096];
	size_t	len;

	fputs("K", stdout);
	col(expr);
	if (pmRegisterDerivedMetric("d.m", expr, &errmsg) < 0) {
	    printf("\tsyntax\n");
	    fflush(stdout);
	    _exit(0);
	}
	if (cap == NULL || dup2(fileno(cap), 2) < 0)
	    _exit(3);
	if ((sts = pmNewContext(PM_CONTEXT_HOST, "local:")) < 0) {
	    printf("\tcontext %d\n", sts);
	    fflush(stdout);
	    _exit(0);
	}
	sts = pmLookupName(1, &n, &pmid);
	if (sts >= 0)
	    sts = pmLookupDesc(pmid, &d);
	if (sts < 0)
	    printf("\t%d\t-\t-\t-\t-", sts);
	else
	    printf("\t0\t%d\t%08x\t%d\t%08x", d.type, d.indom, d.sem, units_word(&d.units));
	fflush(stderr);
	rewind(cap);
	len = fread(buf, 1, sizeof(buf) - 1, cap);
	buf[len] = '\0';
	col(buf);
	putchar('\n');
	fflush(stdout);
	_exit(0);
    }
    waitpid(pid, &status, 0);
}

static const char *
pick(const char **a, int n)
{
    return a[below(n)];
}

/* an expression over the pool: no ternary guard decided by constants alone */
static void
sem_expr(char *out, size_t max, int depth)
{
    static const char *binops[] = { "+", "-", "*", "/", "<", "<=", "==", ">=", ">", "!=", "&&", "||" };
    static const char *funcs[] = { "avg(", "count(", "max(", "min(", "sum(", "rate(", "instant(", "delta(" };
    static const char *nums[] = { "0", "1", "2", "10", "1.5", "0.5" };
    static const char *specs[] = {
	"type=u32", "type=32", "type=64", "type=u64", "type=float", "type=double", "semantics=counter",
	"semantics=instant", "semantics=discrete", "units=byte", "units=Kbyte", "units=\"Kbyte/sec\"",
	"units=\"count/sec\"", "units=sec", "units=millisec", "units=count", "units=\"count x 10^3\"",
	"units=\"sec^2\"", "units=\"byte/sec^2\"", "units=\"sec/count\"",
    };
    static const char *scales[] = { "\"Kbyte/sec\"", "\"Mbyte/hour\"", "\"count\"", "\"sec\"", "\"none\"", "\"byte\"", "\"millisec\"" };
    int npool = sizeof(sem_pool) / sizeof(sem_pool[0]) - 1;	/* defined names only ... */
    char a[1024], b[1024], c[1024];
    int k = depth > 3 ? below(3) : below(14);
    switch (k) {
    case 0:
	snprintf(out, max, "%s", sem_pool[below(npool)]);
	break;
    case 1:
	snprintf(out, max, "%s", pick(nums, 6));
	break;
    case 2:
	snprintf(out, max, "mkconst(%s, %s)", below(2) ? "1" : "2.5", pick(specs, sizeof(specs) / sizeof(specs[0])));
	break;
    case 3: case 4: case 5:
	sem_expr(a, sizeof(a), depth + 1);
	sem_expr(b, sizeof(b), depth + 1);
	snprintf(out, max, "(%s %s %s)", a, pick(binops, 12), b);
	break;
    case 6:
	snprintf(out, max, "%s%s)", pick(funcs, 8), sem_pool[below(npool)]);
	break;
    case 7: case 8: case 11: case 12: {
	/* an expression inside an operator or function of one operand */
	static const char *wrap[][2] = { { "-(", ")" }, { "!(", ")" }, { "scalar(", ")" }, { "matchinst(/a/, ", ")" } };
	int w = below(4);
	sem_expr(a, sizeof(a), depth + 1);
	snprintf(out, max, "%s%s%s", wrap[w][0], a, wrap[w][1]);
	break;
    }
    case 9:
	/* the guard always involves a metric */
	sem_expr(b, sizeof(b), depth + 1);
	sem_expr(c, sizeof(c), depth + 1);
	snprintf(out, max, "(%s %s ? %s : %s)", sem_pool[below(npool)], below(2) ? "> 1" : "+ 0", b, c);
	break;
    case 10:
	sem_expr(a, sizeof(a), depth + 1);
	snprintf(out, max, "rescale(%s, %s)", a, pick(scales, sizeof(scales) / sizeof(scales[0])));
	break;
    default:
	snprintf(out, max, "defined(%s)", sem_pool[below(npool + 1)]);
	break;
    }
}

static void
sem_mode(int count)
{
    static const char *hand_sem[] = {
	"sample.long.one", "sample.long.one + 1", "sample.byte_ctr + sample.kbyte_ctr", "sample.byte_ctr * sample.kbyte_ctr",
	"sample.byte_ctr * 2", "2 * sample.byte_ctr", "sample.byte_ctr / 2", "2 / sample.byte_ctr", "2 - sample.byte_ctr",
	"sample.byte_ctr * sample.kbyte_rate", "sample.kbyte_rate * sample.byte_ctr", "sample.byte_ctr > sample.kbyte_rate",
	"sample.seconds + sample.milliseconds", "sample.milliseconds - sample.seconds", "sample.kbyte_rate + sample.scale_step.bytes_up",
	"sample.scale_step.bytes_up - sample.kbyte_rate", "sample.kbyte_rate / sample.scale_step.time_up_secs",
	"sample.ulong.count.base + sample.ulong.count.mega", "sample.ulong.count.mega / sample.ulong.count.base",
	"sample.step_counter + 1", "sample.recv_pdu + sample.step_counter", "sample.bin + sample.colour", "sample.bin + sample.bucket",
	"sample.bin + 1", "1 + sample.bin", "sample.bin > sample.long.one", "sample.string.hullo + 1", "1 + sample.string.hullo",
	"-sample.string.hullo", "-sample.ulong.ten", "-sample.ulonglong.hundred", "!sample.string.hullo", "!sample.kbyte_rate",
	"avg(sample.bin)", "sum(sample.bin)", "max(sample.seconds)", "min(sample.string.hullo)", "count(sample.string.hullo)",
	"count(sample.bin)", "delta(sample.ulong.ten)", "delta(sample.ulonglong.hundred)", "delta(sample.float.one)",
	"rate(sample.seconds)", "rate(sample.byte_ctr)", "rate(sample.kbyte_rate)", "rate(sample.milliseconds)",
	"instant(sample.seconds)", "instant(sample.magnitude)", "instant(sample.string.hullo)",
	"scalar(sample.bin)", "sample.bin[bin-100]", "(sample.bin + 1)[bin-100]", "matchinst(/bin/, sample.bin)",
	"rescale(sample.kbyte_rate, \"Mbyte/hour\")", "rescale(sample.kbyte_rate, \"sec\")", "rescale(sample.string.hullo, \"byte\")",
	"rescale(sample.long.one, \"count\")", "rescale(sample.seconds, \"millisec\")",
	"sample.long.one ? sample.bin : sample.bucket", "sample.long.one ? sample.bin : sample.colour",
	"sample.long.one ? 1 : 2.5", "sample.long.one ? sample.seconds : sample.step_counter", "sample.bin ? 1 : 2",
	"sample.bin ? sample.bin : 2", "sample.string.hullo ? 1 : 2", "sample.long.one ? sample.kbyte_rate : sample.scale_step.bytes_up",
	"sample.long.one ? sample.byte_ctr : sample.kbyte_ctr", "sample.long.one ? sample.ulong.count.base : sample.ulong.count.mega",
	"sample.long.one ? mkconst(1, units=sec) : sample.scale_step.time_up_secs",
	"sample.long.one && sample.kbyte_rate", "sample.long.one || 1", "sample.kbyte_rate > 1", "sample.kbyte_rate > sample.seconds",
	"sample.scale_step.bytes_up > sample.seconds", "sample.scale_step.bytes_up > sample.byte_ctr",
	"sample.seconds * sample.seconds", "sample.byte_ctr - sample.kbyte_ctr", "no.such.metric + 1", "defined(no.such.metric)",
	"defined(sample.long.one) + 1", "mkconst(1, type=64) + mkconst(2, type=u64)", "mkconst(1, type=float) * 3",
	"mkconst(2, units=Kbyte) + sample.byte_ctr", "sample.kbyte_rate * sample.scale_step.time_up_secs",
	"sample.scale_step.time_up_secs * sample.kbyte_rate", "sample.kbyte_rate / sample.kbyte_rate",
	"sample.event.records + 1", "count(sample.event.records)", "sample.aggregate.hullo > 1",
	"kernel.all.cpu.user / 1000", "delta(disk.dev.total_bytes) / delta(disk.dev.read)",
	"network.interface.in.bytes + 1", "mem.util.free > mkconst(10485760, units=Kbyte)",
	"anon(PM_TYPE_U32)", "anon(PM_TYPE_DOUBLE) + 1", "mkconst(1, units=Kbyte) + mkconst(2, units=byte)",
	"sample.scale_step.time_up_secs + mkconst(1, units=millisec)", "mkconst(1, units=millisec) + sample.scale_step.time_up_secs",
	"mkconst(1, units=\"count x 10^3\") - sample.step_counter", "sample.kbyte_rate * mkconst(1, units=\"sec/Mbyte\")",
	"sample.bin ? sample.bin : sample.bucket", "sample.bin > 1 ? sample.bin : 2",
    };
    size_t i;
    char buf[4096];
    if (pmNewContext(PM_CONTEXT_HOST, "local:") < 0) {
	fprintf(stderr, "no pmcd on this host\n");
	exit(1);
    }
    sem_descs();
    for (i = 0; i < sizeof(hand_sem) / sizeof(hand_sem[0]); i++)
	sem_case(hand_sem[i]);
    while (count-- > 0) {
	sem_expr(buf, sizeof(buf), 0);
	sem_case(buf);
    }
}

int
main(int argc, char **argv)
{
    if (argc >= 3 && strcmp(argv[1], "files") == 0) {
	files_mode(argc - 3, argv + 3);
	return 0;
    }
    if (argc != 4) {
	fprintf(stderr, "usage: %s regex|expr|config SEED COUNT | files 0 PATH...\n", argv[0]);
	return 1;
    }
    rng_state = strtoull(argv[2], NULL, 10);
    if (strcmp(argv[1], "regex") == 0)
	regex_mode(atoi(argv[3]));
    else if (strcmp(argv[1], "expr") == 0)
	expr_mode(atoi(argv[3]));
    else if (strcmp(argv[1], "config") == 0)
	config_mode(atoi(argv[3]));
    else if (strcmp(argv[1], "sem") == 0)
	sem_mode(atoi(argv[3]));
    else
	return 1;
    return 0;
}
