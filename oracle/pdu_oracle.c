/*
 * pcp-rs PDU oracle: asks the C libpcp (-lpcp) how it encodes and decodes
 * the PDUs a PMAPI client and pmcd exchange, and prints the answers as
 * tab-separated golden lines for crates/pcp-pdu.
 *
 *   pdu_oracle SEED COUNT
 *
 * COUNT random PDUs of every kind (contents drawn from SEED with a private
 * PRNG, so a seed always gives the same cases) are sent with libpcp's
 * __pmSend* functions into a pipe, read back as bytes, and decoded again
 * with __pmGetPDU and the matching __pmDecode* function. Each one is then
 * mutated a few ways (cut short, lengthened, a word or byte overwritten,
 * the header's length or type changed) and the mutants decoded too.
 * Every decode runs in a child process, so libpcp dying on a mutant is
 * recorded rather than fatal.
 *
 * Line kinds (bytes as lowercase hex):
 *   type  CODE  TEXT           __pmPDUTypeStr of a type code
 *   enc   KIND  HEX  DUMP      bytes libpcp sent for a KIND PDU, and its
 *                              decode of them
 *   dec   HEX  STATUS  DUMP    libpcp's decode of bytes read from a stream:
 *                              STATUS "ok" (DUMP follows), an error code
 *                              (DUMP "-"), or "crash" (DUMP "-")
 *
 * A DUMP is the decoded contents, space separated: the type's name, then
 * numbers in decimal, identifiers as 8 hex digits, byte strings as ':'
 * and hex (C strings up to their NUL, as libpcp hands them out), '-' for
 * none. The fields of each type are in dump() below; crates/pcp-pdu's
 * tests/oracle.rs prints its decodes the same way.
 *
 * This is test tooling written for pcp-rs; it is not part of any build.
 */
#define _GNU_SOURCE
#include <pcp/pmapi.h>
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "tsv.h"

/* libpcp internals the oracle calls (exported by libpcp.so.3; their
 * declarations live in libpcp.h, which Debian does not install) */
typedef uint32_t __pmPDU;
typedef struct { int64_t sec; int32_t nsec; } __pmTimestamp;
typedef struct { __pmTimestamp timestamp; int numpmid; pmValueSet *vset[1]; } __pmResult;
#define ANY_SIZE 0
#define TIMEOUT_NEVER 0
#define PDU_ERROR 0x7000
#define PDU_RESULT 0x7001
#define PDU_PROFILE 0x7002
#define PDU_FETCH 0x7003
#define PDU_DESC_REQ 0x7004
#define PDU_DESC 0x7005
#define PDU_INSTANCE_REQ 0x7006
#define PDU_INSTANCE 0x7007
#define PDU_TEXT_REQ 0x7008
#define PDU_TEXT 0x7009
#define PDU_CREDS 0x700c
#define PDU_PMNS_IDS 0x700d
#define PDU_PMNS_NAMES 0x700e
#define PDU_PMNS_CHILD 0x700f
#define PDU_PMNS_TRAVERSE 0x7010
#define PDU_ATTR 0x7011
#define PDU_LABEL_REQ 0x7012
#define PDU_LABEL 0x7013
#define PDU_HIGHRES_FETCH 0x7014
#define PDU_HIGHRES_RESULT 0x7015
#define PDU_DESC_IDS 0x7016
#define PDU_DESCS 0x7017

extern const char *__pmPDUTypeStr(int);
extern int __pmGetPDU(int, int, int, __pmPDU **);
extern int __pmUnpinPDUBuf(void *);
extern __pmResult *__pmAllocResult(int);
extern int __pmSendError(int, int, int);
extern int __pmSendXtendError(int, int, int, int);
extern int __pmDecodeError(__pmPDU *, int *);
extern int __pmDecodeXtendError(__pmPDU *, int *, int *);
extern int __pmSendCreds(int, int, int, const unsigned int *);
extern int __pmDecodeCreds(__pmPDU *, int *, int *, unsigned int **);
extern int __pmSendProfile(int, int, int, pmProfile *);
extern int __pmDecodeProfile(__pmPDU *, int *, pmProfile **);
extern void __pmFreeProfile(pmProfile *);
extern int __pmSendFetchPDU(int, int, int, int, pmID *, int);
extern int __pmDecodeFetch(__pmPDU *, int *, void *, int *, pmID **);
extern int __pmDecodeHighResFetch(__pmPDU *, int *, int *, pmID **);
extern int __pmSendResult(int, int, const __pmResult *);
extern int __pmSendHighResResult(int, int, const __pmResult *);
extern int __pmDecodeResult(__pmPDU *, __pmResult **);
extern int __pmDecodeHighResResult(__pmPDU *, __pmResult **);
extern int __pmSendDescReq(int, int, pmID);
extern int __pmDecodeDescReq(__pmPDU *, pmID *);
extern int __pmSendDesc(int, int, pmDesc *);
extern int __pmDecodeDesc(__pmPDU *, pmDesc *);
extern int __pmSendDescs(int, int, int, pmDesc *);
extern int __pmDecodeDescs2(__pmPDU *, int *, pmDesc **);
extern int __pmSendIDList(int, int, int, const pmID *, int);
extern int __pmDecodeIDList(__pmPDU *, int, pmID *, int *);
extern int __pmDecodeIDList2(__pmPDU *, int *, pmID **);
extern int __pmSendInstanceReq(int, int, pmInDom, int, const char *);
extern int __pmDecodeInstanceReq(__pmPDU *, pmInDom *, int *, char **);
extern int __pmSendInstance(int, int, pmInResult *);
extern int __pmDecodeInstance(__pmPDU *, pmInResult **);
extern void __pmFreeInResult(pmInResult *);
extern int __pmSendTextReq(int, int, int, int);
extern int __pmDecodeTextReq(__pmPDU *, int *, int *);
extern int __pmSendText(int, int, int, const char *);
extern int __pmDecodeText(__pmPDU *, int *, char **);
extern int __pmSendNameList(int, int, int, const char **, const int *);
extern int __pmDecodeNameList(__pmPDU *, int *, char ***, int **);
extern int __pmSendChildReq(int, int, const char *, int);
extern int __pmDecodeChildReq(__pmPDU *, char **, int *);
extern int __pmSendTraversePMNSReq(int, int, const char *);
extern int __pmDecodeTraversePMNSReq(__pmPDU *, char **);
extern int __pmSendAttr(int, int, int, const char *, int);
extern int __pmDecodeAttr(__pmPDU *, int *, char **, int *);
extern int __pmSendLabelReq(int, int, int, int);
extern int __pmDecodeLabelReq(__pmPDU *, int *, int *);
extern int __pmSendLabel(int, int, int, int, pmLabelSet *, int);
extern int __pmDecodeLabel(__pmPDU *, int *, int *, pmLabelSet **, int *);

static int
below(int n)
{
    return (int)(rnd() % (uint64_t)n);
}

static int
chance(int percent)
{
    return below(100) < percent;
}

/* ------------------------------------------------------------ output */

typedef struct {
    char	*b;
    size_t	n, cap;
} buf_t;

static void
bput(buf_t *b, const char *fmt, ...)
{
    va_list	ap;
    int		need;

    for (;;) {
	size_t room = b->cap - b->n;
	va_start(ap, fmt);
	need = vsnprintf(b->b ? b->b + b->n : NULL, room, fmt, ap);
	va_end(ap);
	if ((size_t)need < room) {
	    b->n += need;
	    return;
	}
	b->cap = (b->cap + need + 1) * 2;
	b->b = realloc(b->b, b->cap);
    }
}

static void
bhex(buf_t *b, const void *p, size_t n)
{
    const unsigned char *c = p;
    size_t i;
    bput(b, " :");
    for (i = 0; i < n; i++)
	bput(b, "%02x", c[i]);
}

static void
bstr(buf_t *b, const char *s)
{
    if (s == NULL)
	bput(b, " -");
    else
	bhex(b, s, strlen(s));
}

static void
hexout(const unsigned char *p, size_t n)
{
    size_t i;
    for (i = 0; i < n; i++)
	printf("%02x", p[i]);
}

/* ------------------------------------------------------------ decoding */

static void
dump_desc(buf_t *b, const pmDesc *d)
{
    unsigned int units;
    memcpy(&units, &d->units, sizeof(units));
    bput(b, " %08x %d %08x %d %08x", d->pmid, d->type, d->indom, d->sem, units);
}

static void
dump_result(buf_t *b, const __pmResult *r)
{
    int i, j;
    bput(b, " %lld %d %d", (long long)r->timestamp.sec, r->timestamp.nsec, r->numpmid);
    for (i = 0; i < r->numpmid; i++) {
	pmValueSet *vs = r->vset[i];
	bput(b, " %08x %d", vs->pmid, vs->numval);
	if (vs->numval <= 0)
	    continue;
	bput(b, " %d", vs->valfmt);
	for (j = 0; j < vs->numval; j++) {
	    if (vs->valfmt == PM_VAL_INSITU)
		bput(b, " %d=%d", vs->vlist[j].inst, vs->vlist[j].value.lval);
	    else {
		pmValueBlock *vb = vs->vlist[j].value.pval;
		bput(b, " %d=t%d", vs->vlist[j].inst, vb->vtype);
		bhex(b, vb->vbuf, vb->vlen - PM_VAL_HDR_SIZE);
	    }
	}
    }
}

/*
 * Decode a PDU libpcp has just read and describe it; returns the decoder's
 * status (the dump is only meaningful when it is not negative).
 */
static int
dump(buf_t *b, __pmPDU *pb, int type)
{
    int		sts = 0, i, j, n, x, y;
    char	*s;
    pmID	*ids;

    bput(b, "%s", __pmPDUTypeStr(type));
    switch (type) {
    case PDU_ERROR: {
	int len = (int)pb[0];
	if ((sts = __pmDecodeError(pb, &x)) < 0)
	    break;
	bput(b, " %d", x);
	if (len == 20) {
	    __pmDecodeXtendError(pb, &x, &y);
	    bput(b, " %08x", ntohl(y));
	}
	break;
    }
    case PDU_CREDS: {
	unsigned int *creds;
	if ((sts = __pmDecodeCreds(pb, &x, &n, &creds)) < 0)
	    break;
	bput(b, " %d", n);
	for (i = 0; i < n; i++)
	    bput(b, " %08x", creds[i]);
	free(creds);
	break;
    }
    case PDU_PROFILE: {
	pmProfile *p;
	if ((sts = __pmDecodeProfile(pb, &x, &p)) < 0)
	    break;
	bput(b, " %d %d %d", x, p->state, p->profile_len);
	for (i = 0; i < p->profile_len; i++) {
	    pmInDomProfile *ip = &p->profile[i];
	    bput(b, " %08x %d %d", ip->indom, ip->state, ip->instances_len);
	    for (j = 0; j < ip->instances_len; j++)
		bput(b, " %d", ip->instances[j]);
	}
	__pmFreeProfile(p);
	break;
    }
    case PDU_FETCH:
    case PDU_HIGHRES_FETCH: {
	pmTimeval unused;
	if (type == PDU_FETCH)
	    sts = __pmDecodeFetch(pb, &x, &unused, &n, &ids);
	else
	    sts = __pmDecodeHighResFetch(pb, &x, &n, &ids);
	if (sts < 0)
	    break;
	bput(b, " %d %d", x, n);
	for (i = 0; i < n; i++)
	    bput(b, " %08x", ids[i]);
	__pmUnpinPDUBuf(pb);
	break;
    }
    case PDU_RESULT:
    case PDU_HIGHRES_RESULT: {
	__pmResult *r;
	if (type == PDU_RESULT)
	    sts = __pmDecodeResult(pb, &r);
	else
	    sts = __pmDecodeHighResResult(pb, &r);
	if (sts < 0)
	    break;
	dump_result(b, r);
	break;
    }
    case PDU_DESC_REQ: {
	pmID id;
	if ((sts = __pmDecodeDescReq(pb, &id)) >= 0)
	    bput(b, " %08x", id);
	break;
    }
    case PDU_DESC: {
	pmDesc d;
	if ((sts = __pmDecodeDesc(pb, &d)) >= 0)
	    dump_desc(b, &d);
	break;
    }
    case PDU_DESCS: {
	pmDesc *d;
	if ((sts = __pmDecodeDescs2(pb, &n, &d)) < 0)
	    break;
	bput(b, " %d", n);
	for (i = 0; i < n; i++)
	    dump_desc(b, &d[i]);
	free(d);
	break;
    }
    case PDU_DESC_IDS:
	if ((sts = __pmDecodeIDList2(pb, &n, &ids)) < 0)
	    break;
	bput(b, " %d", n);
	for (i = 0; i < n; i++)
	    bput(b, " %08x", ids[i]);
	free(ids);
	break;
    case PDU_PMNS_IDS: {
	/* the caller says how many it expects: as many as the PDU says */
	int len = (int)pb[0];
	n = len >= 20 ? (int)ntohl(pb[4]) : 1;
	if (n <= 0 || n > 100000)
	    n = 1;
	ids = calloc(n, sizeof(pmID));
	if ((sts = __pmDecodeIDList(pb, n, ids, &x)) >= 0) {
	    bput(b, " %d %d", x, n);
	    for (i = 0; i < n; i++)
		bput(b, " %08x", ids[i]);
	}
	free(ids);
	break;
    }
    case PDU_INSTANCE_REQ: {
	pmInDom indom;
	s = NULL;
	if ((sts = __pmDecodeInstanceReq(pb, &indom, &x, &s)) < 0)
	    break;
	bput(b, " %08x %d", indom, x);
	bstr(b, s);
	free(s);
	break;
    }
    case PDU_INSTANCE: {
	pmInResult *r;
	if ((sts = __pmDecodeInstance(pb, &r)) < 0)
	    break;
	bput(b, " %08x %d", r->indom, r->numinst);
	for (i = 0; i < r->numinst; i++) {
	    bput(b, " %d", r->instlist ? r->instlist[i] : PM_IN_NULL);
	    bstr(b, r->namelist ? r->namelist[i] : "");
	}
	__pmFreeInResult(r);
	break;
    }
    case PDU_TEXT_REQ:
	if ((sts = __pmDecodeTextReq(pb, &x, &y)) >= 0)
	    bput(b, " %08x %d", x, y);
	break;
    case PDU_TEXT:
	if ((sts = __pmDecodeText(pb, &x, &s)) < 0)
	    break;
	bput(b, " %08x", ntohl(x));
	bstr(b, s);
	free(s);
	break;
    case PDU_PMNS_NAMES: {
	char **names;
	int *status;
	if ((sts = __pmDecodeNameList(pb, &n, &names, &status)) < 0)
	    break;
	bput(b, " %d", n);
	for (i = 0; i < n; i++) {
	    if (status)
		bput(b, " s%d", status[i]);
	    bstr(b, names[i]);
	}
	free(names);
	free(status);
	break;
    }
    case PDU_PMNS_CHILD:
	if ((sts = __pmDecodeChildReq(pb, &s, &x)) < 0)
	    break;
	bput(b, " %d", x);
	bstr(b, s);
	free(s);
	break;
    case PDU_PMNS_TRAVERSE:
	if ((sts = __pmDecodeTraversePMNSReq(pb, &s)) < 0)
	    break;
	bstr(b, s);
	free(s);
	break;
    case PDU_ATTR:
	if ((sts = __pmDecodeAttr(pb, &x, &s, &n)) < 0)
	    break;
	bput(b, " %d", x);
	bhex(b, s, n);
	break;
    case PDU_LABEL_REQ:
	if ((sts = __pmDecodeLabelReq(pb, &x, &y)) >= 0)
	    bput(b, " %08x %d", x, y);
	break;
    case PDU_LABEL: {
	pmLabelSet *sets;
	if ((sts = __pmDecodeLabel(pb, &x, &y, &sets, &n)) < 0)
	    break;
	bput(b, " %08x %d %d", x, y, n);
	for (i = 0; i < n; i++) {
	    pmLabelSet *ls = &sets[i];
	    bput(b, " %d %d", (int)ls->inst, ls->nlabels);
	    if (ls->nlabels > 0)
		bhex(b, ls->json, ls->jsonlen);
	    else
		bput(b, " -");
	    for (j = 0; j < ls->nlabels; j++) {
		pmLabel *l = &ls->labels[j];
		bput(b, " %u,%u,%u,%u,%u", l->name, l->namelen, l->flags, l->value, l->valuelen);
	    }
	}
	pmFreeLabelSets(sets, n);
	break;
    }
    default:
	sts = PM_ERR_IPC;
	break;
    }
    return sts;
}

/*
 * Read one PDU from bytes, as a client would from pmcd, and decode it in a
 * child process. Prints "STATUS\tDUMP".
 */
static void
decode_bytes(const unsigned char *p, size_t n)
{
    int		res[2];
    pid_t	pid;
    int		status;
    buf_t	out = { 0 };
    char	chunk[4096];
    ssize_t	got;

    fflush(stdout);
    if (pipe(res) < 0)
	exit(1);
    if ((pid = fork()) == 0) {
	int	in[2];
	int	type, sts;
	__pmPDU	*pb;
	buf_t	b = { 0 };

	close(res[0]);
	if (pipe(in) < 0)
	    _exit(1);
	fcntl(in[1], F_SETPIPE_SZ, 1 << 20);
	if (write(in[1], p, n) != (ssize_t)n)
	    _exit(1);
	close(in[1]);
	type = __pmGetPDU(in[0], ANY_SIZE, TIMEOUT_NEVER, &pb);
	if (type <= 0)
	    bput(&b, "%d\t-", type == 0 ? PM_ERR_IPC : type);
	else {
	    buf_t d = { 0 };
	    sts = dump(&d, pb, type);
	    if (sts < 0)
		bput(&b, "%d\t-", sts);
	    else
		bput(&b, "ok\t%s", d.b);
	}
	if (write(res[1], b.b, b.n) != (ssize_t)b.n)
	    _exit(1);
	_exit(0);
    }
    close(res[1]);
    while ((got = read(res[0], chunk, sizeof(chunk))) > 0)
	bput(&out, "%.*s", (int)got, chunk);
    close(res[0]);
    waitpid(pid, &status, 0);
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0 && out.n > 0)
	fputs(out.b, stdout);
    else
	fputs("crash\t-", stdout);
    free(out.b);
}

/* ------------------------------------------------------------ generating */

static int	wfd, rfd;

/* read back the PDU just sent */
static unsigned char *
sent(size_t *len)
{
    unsigned char	head[4];
    unsigned char	*p;
    size_t		n;

    if (read(rfd, head, 4) != 4)
	exit(2);
    n = ((size_t)head[0] << 24) | (head[1] << 16) | (head[2] << 8) | head[3];
    p = malloc(n);
    memcpy(p, head, 4);
    if (read(rfd, p + 4, n - 4) != (ssize_t)(n - 4))
	exit(2);
    *len = n;
    return p;
}

static int
rnd_code(void)
{
    switch (below(5)) {
    case 0: return 0;
    case 1: return -below(200);
    case 2: return -12345 - below(120);
    case 3: return below(20);
    default: return (int)rnd();
    }
}

static uint32_t
rnd_id(void)
{
    switch (below(4)) {
    case 0: return 0xffffffffu;
    case 1: return (uint32_t)pmID_build(29, below(10), below(200));
    default: return (uint32_t)rnd();
    }
}

/* a random string of 0..max bytes without NUL */
static char *
rnd_str(int max)
{
    int n = below(max + 1), i;
    char *s = malloc(n + 1);
    for (i = 0; i < n; i++) {
	int c = chance(70) ? 'a' + below(26) : 1 + below(255);
	s[i] = (char)c;
    }
    s[n] = '\0';
    return s;
}

/* an event array in host order: records of random parameters */
static int
event_array(unsigned char *p, int highres)
{
    int		nrec = below(4), r, k, at = 4;
    memcpy(p, &nrec, 4);
    for (r = 0; r < nrec; r++) {
	unsigned int flags = chance(15) ? PM_EVENT_FLAG_MISSED : (unsigned int)below(32);
	int nparams = flags & PM_EVENT_FLAG_MISSED ? below(5) : below(4);
	if (highres) {
	    int64_t sec = (int64_t)(rnd() % 2000000000), nsec = below(1000000000);
	    memcpy(p + at, &sec, 8);
	    memcpy(p + at + 8, &nsec, 8);
	    at += 16;
	}
	else {
	    int sec = (int)(rnd() % 2000000000), usec = below(1000000);
	    memcpy(p + at, &sec, 4);
	    memcpy(p + at + 4, &usec, 4);
	    at += 8;
	}
	memcpy(p + at, &flags, 4);
	memcpy(p + at + 4, &nparams, 4);
	at += 8;
	if (flags & PM_EVENT_FLAG_MISSED)
	    continue;
	for (k = 0; k < nparams; k++) {
	    static const int types[] = { 0, 1, 2, 3, 4, 5, 6, 7 };
	    int type = types[below(8)];
	    int vlen = type <= 1 || type == 4 ? 4 : type <= 5 ? 8 : below(12);
	    uint32_t pmid = rnd_id();
	    uint32_t tl = ((uint32_t)type << 24) | (uint32_t)(vlen + 4);
	    memcpy(p + at, &pmid, 4);
	    memcpy(p + at + 4, &tl, 4);
	    at += 8;
	    for (int c = 0; c < vlen; c++)
		p[at + c] = (unsigned char)rnd();
	    while (vlen % 4)
		p[at + vlen++] = 0;
	    at += vlen;
	}
    }
    return at;
}

static pmValueBlock *
rnd_block(void)
{
    static const int types[] = { 2, 3, 4, 5, 6, 7, 9, 10 };
    unsigned char data[2048];
    int type = types[below(8)], n, i;
    pmValueBlock *vb;

    switch (type) {
    case 2: case 3: case 5: n = 8; break;
    case 4: n = 4; break;
    case 9: case 10: n = event_array(data, type == 10); break;
    default: n = below(30); break;
    }
    if (type != 9 && type != 10)
	for (i = 0; i < n; i++)
	    data[i] = (unsigned char)rnd();
    if (type == 6 && n > 0)
	data[n - 1] = '\0';
    vb = calloc(1, PM_VAL_HDR_SIZE + n + 4);
    vb->vtype = type;
    vb->vlen = PM_VAL_HDR_SIZE + n;
    memcpy(vb->vbuf, data, n);
    return vb;
}

static void
send_result(int highres, int from)
{
    int		numpmid = below(5), i, j;
    __pmResult	*r = __pmAllocResult(numpmid);

    r->numpmid = numpmid;
    r->timestamp.sec = highres ? (int64_t)rnd() : (int64_t)(int32_t)rnd();
    if (chance(20))
	r->timestamp.sec = (int64_t)rnd();	/* truncated by PDU_RESULT */
    r->timestamp.nsec = below(1000000000);
    for (i = 0; i < numpmid; i++) {
	int numval = chance(15) ? -12345 - below(60) : below(4);
	int valfmt = numval > 0 ? below(3) : 0;
	pmValueSet *vs = calloc(1, sizeof(pmValueSet) + 4 * sizeof(pmValue));
	vs->pmid = rnd_id();
	vs->numval = numval;
	vs->valfmt = valfmt;
	for (j = 0; j < numval; j++) {
	    vs->vlist[j].inst = chance(20) ? PM_IN_NULL : below(1000);
	    if (valfmt == PM_VAL_INSITU)
		vs->vlist[j].value.lval = (int)rnd();
	    else
		vs->vlist[j].value.pval = rnd_block();
	}
	r->vset[i] = vs;
    }
    if (highres)
	__pmSendHighResResult(wfd, from, r);
    else
	__pmSendResult(wfd, from, r);
}

static void
send_labels(int from)
{
    static const int types[] = { 1, 2, 4, 8, 16, 32, 0x41, 0x90 };
    int		nsets = below(4), i, j;
    pmLabelSet	sets[4];

    memset(sets, 0, sizeof(sets));
    for (i = 0; i < nsets; i++) {
	char *json = rnd_str(40);
	int jl = (int)strlen(json);
	sets[i].inst = chance(50) ? PM_IN_NULL : below(100);
	sets[i].nlabels = chance(15) ? -12345 - below(60) : below(4);
	sets[i].json = json;
	sets[i].jsonlen = jl;
	if (sets[i].nlabels > 0) {
	    sets[i].labels = calloc(sets[i].nlabels, sizeof(pmLabel));
	    for (j = 0; j < sets[i].nlabels; j++) {
		pmLabel *l = &sets[i].labels[j];
		l->name = jl ? below(jl) : 0;
		l->namelen = jl - l->name ? below(jl - l->name + 1) : 0;
		l->flags = (unsigned int)rnd() & 0xff;
		l->value = jl ? below(jl) : 0;
		l->valuelen = jl - l->value ? below(jl - l->value + 1) : 0;
	    }
	}
    }
    __pmSendLabel(wfd, from, (int)rnd_id(), types[below(8)], sets, nsets);
}

static const char *kinds[] = {
    "error", "xerror", "creds", "profile", "fetch", "highres_fetch", "result", "highres_result",
    "desc_req", "desc", "descs", "desc_ids", "pmns_ids", "instance_req", "instance", "text_req",
    "text", "pmns_names", "pmns_child", "pmns_traverse", "attr", "label_req", "label",
};
#define NKINDS (int)(sizeof(kinds) / sizeof(kinds[0]))

static void
send_one(int k, int from)
{
    int		i, j, n;
    char	*s;

    switch (k) {
    case 0:
	__pmSendError(wfd, from, rnd_code());
	break;
    case 1:
	__pmSendXtendError(wfd, from, rnd_code(), (int)htonl((uint32_t)rnd()));
	break;
    case 2: {
	unsigned int creds[4];
	n = 1 + below(4);
	for (i = 0; i < n; i++)
	    creds[i] = chance(50) ? (1u << 24) | (2u << 16) | (unsigned int)below(0x1000) : (unsigned int)rnd();
	__pmSendCreds(wfd, from, n, creds);
	break;
    }
    case 3: {
	pmProfile p;
	pmInDomProfile ip[4];
	p.state = below(2);
	p.profile_len = below(5);
	p.profile = ip;
	for (i = 0; i < p.profile_len; i++) {
	    ip[i].indom = rnd_id();
	    ip[i].state = below(2);
	    ip[i].instances_len = below(6);
	    ip[i].instances = malloc(8 * sizeof(int));
	    for (j = 0; j < ip[i].instances_len; j++)
		ip[i].instances[j] = chance(80) ? below(1000) : (int)rnd();
	}
	__pmSendProfile(wfd, from, below(6), &p);
	break;
    }
    case 4:
    case 5: {
	pmID ids[8];
	n = 1 + below(8);
	for (i = 0; i < n; i++)
	    ids[i] = rnd_id();
	__pmSendFetchPDU(wfd, from, below(6), n, ids, k == 4 ? PDU_FETCH : PDU_HIGHRES_FETCH);
	break;
    }
    case 6:
    case 7:
	send_result(k == 7, from);
	break;
    case 8:
	__pmSendDescReq(wfd, from, rnd_id());
	break;
    case 9:
    case 10: {
	pmDesc d[5];
	n = k == 9 ? 1 : 1 + below(5);
	for (i = 0; i < n; i++) {
	    unsigned int u = (unsigned int)rnd() & 0xffffff00u;
	    d[i].pmid = rnd_id();
	    d[i].type = chance(90) ? below(11) - 1 : (int)rnd();
	    d[i].indom = rnd_id();
	    d[i].sem = chance(90) ? below(5) : (int)rnd();
	    memcpy(&d[i].units, &u, 4);
	}
	if (k == 9)
	    __pmSendDesc(wfd, from, d);
	else
	    __pmSendDescs(wfd, from, n, d);
	break;
    }
    case 11:
    case 12: {
	pmID ids[6];
	n = 1 + below(6);
	for (i = 0; i < n; i++)
	    ids[i] = rnd_id();
	__pmSendIDList(wfd, from, n, ids, k == 11 ? -1 : below(7));
	break;
    }
    case 13:
	s = chance(30) ? NULL : rnd_str(20);
	__pmSendInstanceReq(wfd, from, rnd_id(), chance(50) ? PM_IN_NULL : below(100), s);
	free(s);
	break;
    case 14: {
	pmInResult r;
	int insts[5];
	char *names[5];
	r.indom = rnd_id();
	r.numinst = below(6);
	r.instlist = chance(20) ? NULL : insts;
	r.namelist = chance(20) ? NULL : names;
	for (i = 0; i < r.numinst; i++) {
	    insts[i] = chance(80) ? below(1000) : (int)rnd();
	    names[i] = rnd_str(16);
	}
	__pmSendInstance(wfd, from, &r);
	for (i = 0; i < r.numinst; i++)
	    free(names[i]);
	break;
    }
    case 15:
	__pmSendTextReq(wfd, from, (int)rnd_id(), chance(80) ? (1 + below(2)) | (chance(50) ? 4 : 8) | (chance(10) ? 16 : 0) : (int)rnd());
	break;
    case 16:
	s = rnd_str(60);
	__pmSendText(wfd, from, (int)htonl(rnd_id()), s);
	free(s);
	break;
    case 17: {
	char *names[5];
	int status[5] = { 0 };
	n = below(6);
	for (i = 0; i < n; i++) {
	    names[i] = rnd_str(20);
	    status[i] = below(2);
	}
	__pmSendNameList(wfd, from, n, (const char **)names, chance(50) ? status : NULL);
	for (i = 0; i < n; i++)
	    free(names[i]);
	break;
    }
    case 18:
    case 19:
	s = rnd_str(30);
	if (k == 18)
	    __pmSendChildReq(wfd, from, s, below(2));
	else
	    __pmSendTraversePMNSReq(wfd, from, s);
	free(s);
	break;
    case 20: {
	char v[64];
	n = below(64);
	for (i = 0; i < n; i++)
	    v[i] = (char)rnd();
	__pmSendAttr(wfd, from, chance(70) ? below(17) : (int)rnd(), v, n);
	break;
    }
    case 21: {
	static const int types[] = { 1, 2, 4, 8, 16, 32, 0x41, 0x90, 0x03 };
	__pmSendLabelReq(wfd, from, (int)rnd_id(), types[below(9)]);
	break;
    }
    case 22:
	send_labels(from);
	break;
    }
}

/* the PDU with its length word set to its new length */
static void
set_len(unsigned char *p, size_t n)
{
    p[0] = (unsigned char)(n >> 24);
    p[1] = (unsigned char)(n >> 16);
    p[2] = (unsigned char)(n >> 8);
    p[3] = (unsigned char)n;
}

static void
mutant(const unsigned char *orig, size_t len)
{
    unsigned char	*p = malloc(len + 16);
    size_t		n = len;
    uint32_t		w;
    static const uint32_t interesting[] = {
	0, 1, 2, 3, 4, 0xffffffff, 0x7fffffff, 0x80000000, 0xfffffffe, 0x10000, 0xff,
    };

    memcpy(p, orig, len);
    switch (below(7)) {
    case 0:	/* cut short */
	n = 12 + below((int)(len - 12) + 1);
	set_len(p, n);
	break;
    case 1:	/* longer */
	n = len + 1 + below(8);
	for (size_t i = len; i < n; i++)
	    p[i] = chance(50) ? '~' : (unsigned char)rnd();
	set_len(p, n);
	break;
    case 2:	/* a word of the body */
    case 3:
	if (len > 12) {
	    size_t at = 12 + 4 * below((int)(len - 12) / 4);
	    switch (below(3)) {
	    case 0: w = interesting[below(sizeof(interesting) / sizeof(interesting[0]))]; break;
	    case 1: w = (uint32_t)len / 4 + below(3) - 1; break;
	    default: w = (uint32_t)(((p[at] << 24) | (p[at + 1] << 16) | (p[at + 2] << 8) | p[at + 3]) + below(5) - 2); break;
	    }
	    p[at] = w >> 24; p[at + 1] = w >> 16; p[at + 2] = w >> 8; p[at + 3] = w;
	}
	break;
    case 4:	/* a byte of the body */
	if (len > 12)
	    p[12 + below((int)len - 12)] ^= 1 << below(8);
	break;
    case 5:	/* the header's length, bytes as they were */
	w = (uint32_t)len + below(9) - 4;
	if (chance(20))
	    w = interesting[below(sizeof(interesting) / sizeof(interesting[0]))];
	p[0] = w >> 24; p[1] = w >> 16; p[2] = w >> 8; p[3] = w;
	break;
    case 6:	/* another type */
	w = 0x7000 + below(0x18);
	p[4] = 0; p[5] = 0; p[6] = w >> 8; p[7] = w;
	break;
    }
    printf("dec\t");
    hexout(p, n);
    putchar('\t');
    decode_bytes(p, n);
    putchar('\n');
    free(p);
}

int
main(int argc, char **argv)
{
    int		fds[2];
    int		count, c, k, m;
    unsigned char *p;
    size_t	len;

    if (argc != 3) {
	fprintf(stderr, "usage: pdu_oracle SEED COUNT\n");
	return 1;
    }
    rng_state = strtoull(argv[1], NULL, 10);
    count = atoi(argv[2]);
    if (pipe(fds) < 0)
	return 1;
    rfd = fds[0];
    wfd = fds[1];
    fcntl(wfd, F_SETPIPE_SZ, 1 << 20);

    for (c = 0x6fff; c <= 0x7019; c++) {
	printf("type\t%d\t%s\n", c, __pmPDUTypeStr(c));
    }
    for (c = 0x7fff; c <= 0x8004; c++)
	printf("type\t%d\t%s\n", c, __pmPDUTypeStr(c));

    for (c = 0; c < count; c++) {
	k = c % NKINDS;
	send_one(k, chance(50) ? 0 : (int)rnd());
	p = sent(&len);
	printf("enc\t%s\t", kinds[k]);
	hexout(p, len);
	putchar('\t');
	decode_bytes(p, len);
	putchar('\n');
	for (m = 0; m < 4; m++)
	    mutant(p, len);
	free(p);
    }
    return 0;
}
